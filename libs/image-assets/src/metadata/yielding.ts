import { setImmediate } from 'node:timers/promises';

/**
 * Lets a long walk over an upload's bytes give the event loop back every `sliceMs` of work, so a
 * large or crafted file never stalls the other requests of its process. `due` is cheap enough
 * for a hot loop: it reads the clock once every 1024 calls.
 */
export class Yielder {
  private calls = 0;
  private sliceStarted = performance.now();

  constructor(private readonly sliceMs = 8) {}

  due(): boolean {
    if ((++this.calls & 1023) !== 0) return false;
    return performance.now() - this.sliceStarted >= this.sliceMs;
  }

  async yield(): Promise<void> {
    await setImmediate();
    this.sliceStarted = performance.now();
  }
}
