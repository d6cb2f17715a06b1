import type { EditTurn } from '../api/studio-api.types';
import { h } from '../ui/dom';

export interface VersionHistoryHooks {
  view(version: number): void;
  revert(version: number): void;
}

/** Which versions exist and which one is on screen, for marking the history. */
export interface VersionMarks {
  /** The newest version the studio has loaded; null before the first. */
  latest: number | null;
  /** The version held on screen instead of the latest; null while following the latest. */
  viewing: number | null;
  /** A revert or edit is being sent: revert buttons wait. */
  busy: boolean;
}

/**
 * The history as versions you can visit: the generated version 1, then each turn with the
 * version it produced. Selecting an entry shows that version (and marks it "On screen"); every
 * version but the latest can be reverted to, which adds a turn rather than rewriting any.
 */
export class VersionHistoryView {
  /** Version 1, which no turn produced: above the list of turns. */
  readonly origin = h('div', { className: 'version-origin', attrs: { id: 'version-origin', hidden: true } });

  constructor(private readonly hooks: VersionHistoryHooks) {}

  renderOrigin(marks: VersionMarks): void {
    this.origin.hidden = marks.latest === null;
    if (marks.latest === null) return this.origin.replaceChildren();
    this.origin.replaceChildren(...this.entryContent(1, 'Generated from the prompt', 'Version 1', marks));
    this.origin.dataset.viewing = String(isOnScreen(1, marks));
  }

  /** One turn's entry: the instruction and outcome, and, once it made a version, its actions. */
  renderTurn(turn: EditTurn, marks: VersionMarks): HTMLElement {
    const status =
      turn.status === 'processing'
        ? 'Working…'
        : turn.status === 'succeeded'
          ? turn.version !== null
            ? `Done · version ${turn.version}`
            : 'Done'
          : 'Failed';
    const li = h('li', {
      className: 'turn',
      attrs: { 'data-status': turn.status, 'data-operation-id': turn.operationId, 'data-version': turn.version ?? undefined },
    });
    if (turn.revertTo !== null) li.dataset.revertTo = String(turn.revertTo);
    if (turn.status === 'succeeded' && turn.version !== null) {
      li.dataset.viewing = String(isOnScreen(turn.version, marks));
      li.append(...this.entryContent(turn.version, turn.instruction, status, marks, turn.createdAt));
      return li;
    }
    li.append(
      h('p', { className: 'turn-instruction', text: turn.instruction }),
      meta(status, turn.createdAt, null),
      ...(turn.status === 'failed' && turn.error ? [h('p', { className: 'turn-error', text: turn.error.message })] : []),
    );
    return li;
  }

  private entryContent(version: number, title: string, status: string, marks: VersionMarks, createdAt?: string): HTMLElement[] {
    const onScreen = isOnScreen(version, marks);
    const latest = version === marks.latest;
    const badge = onScreen ? (marks.viewing === null ? 'Latest · on screen' : 'On screen') : latest ? 'Latest' : null;
    const view = h(
      'button',
      {
        className: 'turn-view',
        attrs: {
          type: 'button',
          'data-view-version': version,
          'aria-pressed': String(onScreen),
          'aria-label': `View version ${version}: ${title}`,
        },
        on: { click: () => this.hooks.view(version) },
      },
      [h('span', { className: 'turn-instruction', text: title }), meta(status, createdAt ?? null, badge)],
    );
    const revert = latest
      ? null
      : h('button', {
          className: 'button button-small turn-revert',
          text: 'Revert to this',
          attrs: {
            type: 'button',
            'data-revert-version': version,
            'aria-label': `Revert to version ${version}`,
            'aria-disabled': String(marks.busy),
          },
          on: {
            click: () => {
              if (!marks.busy) this.hooks.revert(version);
            },
          },
        });
    return [view, ...(revert ? [revert] : [])];
  }
}

function isOnScreen(version: number, marks: VersionMarks): boolean {
  return (marks.viewing ?? marks.latest) === version;
}

function meta(status: string, createdAt: string | null, badge: string | null): HTMLElement {
  return h('span', { className: 'turn-meta' }, [
    h('span', { className: 'turn-status', text: status }),
    badge ? h('span', { className: 'turn-badge', text: badge }) : null,
    createdAt ? h('time', { className: 'turn-time', text: formatTime(createdAt), attrs: { datetime: createdAt } }) : null,
  ]);
}

function formatTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  return date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
}
