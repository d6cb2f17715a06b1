/**
 * A budget of bytes: `run` waits, first come first served, until its weight fits beside the
 * weights running (each at most the whole budget), and gives it back however the work ends.
 */
export class ByteBudget {
  private used = 0;
  private readonly waiting: { weight: number; start: () => void }[] = [];

  constructor(private readonly total: number) {}

  async run<T>(weight: number, work: () => Promise<T>): Promise<T> {
    if (this.waiting.length === 0 && this.used + weight <= this.total) this.used += weight;
    else await new Promise<void>((start) => this.waiting.push({ weight, start }));
    try {
      return await work();
    } finally {
      this.used -= weight;
      while (this.waiting.length > 0 && this.used + this.waiting[0].weight <= this.total) {
        const next = this.waiting.shift()!;
        this.used += next.weight;
        next.start();
      }
    }
  }
}
