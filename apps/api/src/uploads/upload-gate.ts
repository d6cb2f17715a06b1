import { AppConfig, DomainError, ErrorCode } from '@app/core';
import { Injectable } from '@nestjs/common';
import { E_TIMEOUT, Semaphore, SemaphoreInterface, withTimeout } from 'async-mutex';

/**
 * Bounds the uploads one api process handles at once. A waiting request's body is not read, so
 * TCP back-pressure keeps it on the client: memory stays bounded however many partners upload
 * together. Measured (docs/performance.md): about 2.5 × the file size per slot on top of the
 * process's base; more slots than cores add no throughput, only memory.
 */
@Injectable()
export class UploadGate {
  private readonly semaphore: SemaphoreInterface;
  private readonly slots: number;
  private queued = 0;

  constructor(config: AppConfig) {
    this.slots = config.uploads.concurrency;
    this.semaphore = withTimeout(new Semaphore(this.slots), config.uploads.queueTimeoutMs);
  }

  /** Uploads being read and validated right now. */
  get inUse(): number {
    return this.slots - Math.max(0, this.semaphore.getValue());
  }

  /** Uploads waiting for a slot right now. */
  get waiting(): number {
    return this.queued;
  }

  async run<T>(fn: () => Promise<T>): Promise<T> {
    this.queued++;
    let admitted = false;
    try {
      return await this.semaphore.runExclusive(() => {
        admitted = true;
        this.queued--;
        return fn();
      });
    } catch (e) {
      if (e === E_TIMEOUT) {
        throw new DomainError(ErrorCode.Unavailable, 'The service is busy with other uploads. Retry shortly.', {
          retryAfterSeconds: 5,
        });
      }
      throw e;
    } finally {
      if (!admitted) this.queued--;
    }
  }
}
