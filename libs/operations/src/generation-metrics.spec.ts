import { MetricsService } from '@app/core';
import { SceneGenerator } from '@app/generation';
import { GenerationMetrics } from './generation-metrics';

describe(GenerationMetrics.name, () => {
  it('counts ends and held-back starts under the generator that ran them, present from the first scrape', async () => {
    const metrics = new MetricsService();
    const sut = new GenerationMetrics(metrics, { name: 'worldlabs' } as SceneGenerator);
    const before = (await metrics.render()).body;
    expect(before).toContain('generations_finished_total{provider="worldlabs",kind="scene.create",outcome="succeeded"} 0');
    expect(before).toContain('generation_throttled_total{provider="worldlabs",source="provider"} 0');

    sut.succeeded('scene.create');
    sut.succeeded('scene.edit');
    sut.failed('scene.create', 'provider_timeout');
    sut.failed('scene.create', 'provider_timeout');
    sut.throttled('start_limit');
    const { body } = await metrics.render();
    expect(body).toContain('generations_finished_total{provider="worldlabs",kind="scene.create",outcome="succeeded"} 1');
    expect(body).toContain('generations_finished_total{provider="worldlabs",kind="scene.edit",outcome="succeeded"} 1');
    expect(body).toContain(
      'generations_finished_total{provider="worldlabs",kind="scene.create",outcome="failed",code="provider_timeout"} 2',
    );
    expect(body).toContain('generation_throttled_total{provider="worldlabs",source="start_limit"} 1');
  });
});
