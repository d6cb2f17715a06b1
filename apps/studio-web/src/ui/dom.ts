type Child = Node | string | null | undefined | false;

export interface ElementOptions {
  className?: string;
  text?: string;
  /** Attributes, including `aria-*`, `role`, `id`; `false`/`null` leaves one out. */
  attrs?: Record<string, string | number | boolean | null | undefined>;
  on?: Partial<{ [K in keyof HTMLElementEventMap]: (event: HTMLElementEventMap[K]) => void }>;
}

/**
 * A tiny element builder. Text always goes in through `textContent`: partner strings (name,
 * help text) and server strings (instructions, error messages) are never parsed as HTML.
 */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  options: ElementOptions = {},
  children: Child[] = [],
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (options.className) el.className = options.className;
  if (options.text !== undefined) el.textContent = options.text;
  for (const [name, value] of Object.entries(options.attrs ?? {})) {
    if (value === false || value === null || value === undefined) continue;
    el.setAttribute(name, value === true ? '' : String(value));
  }
  for (const [type, handler] of Object.entries(options.on ?? {})) {
    el.addEventListener(type, handler as EventListener);
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child);
  }
  return el;
}

/** Writes text only when it changed: a write on every frame would also force the next layout. */
export function setText(element: HTMLElement, text: string): void {
  if (element.textContent !== text) element.textContent = text;
}

let idCounter = 0;

/** A document-unique id for label/aria wiring. */
export function uid(prefix: string): string {
  idCounter += 1;
  return `${prefix}-${idCounter}`;
}

/** Decorative SVG icon from a path list (24×24 viewBox); hidden from screen readers. */
export function icon(paths: string[], className = 'icon'): SVGSVGElement {
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('focusable', 'false');
  svg.setAttribute('class', className);
  for (const d of paths) {
    const path = document.createElementNS(ns, 'path');
    path.setAttribute('d', d);
    svg.append(path);
  }
  return svg;
}

export const ICONS = {
  help: ['M12 22a10 10 0 1 1 0-20 10 10 0 0 1 0 20z', 'M9.1 9a3 3 0 0 1 5.8 1c0 2-3 3-3 3', 'M12 17h.01'],
  fullscreen: ['M4 9V4h5', 'M20 9V4h-5', 'M4 15v5h5', 'M20 15v5h-5'],
  exitFullscreen: ['M9 4v5H4', 'M15 4v5h5', 'M9 20v-5H4', 'M15 20v-5h5'],
  close: ['M6 6l12 12', 'M18 6L6 18'],
  record: ['M12 18a6 6 0 1 0 0-12 6 6 0 0 0 0 12z'],
  stop: ['M7 7h10v10H7z'],
  marker: ['M12 21s-6-5.5-6-11a6 6 0 1 1 12 0c0 5.5-6 11-6 11z', 'M12 12.5a2.5 2.5 0 1 0 0-5 2.5 2.5 0 0 0 0 5z'],
  send: ['M4 12l16-8-6 16-2-6-8-2z'],
  download: ['M12 4v11', 'M7 10l5 5 5-5', 'M5 20h14'],
  camera: ['M4 7h3l2-2h6l2 2h3v12H4z', 'M12 16.5a3.5 3.5 0 1 0 0-7 3.5 3.5 0 0 0 0 7z'],
  gamepad: [
    'M6 8h12a4 4 0 0 1 4 4v1a4 4 0 0 1-7 2.6H9A4 4 0 0 1 2 13v-1a4 4 0 0 1 4-4z',
    'M7 11v3',
    'M5.5 12.5h3',
    'M16 12h.01',
    'M18 14h.01',
  ],
  panel: ['M4 5h16v14H4z', 'M15 5v14'],
  retry: ['M20 11a8 8 0 1 0-2.3 5.7', 'M20 4v7h-7'],
} as const;

/** Keys typed into a field are the field's, not the studio's shortcuts. */
export function isTypingTarget(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  const tag = target.tagName;
  return tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT';
}

/**
 * Inside the partner's iframe. Its sandbox (the product's iframe rules) has no allow-downloads:
 * framed, the studio hands files to the parent page instead of offering download links.
 */
export function isFramed(): boolean {
  return window.parent !== window;
}
