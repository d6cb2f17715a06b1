import { h } from '../ui/dom';

export interface CompareControlsHooks {
  compare(a: number, b: number): { ok: true } | { ok: false; message: string };
  stop(): void;
}

/**
 * Choosing two versions to compare with a wipe: A on the left of the divider, B on the right.
 * Offered once there are two versions; the defaults are the one before the latest and the latest.
 */
export class CompareControls {
  readonly element: HTMLElement;
  private readonly selectA = h('select', { className: 'select', attrs: { id: 'compare-a', name: 'compare-a' } });
  private readonly selectB = h('select', { className: 'select', attrs: { id: 'compare-b', name: 'compare-b' } });
  private readonly toggle: HTMLButtonElement;
  private readonly hint = h('p', { className: 'hint', attrs: { id: 'compare-hint' } });
  private readonly error = h('p', { className: 'form-error', attrs: { id: 'compare-error', role: 'alert', hidden: true } });
  private latest: number | null = null;
  private comparing = false;
  private chosen = false;

  constructor(private readonly hooks: CompareControlsHooks) {
    for (const select of [this.selectA, this.selectB]) select.addEventListener('change', () => (this.chosen = true));
    this.toggle = h('button', {
      className: 'button',
      text: 'Compare',
      attrs: { type: 'button', id: 'compare-toggle', 'aria-pressed': 'false', 'aria-describedby': 'compare-hint compare-error' },
      on: { click: () => this.onToggle() },
    });
    this.element = h('div', { className: 'compare-controls' }, [
      h('div', { className: 'compare-pickers' }, [
        h('label', { className: 'field-label', attrs: { for: 'compare-a' }, text: 'Left (A)' }),
        this.selectA,
        h('label', { className: 'field-label', attrs: { for: 'compare-b' }, text: 'Right (B)' }),
        this.selectB,
      ]),
      this.hint,
      this.error,
      h('div', { className: 'form-actions' }, [this.toggle]),
    ]);
    this.update(null, false);
  }

  /** The versions that exist (1 to `latest`) and whether a comparison is on screen. */
  update(latest: number | null, comparing: boolean): void {
    this.comparing = comparing;
    this.toggle.textContent = comparing ? 'Stop comparing' : 'Compare';
    this.toggle.setAttribute('aria-pressed', String(comparing));
    if (latest !== this.latest) {
      this.latest = latest;
      const [a, b] = [this.selectA.value, this.selectB.value];
      const options = () =>
        Array.from({ length: latest ?? 0 }, (_, i) => h('option', { text: `Version ${i + 1}`, attrs: { value: i + 1 } }));
      this.selectA.replaceChildren(...options());
      this.selectB.replaceChildren(...options());
      if (latest !== null && latest >= 2) {
        // A choice the user made stays; until then the pair follows the last two versions.
        this.selectA.value = this.chosen ? a : String(latest - 1);
        this.selectB.value = this.chosen ? b : String(latest);
      }
    }
    const enough = latest !== null && latest >= 2;
    this.selectA.disabled = !enough || comparing;
    this.selectB.disabled = !enough || comparing;
    this.toggle.setAttribute('aria-disabled', String(!enough));
    this.hint.textContent = enough
      ? comparing
        ? 'Drag the divider in the viewport, or focus it and use the arrow keys. Orbiting moves both sides.'
        : 'Shows version A left of a divider and version B right of it, from the same camera.'
      : 'Two versions are needed to compare: make an edit first.';
  }

  private onToggle(): void {
    this.showError(null);
    if (this.comparing) return this.hooks.stop();
    if (this.latest === null || this.latest < 2) return;
    const result = this.hooks.compare(Number(this.selectA.value), Number(this.selectB.value));
    if (!result.ok) this.showError(result.message);
  }

  private showError(message: string | null): void {
    this.error.hidden = message === null;
    this.error.textContent = message ?? '';
  }
}
