/** Wakes whoever waits for "something new arrived"; waiting ends at the deadline either way. */
export class Signal {
  private waiters: Array<() => void> = [];

  /** Resolves at the next `notify()` or after `ms`, whichever comes first. */
  wait(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  notify(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}
