import { ICONS, h, icon } from './dom';

export interface MinimumSize {
  width: number;
  height: number;
}

/**
 * Watches the iframe's own viewport (the document element) and says so when it is smaller than
 * the mode needs. The studio keeps working underneath; the notice can be dismissed, and comes
 * back if the frame shrinks again later.
 */
export class SizeNotice {
  readonly element = h('div', { className: 'size-notice', attrs: { role: 'alert', hidden: true } });
  private readonly text = h('p', { className: 'size-notice-text' });
  private readonly observer: ResizeObserver;
  private dismissed = false;
  tooSmall = false;
  width = 0;
  height = 0;

  constructor(private readonly minimum: MinimumSize) {
    const dismiss = h(
      'button',
      {
        className: 'icon-button',
        attrs: { type: 'button', 'aria-label': 'Dismiss size notice' },
        on: {
          click: () => {
            this.dismissed = true;
            this.element.hidden = true;
          },
        },
      },
      [icon([...ICONS.close])],
    );
    this.element.append(this.text, dismiss);
    this.observer = new ResizeObserver(() => this.measure());
    this.observer.observe(document.documentElement);
    this.measure();
  }

  dispose(): void {
    this.observer.disconnect();
  }

  private measure(): void {
    const root = document.documentElement;
    this.width = root.clientWidth;
    this.height = root.clientHeight;
    const small = this.width < this.minimum.width || this.height < this.minimum.height;
    if (small && !this.tooSmall) this.dismissed = false;
    this.tooSmall = small;
    document.documentElement.dataset.tooSmall = String(small);
    this.text.textContent = `This studio needs a frame of at least ${this.minimum.width}×${this.minimum.height} pixels; it has ${this.width}×${this.height}. Some controls may be cramped until the frame is larger.`;
    this.element.hidden = !small || this.dismissed;
  }
}
