import { h } from './dom';

/** One polite live region for the whole studio: status changes are read out, not just shown. */
export class LiveAnnouncer {
  readonly element = h('div', {
    className: 'sr-only',
    attrs: { role: 'status', 'aria-live': 'polite', 'aria-atomic': 'true', id: 'studio-live' },
  });
  private timer: number | undefined;

  announce(text: string): void {
    // Clearing first makes screen readers repeat a message identical to the previous one.
    this.element.textContent = '';
    window.clearTimeout(this.timer);
    this.timer = window.setTimeout(() => {
      this.element.textContent = text;
    }, 60);
  }
}
