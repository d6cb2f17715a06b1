import { MetricsService } from '@app/core';
import { SceneGenerator } from '@app/generation';
import { Injectable } from '@nestjs/common';
import { OperationKind } from './operation.entity';

/**
 * Why a generation could not start when its job ran: `provider`, the provider answered the submit
 * with a pause (a 429 with Retry-After) and the whole fleet holds back; `start_limit`, no start
 * was free (GENERATION_PROVIDER_RATE's window is full, or such a pause is still in force).
 */
export type ThrottleSource = 'provider' | 'start_limit';

/**
 * The generation job's outcomes on the worker's /metrics, labelled by the generator that ran them
 * (`provider`: procedural, worldlabs, meshy or http; one per deployment):
 * `generations_finished_total{provider,kind,outcome,code}` (code: the safe error code of a failure,
 * absent on success) and `generation_throttled_total{provider,source}`. Counted by the job after
 * its end committed; ends recorded elsewhere (a partner's cancel, the reconciler settling a lost
 * job) are not the provider's doing and are not counted here.
 */
@Injectable()
export class GenerationMetrics {
  private readonly provider: string;
  private readonly finishedTotal;
  private readonly throttledTotal;

  constructor(metrics: MetricsService, generator: SceneGenerator) {
    this.provider = generator.name;
    this.finishedTotal = metrics.counter(
      'generations_finished_total',
      'Generations and edits the worker ended, by generator, kind, outcome and safe error code',
      ['provider', 'kind', 'outcome', 'code'] as const,
    );
    this.throttledTotal = metrics.counter(
      'generation_throttled_total',
      'Generation starts held back: by the provider (429 with Retry-After) or by the fleet-wide start limit',
      ['provider', 'source'] as const,
    );
    // Present from the first scrape, so rates over them read 0 rather than nothing.
    for (const outcome of ['succeeded', 'failed'] as const) {
      this.finishedTotal.labels({ provider: this.provider, kind: 'scene.create', outcome }).inc(0);
    }
    for (const source of ['provider', 'start_limit'] as const) this.throttledTotal.labels({ provider: this.provider, source }).inc(0);
  }

  succeeded(kind: OperationKind): void {
    this.finishedTotal.inc({ provider: this.provider, kind, outcome: 'succeeded' });
  }

  failed(kind: OperationKind, code: string): void {
    this.finishedTotal.inc({ provider: this.provider, kind, outcome: 'failed', code });
  }

  throttled(source: ThrottleSource): void {
    this.throttledTotal.inc({ provider: this.provider, source });
  }
}
