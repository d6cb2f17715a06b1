import { Injectable } from '@nestjs/common';

/** A timer set on a clock: `cancel()` stops it (harmless once it fired). */
export interface ClockTimer {
  cancel(): void;
}

/** The longest delay setTimeout accepts; a later alarm is re-armed when this one fires. */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/**
 * The time source of the domain. Expiry rules are decided "by time at read", so tests replace
 * this with a clock they move by hand instead of sleeping; what must happen at a moment (an
 * embed session's end in an open studio) is set with `at`, which such a clock fires when it is
 * moved past that moment.
 */
@Injectable()
export class Clock {
  now(): Date {
    return new Date();
  }

  /** Calls `fn` once when this clock reaches `when` (at once, on a later tick, when it already has). */
  at(when: Date, fn: () => void): ClockTimer {
    let timer: NodeJS.Timeout;
    const arm = () => {
      const wait = when.getTime() - this.now().getTime();
      timer = setTimeout(wait > MAX_TIMEOUT_MS ? arm : fn, Math.min(Math.max(wait, 0), MAX_TIMEOUT_MS));
    };
    arm();
    return { cancel: () => clearTimeout(timer) };
  }
}

/** A clock a test moves explicitly. Its timers fire when it is moved to or past their moment. */
export class ManualClock extends Clock {
  private current: number;
  private readonly timers = new Set<{ when: number; fn: () => void }>();

  constructor(start: Date | number = Date.now()) {
    super();
    this.current = typeof start === 'number' ? start : start.getTime();
  }

  override now(): Date {
    return new Date(this.current);
  }

  override at(when: Date, fn: () => void): ClockTimer {
    const timer = { when: when.getTime(), fn };
    this.timers.add(timer);
    this.fireDue();
    return { cancel: () => this.timers.delete(timer) };
  }

  set(to: Date | number): void {
    this.current = typeof to === 'number' ? to : to.getTime();
    this.fireDue();
  }

  advance(ms: number): void {
    this.current += ms;
    this.fireDue();
  }

  /** On a later tick, as a real timer would: the caller that moved the clock finishes first. */
  private fireDue(): void {
    for (const timer of this.timers) {
      if (timer.when > this.current) continue;
      this.timers.delete(timer);
      setImmediate(timer.fn);
    }
  }
}
