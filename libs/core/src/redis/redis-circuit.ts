import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import CircuitBreaker from 'opossum';
import { isInfrastructureError } from '../errors';
import { MetricsService } from '../metrics';

/**
 * How the breaker judges Redis. A request-path command normally answers in about a millisecond;
 * one that takes 750 ms is treated as lost (ioredis's own command timeout, 1.5 s, is the backstop).
 * Five calls in ten seconds, half of them failing, open the circuit; after five seconds one call
 * is let through to test whether Redis is back.
 */
export const REDIS_CIRCUIT = {
  timeoutMs: 750,
  volumeThreshold: 5,
  errorThresholdPercentage: 50,
  rollingWindowMs: 10_000,
  resetTimeoutMs: 5_000,
} as const;

/**
 * A circuit breaker (opossum) in front of the Redis commands a request waits for: the rate limit
 * and the enqueue after a commit. A Redis that is down answers fast, but a frozen one (the
 * connection open, nothing coming back) would make every request wait out the command timeout;
 * once the circuit is open those calls fail at once with an infrastructure error (code
 * `EOPENBREAKER`) and their callers take their documented fallback: the rate limit counts in
 * the process, creations stay accepted and the reconciler enqueues them later. Only
 * infrastructure errors count as failures; a refused rate-limit reservation is an answer.
 * One breaker per process, as all these commands go to the same Redis.
 */
@Injectable()
export class RedisCircuit implements OnApplicationShutdown {
  private readonly logger = new Logger('RedisCircuit');
  private readonly breaker: CircuitBreaker<[() => Promise<unknown>], unknown>;

  constructor(metrics: MetricsService) {
    this.breaker = new CircuitBreaker((work: () => Promise<unknown>) => work(), {
      timeout: REDIS_CIRCUIT.timeoutMs,
      volumeThreshold: REDIS_CIRCUIT.volumeThreshold,
      errorThresholdPercentage: REDIS_CIRCUIT.errorThresholdPercentage,
      rollingCountTimeout: REDIS_CIRCUIT.rollingWindowMs,
      resetTimeout: REDIS_CIRCUIT.resetTimeoutMs,
      errorFilter: (e: unknown) => !isInfrastructureError(e),
    });
    this.breaker.on('open', () =>
      this.logger.warn(`Redis is not answering: circuit open, request-path commands fail fast for ${REDIS_CIRCUIT.resetTimeoutMs} ms`),
    );
    this.breaker.on('close', () => this.logger.log('Redis answers again: circuit closed'));
    const calls = metrics.counter('redis_circuit_calls_total', 'Request-path Redis calls by what the circuit breaker saw', [
      'result',
    ] as const);
    this.breaker.on('success', () => calls.inc({ result: 'success' }));
    this.breaker.on('failure', () => calls.inc({ result: 'failure' }));
    this.breaker.on('timeout', () => calls.inc({ result: 'timeout' }));
    this.breaker.on('reject', () => calls.inc({ result: 'rejected' }));
    const breaker = this.breaker;
    metrics.gauge('redis_circuit_open', 'Whether the request-path Redis circuit breaker is open (1) or closed (0)', [], function () {
      this.set(breaker.opened ? 1 : 0);
    });
  }

  /** Runs a Redis call through the breaker; rejects at once while the circuit is open. */
  run<T>(work: () => Promise<T>): Promise<T> {
    return this.breaker.fire(work) as Promise<T>;
  }

  get isOpen(): boolean {
    return this.breaker.opened;
  }

  onApplicationShutdown(): void {
    this.breaker.shutdown();
  }
}
