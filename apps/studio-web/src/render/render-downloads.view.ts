import { isFramed } from '../ui/dom';
import { endedDownloads } from '../ui/downloads.view';
import type { FinishedRender } from './render-workflow';

/** The ended screen's word on the session's renders, as for takes (ui/downloads.view.ts); null when there were none. */
export function renderDownloads(renders: readonly FinishedRender[], framed = isFramed()): HTMLElement | null {
  return endedDownloads(
    { one: 'render', many: 'renders' },
    renders.map(({ index, fileName, videoUrl }) => ({
      title: `Render ${index}`,
      links: videoUrl ? [{ href: videoUrl, fileName, text: 'Video' }] : [],
    })),
    framed,
  );
}
