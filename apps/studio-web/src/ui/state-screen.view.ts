import { ICONS, h, icon } from './dom';

export type ScreenKind = 'loading' | 'error' | 'ended';

/**
 * The full-window states around the studio: opening, could not open (with a retry), and ended.
 * The ended screen is final: nothing the page can do brings the session back.
 */
export class StateScreen {
  readonly element = h('div', { className: 'state-screen', attrs: { hidden: true } });
  private readonly card = h('div', { className: 'state-card' });

  constructor() {
    this.element.append(this.card);
  }

  showLoading(): void {
    this.render('loading', [
      h('div', { className: 'spinner', attrs: { 'aria-hidden': 'true' } }),
      h('p', { className: 'state-title', text: 'Opening the studio…', attrs: { role: 'status' } }),
    ]);
  }

  showError(message: string, onRetry: () => void): void {
    const retry = h('button', { className: 'button button-primary', attrs: { type: 'button' }, on: { click: onRetry } }, [
      icon([...ICONS.retry]),
      'Try again',
    ]);
    this.render('error', [
      h('h1', { className: 'state-title', text: 'The studio could not open' }),
      h('p', { className: 'state-text', text: message, attrs: { role: 'alert' } }),
      retry,
    ]);
    retry.focus();
  }

  /** `extra` holds what outlives the session locally (finished recordings). */
  showEnded(message: string, extra: HTMLElement | null = null): void {
    this.render('ended', [
      h('h1', { className: 'state-title', text: 'This session has ended', attrs: { id: 'state-title', tabindex: '-1' } }),
      h('p', { className: 'state-text', text: message }),
      extra,
    ]);
    this.element.setAttribute('role', 'alert');
  }

  hide(): void {
    this.element.hidden = true;
    this.element.removeAttribute('role');
    this.card.replaceChildren();
  }

  private render(kind: ScreenKind, children: (HTMLElement | null)[]): void {
    this.element.hidden = false;
    this.element.dataset.kind = kind;
    this.element.removeAttribute('role');
    this.card.replaceChildren(...children.filter((c): c is HTMLElement => c !== null));
  }
}
