import { isInfrastructureError } from '../errors';
import { MetricsService } from '../metrics';
import { REDIS_CIRCUIT, RedisCircuit } from './redis-circuit';

const never = () => new Promise<never>(() => undefined);
const refused = () => Promise.reject(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' }));

describe('RedisCircuit', () => {
  let metrics: MetricsService;
  let circuit: RedisCircuit;

  beforeEach(() => {
    metrics = new MetricsService();
    circuit = new RedisCircuit(metrics);
  });
  afterEach(() => circuit.onApplicationShutdown());

  it('passes answers and non-infrastructure errors through without opening', async () => {
    await expect(circuit.run(async () => 'PONG')).resolves.toBe('PONG');
    for (let i = 0; i < REDIS_CIRCUIT.volumeThreshold * 2; i++) {
      await expect(circuit.run(() => Promise.reject(new Error('WRONGTYPE')))).rejects.toThrow('WRONGTYPE');
    }
    expect(circuit.isOpen).toBe(false);
  });

  it('opens after calls that time out, then fails fast with an infrastructure error', async () => {
    const calls = Array.from({ length: REDIS_CIRCUIT.volumeThreshold }, () => circuit.run(never).catch((e: Error) => e));
    for (const e of await Promise.all(calls)) expect(isInfrastructureError(e)).toBe(true);
    expect(circuit.isOpen).toBe(true);

    let ran = false;
    const error = await circuit
      .run(async () => {
        ran = true;
      })
      .catch((e: Error & { code?: string }) => e);
    expect(ran).toBe(false);
    expect((error as { code?: string }).code).toBe('EOPENBREAKER');
    expect(isInfrastructureError(error)).toBe(true);
    expect((await metrics.render()).body).toContain('redis_circuit_open 1');
  });

  it('opens on refused connections too', async () => {
    for (let i = 0; i < REDIS_CIRCUIT.volumeThreshold; i++) await circuit.run(refused).catch(() => undefined);
    expect(circuit.isOpen).toBe(true);
  });
});
