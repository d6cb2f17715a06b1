import { ICONS, h, icon } from './dom';

/** A file the page offers: a link's target, the name it saves as, and its text. */
export interface DownloadLink {
  href: string;
  fileName: string;
  /** The visible text: "Video", "Camera path". */
  text: string;
  /** The accessible name, where the list around it does not say enough: "Download take 2 video (WebM)". */
  label?: string;
}

/**
 * One entry of a panel's list of things made (takes, renders): its title and facts, then its
 * download links — or, where the page may not offer downloads (`links` null), `hint` if any.
 */
export function madeItem(
  data: Record<string, number>,
  title: string,
  meta: string,
  links: readonly DownloadLink[] | null,
  hint: string | null = null,
): HTMLLIElement {
  return h('li', { className: 'take', attrs: data }, [
    h('p', { className: 'take-title' }, [h('strong', { text: title }), h('span', { className: 'take-meta', text: ` · ${meta}` })]),
    links
      ? h(
          'div',
          { className: 'take-links' },
          links.map((link) =>
            h('a', { className: 'button button-small', attrs: { href: link.href, download: link.fileName, 'aria-label': link.label } }, [
              icon([...ICONS.download]),
              link.text,
            ]),
          ),
        )
      : hint
        ? h('p', { className: 'hint', text: hint })
        : null,
  ]);
}

/**
 * The ended screen's word on what the session made (`what`: "recording", "recordings"). Framed,
 * the partner's sandbox has no allow-downloads, so links would do nothing: it says the files went
 * to the page around it (in `recording.completed`, `render.completed`). Opened on its own, it
 * lists them as downloads, which outlive the session on this page. Null when nothing was made.
 */
export function endedDownloads(
  what: { one: string; many: string },
  items: readonly { title: string; links: readonly DownloadLink[] }[],
  framed: boolean,
): HTMLElement | null {
  const n = items.length;
  if (n === 0) return null;
  if (framed) {
    return h('div', { className: 'ended-downloads' }, [
      h('p', {
        className: 'state-text',
        text: `${n === 1 ? `Your ${what.one} was` : `Your ${n} ${what.many} were`} handed to the page around this studio, which offers ${n === 1 ? 'it' : 'them'} for download.`,
      }),
    ]);
  }
  return h('div', { className: 'ended-downloads' }, [
    h('p', { className: 'state-text', text: `Your ${what.many} stay available here until you close this page:` }),
    h(
      'ul',
      { className: 'take-list', attrs: { 'aria-label': what.many[0].toUpperCase() + what.many.slice(1) } },
      items.map(({ title, links }) =>
        h('li', { className: 'take' }, [
          h('strong', { text: title }),
          ...links.map((link) =>
            h('a', { className: 'button button-small', attrs: { href: link.href, download: link.fileName }, text: link.text }),
          ),
        ]),
      ),
    ),
  ]);
}
