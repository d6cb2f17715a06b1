import { h, isFramed } from '../ui/dom';
import type { TakeLinks } from './perform-panel.view';

/**
 * The ended screen's word on the session's takes. Framed, the studio has no way to download (the
 * partner's sandbox has no allow-downloads, so links would do nothing): it says where the takes
 * went — to the page around it, in `recording.completed`. Opened on its own, it lists them as
 * downloads, which outlive the session on this page.
 */
export function takeDownloads(takes: readonly TakeLinks[], framed = isFramed()): HTMLElement {
  if (framed) {
    const n = takes.length;
    return h('div', { className: 'ended-downloads' }, [
      h('p', {
        className: 'state-text',
        text: `${n === 1 ? 'Your recording was' : `Your ${n} recordings were`} handed to the page around this studio, which offers ${n === 1 ? 'it' : 'them'} for download.`,
      }),
    ]);
  }
  return h('div', { className: 'ended-downloads' }, [
    h('p', { className: 'state-text', text: 'Your recordings stay available here until you close this page:' }),
    h(
      'ul',
      { className: 'take-list', attrs: { 'aria-label': 'Recordings' } },
      takes.map(({ take, videoUrl, pathUrl }) =>
        h('li', { className: 'take' }, [
          h('strong', { text: `Take ${take.index}` }),
          h('a', { className: 'button button-small', attrs: { href: videoUrl, download: `take-${take.index}.webm` }, text: 'Video' }),
          h('a', {
            className: 'button button-small',
            attrs: { href: pathUrl, download: `take-${take.index}-camera-path.json` },
            text: 'Camera path',
          }),
        ]),
      ),
    ),
  ]);
}
