import { ServerCameraPathStore } from '../api/server-camera-path-store';
import type { StudioApiClient } from '../api/studio-api.client';
import type { StudioSession } from '../api/studio-api.types';
import { EditPanel } from '../edit/edit-panel.view';
import { EditSession } from '../edit/edit-session';
import { attachEditViewportControls } from '../edit/edit-viewport.controls';
import { VersionInspector } from '../edit/version-inspector';
import type { TakeLinks } from '../perform/perform-panel.view';
import { PerformWorkflow } from '../perform/perform-workflow';
import { ServerSavedViewStore } from '../perform/server-saved-views';
import { takeDownloads } from '../perform/take-downloads.view';
import { renderDownloads } from '../render/render-downloads.view';
import { h } from '../ui/dom';
import { HelpPanel } from '../ui/help-panel.view';
import { LiveAnnouncer } from '../ui/live-announcer';
import { SizeNotice, type MinimumSize } from '../ui/size-notice.view';
import { expiryWarningText } from '../ui/expiry-warning';
import { applyTheme, normalizeTheme } from '../ui/theme';
import { QUALITY_OVERRIDE_KEY, qualityOverrides } from '../viewport/adaptive-quality';
import { formatLensReadout } from '../model/lens';
import { StudioViewport } from '../viewport/studio-viewport';
import { SessionLifecycle, type StudioContentEvent } from './session-lifecycle';
import { NO_WEBGL, StudioScene } from './studio-scene';
import { StudioShell } from './studio-shell.view';

const MINIMUM_SIZE: Record<'perform' | 'edit', MinimumSize> = {
  perform: { width: 640, height: 360 },
  edit: { width: 960, height: 600 },
};

/**
 * The studio page: the session's lifecycle and the scene's state, composed with the UI the
 * session's mode allows (shell, viewport, perform and edit workflows). Every piece of state the
 * server owns (mode, scene, edits, the session's life) is read from the server; nothing the
 * parent page sends can change it.
 */
export class StudioPage {
  readonly lifecycle: SessionLifecycle;
  readonly scene: StudioScene;
  viewport: StudioViewport | null = null;
  perform: PerformWorkflow | null = null;
  edits: EditSession | null = null;
  /** Viewing and comparing versions (edit modes with a viewport). */
  inspector: VersionInspector | null = null;
  shell: StudioShell | null = null;
  sizeNotice: SizeNotice | null = null;
  private readonly live = new LiveAnnouncer();
  private api: StudioApiClient | null = null;
  private editPanel: EditPanel | null = null;
  private sourceImageUrl: string | null = null;
  private detachEditControls: (() => void) | null = null;

  constructor(
    private readonly root: HTMLElement,
    secret: string | null,
  ) {
    this.lifecycle = new SessionLifecycle(root, secret, this.live, {
      build: (api, session) => this.build(api, session),
      activated: (api, session) => this.activated(api, session),
      onEvent: (event) => this.onEvent(event),
      onStreamOpen: (reconnected) => this.onStreamOpen(reconnected),
      onStreamLost: () => this.shell?.setConnection(false),
      close: () => this.close(),
      unload: () => this.perform?.revokeDownloads(),
      expiring: (secondsLeft) => this.shell?.setExpiryWarning(secondsLeft === null ? null : expiryWarningText(secondsLeft)),
    });
    this.scene = new StudioScene({
      post: (type, payload) => this.lifecycle.bridge.post(type, payload),
      announce: (text) => this.live.announce(text),
    });
  }

  start(): void {
    this.lifecycle.start();
  }

  private build(api: StudioApiClient, session: StudioSession): HTMLElement[] {
    this.api = api;
    this.scene.load(api, session.scene);
    const theme = normalizeTheme(session.theme);
    applyTheme(this.root, theme);
    const caps = capabilities(session);
    this.root.dataset.mode = session.mode;

    const help = new HelpPanel(theme.helpText, caps, (open) => this.shell?.setHelpExpanded(open));
    const shell = new StudioShell({
      partnerName: theme.partnerName,
      mode: session.mode,
      capabilities: caps,
      onHelp: (b) => help.toggle(b),
    });
    this.shell = shell;
    this.sizeNotice = new SizeNotice(caps.edit ? MINIMUM_SIZE.edit : MINIMUM_SIZE.perform);
    const viewport = createViewport(shell, caps.perform);
    this.viewport = viewport;

    if (caps.perform && viewport) {
      const cameraPaths = new ServerCameraPathStore(api);
      this.perform = new PerformWorkflow({
        viewport,
        post: (type, payload) => this.lifecycle.bridge.post(type, payload),
        announce: (text) => this.live.announce(text),
        onRecordingChange: (recording, elapsed) => shell.setRecording(recording, elapsed),
        // Saved views are the scene's, on the server: listed as the workflow starts, shared by its perform sessions.
        cameraPaths,
        savedViews: new ServerSavedViewStore(cameraPaths, {
          frame: () => viewport.rig.frame,
          sceneVersion: () => this.scene.state.loadedVersion,
        }),
      });
      // Guides over the frame (they share its size), the toolbar over the viewport area.
      viewport.canvas.after(this.perform.framing.guides.element);
      shell.viewportArea.append(this.perform.toolbar.element);
      const framing = this.perform.framing;
      viewport.addFrameListener(() => {
        const rig = viewport.rig;
        shell.setLensReadout(
          formatLensReadout(
            rig.focalLengthMm,
            rig.fNumber,
            rig.focusDistanceM,
            viewport.depthOfFieldActive,
            rig.frame,
            framing.distanceUnit,
          ),
        );
      });
    }
    if (caps.edit) {
      this.editPanel = new EditPanel(
        {
          submit: (instruction) => this.edits?.submit(instruction) ?? Promise.resolve({ ok: false, message: 'Editing is not available.' }),
          view: (version) => this.inspector?.view(version),
          revert: (version) => this.revert(version),
          compare: (a, b) => this.inspector?.startCompare(a, b) ?? { ok: false, message: NO_WEBGL },
          stopCompare: () => this.inspector?.stopCompare(),
        },
        session.scene.hasSourceImage,
      );
      this.edits = new EditSession(api, {
        onChange: (turns) => this.editPanel?.renderTurns(turns),
        onSucceeded: (turn) => turn.version !== null && this.scene.request(turn.version),
        post: (type, payload) => this.lifecycle.bridge.post(type, payload),
        announce: (text) => this.live.announce(text),
        streamConnected: () => this.lifecycle.streamConnected,
      });
      if (viewport) {
        this.inspector = new VersionInspector({
          api,
          viewport,
          viewportFrame: shell.viewportFrame,
          viewportArea: shell.viewportArea,
          latestLoaded: () => this.scene.state.loadedVersion,
          announce: (text) => this.live.announce(text),
          onChange: () => this.scene.syncVersions(),
        });
        // With perform, its workflow already drives the shared viewport.
        if (!caps.perform) this.detachEditControls = attachEditViewportControls(viewport);
      }
    }
    const performUnavailable = caps.perform && !this.perform ? h('p', { className: 'empty panel-note', text: NO_WEBGL }) : null;
    shell.setPanels({ edit: this.editPanel?.element ?? null, perform: this.perform?.panel.element ?? performUnavailable });
    this.scene.attach({ shell, viewport, perform: this.perform, editPanel: this.editPanel, edits: this.edits, inspector: this.inspector });
    return [shell.element, this.sizeNotice.element, help.element];
  }

  private activated(api: StudioApiClient, session: StudioSession): void {
    if (!this.viewport) this.lifecycle.bridge.post('error', { code: 'webgl_unavailable', message: NO_WEBGL });
    this.scene.apply(session.scene);
    if (this.edits) void this.edits.load().catch(() => undefined);
    if (capabilities(session).edit && session.scene.hasSourceImage) void this.loadSourceImage(api);
  }

  private onEvent(event: StudioContentEvent): void {
    switch (event.type) {
      case 'scene.status':
        this.scene.apply({
          status: event.status,
          version: event.version,
          error: event.error,
          progress: event.progress,
          stage: event.stage,
        });
        break;
      case 'edit.updated':
        for (const turn of event.turns) this.edits?.merge(turn);
        break;
    }
  }

  private onStreamOpen(reconnected: boolean): void {
    this.shell?.setConnection(true);
    // Anything that happened while we were not listening is only in the server's state.
    if (this.api && (reconnected || this.scene.state.status !== 'ready' || this.edits?.pending)) void this.refresh(this.api);
  }

  private async refresh(api: StudioApiClient): Promise<void> {
    try {
      const session = await api.session();
      if (this.lifecycle.phase === 'active') this.scene.apply(session.scene);
    } catch {
      // A 401 has ended the studio already; anything else waits for the next reconnect.
    }
    if (this.edits?.pending) await this.edits.sync();
  }

  /** A revert's result is the next version: follow the latest again so it shows when it lands. */
  private async revert(version: number): Promise<{ ok: true } | { ok: false; message: string }> {
    const result = (await this.edits?.revert(version)) ?? { ok: false as const, message: 'Editing is not available.' };
    if (result.ok && this.inspector?.state.viewing !== null) this.inspector?.backToLatest();
    return result;
  }

  private async loadSourceImage(api: StudioApiClient): Promise<void> {
    try {
      const blob = await api.sourceImage();
      if (this.lifecycle.phase !== 'active') return;
      this.sourceImageUrl = URL.createObjectURL(blob);
      this.editPanel?.setSourceImage(this.sourceImageUrl);
    } catch {
      if (this.lifecycle.phase === 'active') this.editPanel?.setSourceImage(null);
    }
  }

  /** Stops drawing and gives back the GPU; finished takes stay downloadable on the ended screen. */
  private close(): Promise<HTMLElement | null> {
    this.edits?.stop();
    this.detachEditControls?.();
    this.inspector?.dispose();
    this.scene.dispose();
    // Stopping the recorder first lets the take finish from frames already captured.
    const takes = this.perform ? this.perform.end() : Promise.resolve<readonly TakeLinks[]>([]);
    this.viewport?.dispose();
    this.sizeNotice?.dispose();
    if (this.sourceImageUrl) URL.revokeObjectURL(this.sourceImageUrl);
    return takes.then((list) => {
      const offered = [takeDownloads(list), renderDownloads(this.perform?.render.renders ?? [])];
      const shown = offered.filter((e) => e !== null);
      return shown.length > 0 ? h('div', {}, shown) : null;
    });
  }
}

function capabilities(session: StudioSession): { edit: boolean; perform: boolean } {
  return { edit: session.capabilities?.edit === true, perform: session.capabilities?.perform === true };
}

/** The 3D view, or null without WebGL 2 (the studio still opens, saying so). */
function createViewport(shell: StudioShell, interactive: boolean): StudioViewport | null {
  let viewport: StudioViewport;
  try {
    viewport = new StudioViewport(shell.viewportFrame, qualityOverrides(storedQualityOverride()));
  } catch {
    return null;
  }
  describeCanvas(viewport.canvas, interactive ? 'camera' : 'orbit');
  viewport.onContextChange = (lost) =>
    shell.setOverlay(
      lost ? { kind: 'unavailable', text: 'The graphics context was lost. It will come back by itself in a moment.' } : { kind: 'none' },
    );
  return viewport;
}

function storedQualityOverride(): string | null {
  try {
    return window.localStorage.getItem(QUALITY_OVERRIDE_KEY);
  } catch {
    // Storage can be blocked (third-party storage partitioning, privacy settings): no override.
    return null;
  }
}

/** Perform flies a camera; edit orbits the scene to inspect it. Both take keys and pointer. */
function describeCanvas(canvas: HTMLCanvasElement, kind: 'camera' | 'orbit'): void {
  canvas.tabIndex = 0;
  canvas.setAttribute('role', 'application');
  canvas.setAttribute('aria-roledescription', kind === 'camera' ? 'camera viewport' : 'orbit viewport');
  canvas.setAttribute('aria-label', kind === 'camera' ? 'Camera viewport' : 'Orbit view of the scene');
  canvas.setAttribute('aria-describedby', 'viewport-hint');
}
