import { Injectable } from '@nestjs/common';

/**
 * The time source of the domain. Expiry rules are decided "by time at read", so tests replace
 * this with a clock they move by hand instead of sleeping.
 */
@Injectable()
export class Clock {
  now(): Date {
    return new Date();
  }
}

/** A clock a test moves explicitly. */
export class ManualClock extends Clock {
  private current: number;

  constructor(start: Date | number = Date.now()) {
    super();
    this.current = typeof start === 'number' ? start : start.getTime();
  }

  override now(): Date {
    return new Date(this.current);
  }

  set(to: Date | number): void {
    this.current = typeof to === 'number' ? to : to.getTime();
  }

  advance(ms: number): void {
    this.current += ms;
  }
}
