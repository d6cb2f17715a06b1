import { h, isFramed } from '../ui/dom';
import type { FinishedRender } from './render-workflow';

/**
 * The ended screen's word on the session's renders, as for takes (perform/take-downloads.view.ts):
 * framed, the sandbox refuses downloads, so it says the renders went to the page around it (in
 * `render.completed`); opened on its own, it lists them as downloads. Null when there were none.
 */
export function renderDownloads(renders: readonly FinishedRender[], framed = isFramed()): HTMLElement | null {
  const n = renders.length;
  if (n === 0) return null;
  if (framed) {
    return h('div', { className: 'ended-downloads' }, [
      h('p', {
        className: 'state-text',
        text: `${n === 1 ? 'Your render was' : `Your ${n} renders were`} handed to the page around this studio, which offers ${n === 1 ? 'it' : 'them'} for download.`,
      }),
    ]);
  }
  return h('div', { className: 'ended-downloads' }, [
    h('p', { className: 'state-text', text: 'Your renders stay available here until you close this page:' }),
    h(
      'ul',
      { className: 'take-list', attrs: { 'aria-label': 'Renders' } },
      renders.map(({ index, fileName, videoUrl }) =>
        h('li', { className: 'take' }, [
          h('strong', { text: `Render ${index}` }),
          videoUrl ? h('a', { className: 'button button-small', attrs: { href: videoUrl, download: fileName }, text: 'Video' }) : null,
        ]),
      ),
    ),
  ]);
}
