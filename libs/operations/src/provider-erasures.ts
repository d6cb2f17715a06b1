import { Clock, isInfrastructureError, Tx } from '@app/core';
import { GenerationError, SceneGenerator } from '@app/generation';
import { Injectable, Logger } from '@nestjs/common';
import { DueErasure, ProviderErasuresRepository } from './provider-erasures.repository';

/** Attempts before an erasure is recorded as failed: with the pauses below, about a day of trying. */
export const PROVIDER_ERASURE_ATTEMPTS = 12;
/** The pause after the first failed attempt; it doubles each time, up to the longest. */
const FIRST_PAUSE_MS = 60_000;
const LONGEST_PAUSE_MS = 6 * 3600_000;
/** How long a worker holds a claimed erasure while it asks the provider (several calls, each with its own timeout). */
const LEASE_MS = 10 * 60_000;
/** Per run: at most this many erasures, claimed this many at a time, for at most this long. */
const PER_RUN = 100;
const CLAIM = 10;
const RUN_BUDGET_MS = 60_000;

export interface ProviderErasureRunResult {
  /** Erasures done (every object accounted for) in this run. */
  done: number;
  /** Objects the providers deleted, or found gone already. */
  deleted: number;
  /** Objects the provider documents no delete for (reported, kept). */
  kept: number;
  /** Erasures to try again later, and those given up. */
  retrying: number;
  failed: number;
}

/**
 * Deletion reaches the provider: once a deleted scene is purged, what its operations' jobs left at
 * the generation provider (the prompt, the instructions and the source image it was sent, and the
 * world or model it made) is deleted there too, through the generator's `delete`, where the
 * provider documents a delete. Our own erasure never waits for it: the purge records the jobs in
 * its transaction (`record`) and this runs after, on its own rows, in the same job. A provider
 * that fails is asked again after a pause that doubles (1 minute, 2, 4… at most 6 hours), for
 * about a day, then the erasure is recorded as failed and logged for the operator. Every row says
 * what was asked, what the provider did, and when (`provider_erasures`).
 */
@Injectable()
export class ProviderErasures {
  private readonly logger = new Logger(ProviderErasures.name);

  constructor(
    private readonly erasures: ProviderErasuresRepository,
    private readonly generator: SceneGenerator,
    private readonly clock: Clock,
  ) {}

  /** In the purge's transaction: the scene's provider jobs, to delete once it commits. */
  record(tx: Tx, sceneId: string): Promise<number> {
    return this.erasures.addForScene(tx, sceneId, this.clock.now());
  }

  /** Asks the providers to delete what is due, a bounded amount per run. */
  async run(): Promise<ProviderErasureRunResult> {
    const result: ProviderErasureRunResult = { done: 0, deleted: 0, kept: 0, retrying: 0, failed: 0 };
    const started = performance.now();
    for (let taken = 0; taken < PER_RUN && performance.now() - started < RUN_BUDGET_MS;) {
      const now = this.clock.now();
      const due = await this.erasures.claimDue(now, new Date(now.getTime() + LEASE_MS), Math.min(CLAIM, PER_RUN - taken));
      if (due.length === 0) break;
      taken += due.length;
      for (const erasure of due) await this.erase(erasure, result);
    }
    if (result.done + result.retrying + result.failed > 0) {
      this.logger.log(
        `provider erasures: ${result.done} done (${result.deleted} object(s) deleted, ${result.kept} kept by the provider), ` +
          `${result.retrying} to retry, ${result.failed} given up`,
      );
    }
    return result;
  }

  private async erase(erasure: DueErasure, result: ProviderErasureRunResult): Promise<void> {
    const { operationId, sceneId } = erasure;
    let reason: string;
    if (erasure.generator !== this.generator.name) {
      // Only the generator that started the job can reach it (its key, its API); the operator may
      // switch back, so it is asked again like a provider that is away.
      reason = 'generator_not_configured';
    } else {
      try {
        const answer = await this.generator.delete(erasure.providerJob, { sceneId, operationId });
        if (answer.status === 'done') {
          await this.erasures.done(operationId, answer.objects, this.clock.now());
          result.done++;
          result.deleted += answer.objects.filter((o) => o.outcome !== 'kept').length;
          result.kept += answer.objects.filter((o) => o.outcome === 'kept').length;
          return;
        }
        reason = 'provider_still_working';
      } catch (e) {
        // Our own store away: the claim's lease brings the row back; the job itself fails and retries.
        if (!(e instanceof GenerationError) && isInfrastructureError(e)) throw e;
        reason = e instanceof GenerationError ? e.code : 'internal_error';
        if (!(e instanceof GenerationError))
          this.logger.error({ err: e, operationId }, `provider erasure of ${operationId} failed unexpectedly`);
      }
    }
    const attempts = erasure.attempts + 1;
    if (attempts >= PROVIDER_ERASURE_ATTEMPTS) {
      await this.erasures.failed(operationId, reason, this.clock.now());
      result.failed++;
      this.logger.warn(`provider erasure of operation ${operationId} given up after ${attempts} attempts (${reason})`);
      return;
    }
    const pause = Math.min(LONGEST_PAUSE_MS, FIRST_PAUSE_MS * 2 ** (attempts - 1));
    await this.erasures.retryAt(operationId, new Date(this.clock.now().getTime() + pause), reason);
    result.retrying++;
  }
}
