import { h } from '../ui/dom';
import type { TakeLinks } from './perform-panel.view';

/** The ended screen's list of finished takes: recordings outlive the session on this page. */
export function takeDownloads(takes: readonly TakeLinks[]): HTMLElement {
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
