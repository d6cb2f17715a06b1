import { isFramed } from '../ui/dom';
import { endedDownloads } from '../ui/downloads.view';
import type { TakeLinks } from './perform-panel.view';

/** The ended screen's word on the session's takes (ui/downloads.view.ts); null when there were none. */
export function takeDownloads(takes: readonly TakeLinks[], framed = isFramed()): HTMLElement | null {
  return endedDownloads(
    { one: 'recording', many: 'recordings' },
    takes.map(({ take, videoUrl, pathUrl }) => ({
      title: `Take ${take.index}`,
      links: [
        { href: videoUrl, fileName: `take-${take.index}.webm`, text: 'Video' },
        { href: pathUrl, fileName: `take-${take.index}-camera-path.json`, text: 'Camera path' },
      ],
    })),
    framed,
  );
}
