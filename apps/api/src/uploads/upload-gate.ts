import { AppConfig, DomainError, ErrorCode, MetricsService } from '@app/core';
import { UPLOADS_CONFIG } from '@app/image-assets';
import { Injectable } from '@nestjs/common';
import { clientGone } from './single-file';

interface Waiter {
  organizationId: string;
  admit: () => void;
}

/**
 * Bounds the uploads one api process handles at once. A waiting request's body is not read, so
 * TCP back-pressure keeps it on the client: memory stays bounded however many partners upload
 * together. Measured (docs/performance.md): about 2.5 × the file size per slot on top of the
 * process's base; more slots than cores add no throughput, only memory.
 *
 * Fair between organizations without wasting capacity: a free slot goes to whoever asks while
 * no one waits, but once uploads wait, a freed slot goes to the longest-waiting upload of an
 * organization holding fewer than `UPLOAD_SLOTS_PER_ORGANIZATION` slots (half of them by
 * default), and only to an organization at its share when no other one waits. So one partner's
 * burst may use every idle slot, but another partner's upload gets the next slot that frees.
 */
@Injectable()
export class UploadGate {
  private readonly slots: number;
  private readonly perOrganization: number;
  private readonly queueTimeoutMs: number;
  private readonly held = new Map<string, number>();
  private readonly queue: Waiter[] = [];
  private active = 0;

  constructor(config: AppConfig, metrics: MetricsService) {
    const uploads = config.slice(UPLOADS_CONFIG);
    this.slots = uploads.concurrency;
    this.perOrganization = uploads.slotsPerOrganization;
    this.queueTimeoutMs = uploads.queueTimeoutMs;
    // Read at scrape time: a slot that never comes back shows here (and the fuzz campaigns check it).
    const inUse = () => this.active;
    const waiting = () => this.queue.length;
    metrics.gauge('upload_slots_in_use', 'Uploads this process is reading and validating now', [], function () {
      this.set(inUse());
    });
    metrics.gauge('uploads_waiting', 'Uploads waiting, unread, for a slot in this process', [], function () {
      this.set(waiting());
    });
  }

  /** Uploads being read and validated right now. */
  get inUse(): number {
    return this.active;
  }

  /** Slots an organization holds right now. */
  heldBy(organizationId: string): number {
    return this.held.get(organizationId) ?? 0;
  }

  /** Uploads waiting for a slot right now. */
  get waiting(): number {
    return this.queue.length;
  }

  /**
   * Runs `fn` in a slot. `abandoned` aborts when the client has gone: a waiting upload then
   * leaves the queue at once (its timer cleared), instead of holding a place, and later a slot,
   * for no one.
   */
  async run<T>(organizationId: string, fn: () => Promise<T>, abandoned?: AbortSignal): Promise<T> {
    await this.acquire(organizationId, abandoned);
    try {
      return await fn();
    } finally {
      this.release(organizationId);
    }
  }

  private underShare(organizationId: string): boolean {
    return (this.held.get(organizationId) ?? 0) < this.perOrganization;
  }

  private take(organizationId: string): void {
    this.active++;
    this.held.set(organizationId, (this.held.get(organizationId) ?? 0) + 1);
  }

  private acquire(organizationId: string, abandoned?: AbortSignal): Promise<void> {
    if (abandoned?.aborted) return Promise.reject(clientGone());
    if (this.queue.length === 0 && this.active < this.slots) {
      this.take(organizationId);
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      // Every way out of the queue clears the timer and the abort listener.
      const leave = (error?: DomainError) => {
        clearTimeout(timer);
        abandoned?.removeEventListener('abort', onAbort);
        if (!error) return resolve();
        this.queue.splice(this.queue.indexOf(waiter), 1);
        reject(error);
      };
      const waiter: Waiter = { organizationId, admit: () => leave() };
      const onAbort = () => leave(clientGone());
      const timer = setTimeout(
        () =>
          leave(new DomainError(ErrorCode.Unavailable, 'The service is busy with other uploads. Retry shortly.', { retryAfterSeconds: 5 })),
        this.queueTimeoutMs,
      );
      abandoned?.addEventListener('abort', onAbort, { once: true });
      this.queue.push(waiter);
    });
  }

  private release(organizationId: string): void {
    this.active--;
    const left = (this.held.get(organizationId) ?? 1) - 1;
    if (left === 0) this.held.delete(organizationId);
    else this.held.set(organizationId, left);
    this.admitWaiting();
  }

  /** Gives free slots to waiting uploads: the oldest under its organization's share, else the oldest. */
  private admitWaiting(): void {
    while (this.active < this.slots && this.queue.length > 0) {
      const fair = this.queue.findIndex((w) => this.underShare(w.organizationId));
      const [waiter] = this.queue.splice(fair === -1 ? 0 : fair, 1);
      this.take(waiter.organizationId);
      waiter.admit();
    }
  }
}
