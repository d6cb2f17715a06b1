import type { StudioMode } from '../api/studio-api.types';
import { ICONS, h, icon, setText } from '../ui/dom';
import { SceneStatusPill } from '../ui/scene-status.view';

export type StudioTab = 'edit' | 'perform';

export type ViewportOverlay =
  | { kind: 'none' }
  | { kind: 'generating'; text: string }
  | { kind: 'loading'; text: string }
  | { kind: 'failed'; text: string }
  | { kind: 'load-error'; text: string; retry: () => void }
  | { kind: 'unavailable'; text: string };

export interface ShellOptions {
  partnerName: string | null;
  mode: StudioMode;
  capabilities: { edit: boolean; perform: boolean };
  onHelp(button: HTMLElement): void;
}

/**
 * The studio's frame: a header (partner, workflow tabs, scene status, help, full screen), the
 * viewport area, and a side panel holding the workflow(s) the session's mode allows. In
 * `edit_and_perform` the panels are tabs over one shared viewport, so switching never reloads
 * the scene or resets the camera.
 */
export class StudioShell {
  readonly element: HTMLElement;
  readonly pill = new SceneStatusPill();
  readonly viewportArea: HTMLElement;
  readonly viewportFrame = h('div', { className: 'viewport-frame' });
  readonly helpButton: HTMLButtonElement;
  private readonly overlay = h('div', { className: 'viewport-overlay', attrs: { hidden: true } });
  private readonly lensReadout = h('div', { className: 'lens-readout', attrs: { 'aria-hidden': 'true', hidden: true } });
  /** Under the header before the session expires; the live region says it too, so not read twice. */
  private readonly expiryBanner = h('div', {
    className: 'expiry-banner',
    attrs: { id: 'expiry-banner', 'aria-hidden': 'true', hidden: true },
  });
  /** Over the viewport while a splat world's preview stands in for it (the live region says when it arrives). */
  private readonly detailNote = h('div', { className: 'detail-note', attrs: { 'aria-hidden': 'true', hidden: true } });
  private readonly recBadge = h('span', { className: 'rec-badge', attrs: { hidden: true, 'aria-hidden': 'true' } });
  private readonly linkBadge = h('span', { className: 'link-badge', text: 'Reconnecting…', attrs: { hidden: true, role: 'status' } });
  private readonly fullscreenButton: HTMLButtonElement;
  private readonly side = h('aside', { className: 'side-panel', attrs: { id: 'side-panel', 'aria-label': 'Studio controls' } });
  private readonly panelToggle: HTMLButtonElement;
  private readonly tabs = new Map<StudioTab, HTMLButtonElement>();
  private readonly panels = new Map<StudioTab, HTMLElement>();
  private activeTab: StudioTab;

  constructor(private readonly options: ShellOptions) {
    this.activeTab = options.capabilities.edit ? 'edit' : 'perform';
    this.helpButton = h(
      'button',
      {
        className: 'icon-button',
        attrs: { type: 'button', id: 'help-toggle', 'aria-label': 'Help', 'aria-expanded': 'false', 'aria-controls': 'help-panel' },
        on: { click: () => options.onHelp(this.helpButton) },
      },
      [icon([...ICONS.help])],
    );
    this.fullscreenButton = h(
      'button',
      {
        className: 'icon-button',
        attrs: {
          type: 'button',
          id: 'fullscreen-toggle',
          'aria-label': 'Enter full screen',
          'aria-pressed': 'false',
          hidden: !document.fullscreenEnabled,
        },
        on: { click: () => void this.toggleFullscreen() },
      },
      [icon([...ICONS.fullscreen])],
    );
    document.addEventListener('fullscreenchange', () => this.syncFullscreen());
    // In a small frame the viewport needs the room more than the controls do.
    this.panelToggle = h(
      'button',
      {
        className: 'icon-button',
        attrs: {
          type: 'button',
          id: 'panel-toggle',
          'aria-label': 'Controls panel',
          'aria-controls': 'side-panel',
          'aria-expanded': 'true',
        },
        on: { click: () => this.setPanelOpen(this.side.hidden) },
      },
      [icon([...ICONS.panel])],
    );

    const brand = h('div', { className: 'brand' }, [
      h('span', { className: 'brand-mark', attrs: { 'aria-hidden': 'true' } }),
      h('div', { className: 'brand-text' }, [
        options.partnerName ? h('span', { className: 'brand-partner', text: options.partnerName, attrs: { id: 'partner-name' } }) : null,
        h('span', { className: 'brand-product', text: 'Scene Studio' }),
      ]),
    ]);

    const header = h('header', { className: 'studio-header' }, [
      brand,
      options.mode === 'edit_and_perform' ? this.buildTabList() : null,
      h('div', { className: 'header-status' }, [this.pill.element, this.recBadge, this.linkBadge]),
      h('div', { className: 'header-actions' }, [this.panelToggle, this.helpButton, this.fullscreenButton]),
    ]);

    const canvasHint = h('p', { className: 'sr-only', attrs: { id: 'viewport-hint' } });
    canvasHint.textContent = options.capabilities.perform
      ? 'Camera viewport. Drag to orbit or look, use the wheel to dolly, W A S D and arrow keys to move. Open Help for every binding.'
      : 'Orbit view of the scene. Drag to orbit, use the wheel to zoom, arrow keys to orbit and W A S D to move. Choose a version in the history to view it.';
    this.viewportFrame.append(this.lensReadout, this.detailNote);
    this.viewportArea = h('section', { className: 'viewport-area', attrs: { 'aria-label': 'Scene viewport' } }, [
      this.viewportFrame,
      this.overlay,
      canvasHint,
    ]);

    this.element = h('div', { className: 'studio-layout' }, [
      header,
      this.expiryBanner,
      h('main', { className: 'studio-main' }, [this.viewportArea, this.side]),
    ]);
    this.setPanelOpen(true);
  }

  get tab(): StudioTab {
    return this.activeTab;
  }

  setPanels(panels: { edit: HTMLElement | null; perform: HTMLElement | null }): void {
    const both = this.options.mode === 'edit_and_perform';
    for (const name of ['edit', 'perform'] as const) {
      const content = panels[name];
      if (!content) continue;
      const panel = h(
        'section',
        {
          className: 'workflow-panel',
          attrs: both
            ? { id: `panel-${name}`, role: 'tabpanel', 'aria-labelledby': `tab-${name}` }
            : { id: `panel-${name}`, 'aria-label': name === 'edit' ? 'Edit' : 'Perform' },
        },
        [content],
      );
      this.side.append(panel);
      this.panels.set(name, panel);
    }
    this.selectTab(this.activeTab);
  }

  selectTab(name: StudioTab, focus = false): void {
    if (!this.panels.has(name)) return;
    this.activeTab = name;
    for (const [key, panel] of this.panels) panel.hidden = key !== name;
    for (const [key, tab] of this.tabs) {
      const selected = key === name;
      tab.setAttribute('aria-selected', String(selected));
      tab.tabIndex = selected ? 0 : -1;
      if (selected && focus) tab.focus();
    }
    this.element.dataset.tab = name;
  }

  setOverlay(overlay: ViewportOverlay): void {
    this.overlay.hidden = overlay.kind === 'none';
    this.overlay.dataset.kind = overlay.kind;
    if (overlay.kind === 'none') {
      this.overlay.replaceChildren();
      return;
    }
    const busy = overlay.kind === 'generating' || overlay.kind === 'loading';
    this.overlay.replaceChildren(
      h('div', { className: 'overlay-card' }, [
        busy
          ? h('div', { className: 'progress', attrs: { 'aria-hidden': 'true', 'data-mode': 'indeterminate' } }, [
              h('div', { className: 'progress-bar' }),
            ])
          : null,
        h('p', { className: 'overlay-text', text: overlay.text }),
        overlay.kind === 'load-error'
          ? h(
              'button',
              { className: 'button button-primary', attrs: { type: 'button', id: 'scene-retry' }, on: { click: overlay.retry } },
              [icon([...ICONS.retry]), 'Try again'],
            )
          : null,
      ]),
    );
  }

  setExpiryWarning(text: string | null): void {
    this.expiryBanner.hidden = text === null;
    this.expiryBanner.textContent = text ?? '';
  }

  setDetailNote(text: string | null): void {
    this.detailNote.hidden = text === null;
    if (text !== null) setText(this.detailNote, text);
  }

  setLensReadout(text: string | null): void {
    this.lensReadout.hidden = text === null;
    if (text !== null) setText(this.lensReadout, text);
  }

  setRecording(recording: boolean, elapsedMs: number): void {
    this.recBadge.hidden = !recording;
    const s = Math.floor(elapsedMs / 1000);
    this.recBadge.textContent = `REC ${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
  }

  setConnection(connected: boolean): void {
    this.linkBadge.hidden = connected;
  }

  setPanelOpen(open: boolean): void {
    this.side.hidden = !open;
    this.element.dataset.panel = open ? 'open' : 'closed';
    this.panelToggle.setAttribute('aria-expanded', String(open));
  }

  setHelpExpanded(open: boolean): void {
    this.helpButton.setAttribute('aria-expanded', String(open));
  }

  private buildTabList(): HTMLElement {
    const list = h('div', { className: 'tabs', attrs: { role: 'tablist', 'aria-label': 'Workflow' } });
    const names: StudioTab[] = ['edit', 'perform'];
    for (const name of names) {
      const tab = h('button', {
        className: 'tab',
        attrs: { type: 'button', role: 'tab', id: `tab-${name}`, 'aria-controls': `panel-${name}`, 'aria-selected': 'false' },
        text: name === 'edit' ? 'Edit' : 'Perform',
        on: {
          click: () => this.selectTab(name),
          keydown: (event) => {
            // The tabs pattern: arrows move between tabs, Home/End jump to the ends.
            const index = names.indexOf(name);
            let next: number | null = null;
            if (event.key === 'ArrowRight') next = (index + 1) % names.length;
            else if (event.key === 'ArrowLeft') next = (index - 1 + names.length) % names.length;
            else if (event.key === 'Home') next = 0;
            else if (event.key === 'End') next = names.length - 1;
            if (next === null) return;
            event.preventDefault();
            event.stopPropagation();
            this.selectTab(names[next], true);
          },
        },
      });
      this.tabs.set(name, tab);
      list.append(tab);
    }
    return list;
  }

  private async toggleFullscreen(): Promise<void> {
    const root = this.element.parentElement ?? this.element;
    try {
      if (document.fullscreenElement) await document.exitFullscreen();
      else await root.requestFullscreen({ navigationUI: 'hide' });
    } catch {
      // The embedding page did not delegate fullscreen; the button simply does nothing.
    }
  }

  private syncFullscreen(): void {
    const on = document.fullscreenElement !== null;
    this.fullscreenButton.setAttribute('aria-pressed', String(on));
    this.fullscreenButton.setAttribute('aria-label', on ? 'Exit full screen' : 'Enter full screen');
    this.fullscreenButton.replaceChildren(icon([...(on ? ICONS.exitFullscreen : ICONS.fullscreen)]));
  }
}
