import { EventStreamClient } from '../api/event-stream.client';
import { StudioApiClient, StudioApiError } from '../api/studio-api.client';
import type { CameraPreset, EndedReason, SceneState, StudioSession } from '../api/studio-api.types';
import { EditPanel } from '../edit/edit-panel.view';
import { EditSession } from '../edit/edit-session';
import { ParentBridge } from '../parent/parent.bridge';
import { PerformController } from '../perform/perform.controller';
import type { TakeLinks } from '../perform/perform-panel.view';
import { h } from '../ui/dom';
import { HelpPanel } from '../ui/help-panel.view';
import { LiveAnnouncer } from '../ui/live-announcer';
import type { SceneDisplayState } from '../ui/scene-status.view';
import { SizeNotice, type MinimumSize } from '../ui/size-notice.view';
import { StateScreen } from '../ui/state-screen.view';
import { applyTheme, normalizeTheme } from '../ui/theme';
import { FRAME_ASPECT, fieldOfView, formatDistance, formatFNumber } from '../viewport/lens';
import { StudioViewport } from '../viewport/studio-viewport';
import { parseServerEvent, type StudioServerEvent } from './scene-events';
import { SceneVersionLoader } from './scene-version.loader';
import { StudioShell } from './studio-shell.view';

export type StudioPhase = 'loading' | 'error' | 'active' | 'ended';

const MINIMUM_SIZE: Record<'perform' | 'edit', MinimumSize> = {
  perform: { width: 640, height: 360 },
  edit: { width: 960, height: 600 },
};

const NO_WEBGL = 'This browser cannot show the 3D view: it needs WebGL 2.';

const ENDED_MESSAGES: Record<EndedReason | 'no_secret', string> = {
  expired: 'Its time ran out. Open the studio again from the page you came from to continue.',
  revoked: 'It was closed by the page that opened it, or its scene was removed.',
  no_secret: 'This studio link is incomplete or was already used. Open the studio again from the page you came from.',
};

/**
 * The studio page: loads the session, builds the UI the session's mode allows, keeps the
 * scene current from the event stream, and reports to the parent page. Every piece of state
 * the server owns (mode, scene, edits, the session's life) is read from the server; nothing
 * the parent page sends can change it.
 */
export class StudioApp {
  phase: StudioPhase = 'loading';
  session: StudioSession | null = null;
  endedReason: EndedReason | null = null;
  readonly bridge = new ParentBridge();
  readonly scene: SceneDisplayState = {
    status: 'generating',
    version: null,
    loadedVersion: null,
    loadingVersion: null,
    loadError: null,
    error: null,
    progress: null,
  };
  viewport: StudioViewport | null = null;
  perform: PerformController | null = null;
  edits: EditSession | null = null;
  shell: StudioShell | null = null;
  sizeNotice: SizeNotice | null = null;
  private readonly api: StudioApiClient | null;
  private readonly screen = new StateScreen();
  private readonly live = new LiveAnnouncer();
  private stream: EventStreamClient | null = null;
  private loader: SceneVersionLoader | null = null;
  private editPanel: EditPanel | null = null;
  private presets: readonly CameraPreset[] = [];
  private lastPostedScene: string | null = null;
  private expiryTimer: number | undefined;
  private sourceImageUrl: string | null = null;

  constructor(
    private readonly root: HTMLElement,
    secret: string | null,
  ) {
    this.api = secret ? new StudioApiClient(secret, (reason) => this.end(reason)) : null;
    root.replaceChildren(this.screen.element, this.live.element);
    window.addEventListener('pagehide', () => this.teardownOnUnload());
  }

  get streamConnected(): boolean {
    return this.stream?.connected ?? false;
  }

  start(): void {
    if (!this.api) {
      this.endWithMessage(ENDED_MESSAGES.no_secret);
      return;
    }
    void this.loadSession(this.api);
  }

  private async loadSession(api: StudioApiClient): Promise<void> {
    this.setPhase('loading');
    this.screen.showLoading();
    try {
      const session = await api.session();
      if (this.phase === 'ended') return;
      this.activate(api, session);
    } catch (e) {
      if (this.phase === 'ended' || (e instanceof StudioApiError && e.isSessionEnded)) return;
      this.setPhase('error');
      const message =
        e instanceof StudioApiError && e.isNetwork
          ? 'The studio server could not be reached. Check the connection and try again.'
          : 'Something went wrong while opening the studio. Try again in a moment.';
      this.screen.showError(message, () => void this.loadSession(api));
    }
  }

  private activate(api: StudioApiClient, session: StudioSession): void {
    this.session = session;
    // The scene download starts first: building the UI and the WebGL context overlaps with it.
    this.loader = new SceneVersionLoader(api, {
      onLoaded: (version, spec, model) => {
        const first = this.scene.loadedVersion === null;
        this.presets = spec.cameras;
        if (first && this.viewport) {
          if (spec.cameras[0]) this.viewport.rig.setFromPreset(spec.cameras[0]);
          else this.viewport.rig.setFromPreset(fallbackPreset(model.bounds.center.toArray(), model.bounds.radius));
        }
        this.viewport?.showScene(version, spec, model);
        this.perform?.setPresets(this.presets);
        this.scene.loadedVersion = version;
        this.live.announce(`Scene version ${version} is on screen.`);
      },
      onProgress: (loadingVersion, error) => {
        this.scene.loadingVersion = loadingVersion;
        this.scene.loadError = error;
        if (error) this.bridge.post('error', { code: 'scene_unavailable', message: error });
        this.renderScene();
      },
    });

    if (session.scene.status === 'ready' && typeof session.scene.version === 'number') this.loader.request(session.scene.version);

    this.bridge.connect(session.origin);
    const theme = normalizeTheme(session.theme);
    applyTheme(this.root, theme);
    const caps = { edit: session.capabilities?.edit === true, perform: session.capabilities?.perform === true };
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

    try {
      this.viewport = new StudioViewport(shell.viewportFrame);
      this.configureCanvas(this.viewport.canvas, caps.perform);
      this.viewport.onContextChange = (lost) =>
        shell.setOverlay(
          lost
            ? { kind: 'unavailable', text: 'The graphics context was lost. It will come back by itself in a moment.' }
            : { kind: 'none' },
        );
    } catch {
      this.viewport = null;
    }

    if (caps.perform && this.viewport) {
      this.perform = new PerformController({
        viewport: this.viewport,
        post: (type, payload) => this.bridge.post(type, payload),
        announce: (text) => this.live.announce(text),
        onRecordingChange: (recording, elapsed) => shell.setRecording(recording, elapsed),
      });
      this.viewport.addFrameListener(() => this.updateLensReadout());
    }
    if (caps.edit) {
      this.editPanel = new EditPanel(
        {
          submit: (instruction) => this.edits?.submit(instruction) ?? Promise.resolve({ ok: false, message: 'Editing is not available.' }),
        },
        session.scene.hasSourceImage,
      );
      this.edits = new EditSession(api, {
        onChange: (turns) => this.editPanel?.renderTurns(turns),
        onSucceeded: (turn) => turn.version !== null && this.loader?.request(turn.version),
        post: (type, payload) => this.bridge.post(type, payload),
        announce: (text) => this.live.announce(text),
        streamConnected: () => this.streamConnected,
      });
    }
    const performUnavailable = caps.perform && !this.perform ? h('p', { className: 'empty panel-note', text: NO_WEBGL }) : null;
    shell.setPanels({ edit: this.editPanel?.element ?? null, perform: this.perform?.panel.element ?? performUnavailable });

    this.screen.hide();
    this.root.replaceChildren(shell.element, this.sizeNotice.element, help.element, this.live.element, this.screen.element);
    this.setPhase('active');

    this.bridge.post('ready', {
      embedSessionId: session.embedSessionId,
      mode: session.mode,
      scene: { status: session.scene.status, version: session.scene.version },
    });
    if (!this.viewport) this.bridge.post('error', { code: 'webgl_unavailable', message: NO_WEBGL });
    this.applySceneState(session.scene);

    this.stream = new EventStreamClient(api, {
      onEvent: (event) => {
        const parsed = parseServerEvent(event);
        if (parsed) this.onServerEvent(parsed);
      },
      onOpen: (reconnected) => {
        shell.setConnection(true);
        // Anything that happened while we were not listening is only in the server's state.
        if (reconnected || this.scene.status !== 'ready' || this.edits?.pending) void this.refresh(api);
      },
      onDisconnect: () => {
        if (this.phase === 'active') shell.setConnection(false);
      },
    });
    this.stream.start();

    if (this.edits) void this.edits.load().catch(() => undefined);
    if (caps.edit && session.scene.hasSourceImage) void this.loadSourceImage(api);
    this.scheduleExpiryCheck(api, session.expiresAt);
  }

  private onServerEvent(event: StudioServerEvent): void {
    if (this.phase !== 'active') return;
    switch (event.type) {
      case 'scene.status':
        this.applySceneState({ status: event.status, version: event.version, error: event.error, progress: event.progress });
        break;
      case 'edit.updated':
        for (const turn of event.turns) this.edits?.merge(turn);
        break;
      case 'session.ended':
        this.end(event.reason);
        break;
    }
  }

  private applySceneState(state: Pick<SceneState, 'status' | 'version'> & Partial<SceneState>): void {
    this.scene.status = state.status;
    // While the first version generates, the server may already name it; it is not loadable yet.
    this.scene.version = state.version ?? this.scene.version;
    this.scene.error = state.status === 'failed' ? (state.error ?? null) : null;
    this.scene.progress = state.status === 'generating' ? (state.progress ?? null) : null;
    const key = `${state.status}:${state.version ?? ''}`;
    if (key !== this.lastPostedScene) {
      this.lastPostedScene = key;
      this.bridge.post('scene.status', { status: state.status, version: state.version ?? null });
      if (state.status === 'generating') this.live.announce('The scene is being generated.');
      if (state.status === 'failed') this.live.announce(`The scene could not be generated. ${this.scene.error?.message ?? ''}`.trim());
    }
    if (state.status === 'ready' && typeof state.version === 'number') {
      // A new version while edits are pending is most likely one of them finishing.
      if (this.edits?.pending && state.version > (this.scene.loadedVersion ?? 0)) void this.edits.sync();
      this.loader?.request(state.version);
    }
    this.renderScene();
  }

  private renderScene(): void {
    const shell = this.shell;
    if (!shell) return;
    shell.pill.update(this.scene);
    this.editPanel?.sceneCard.update(this.scene);
    this.editPanel?.setSceneReady(this.scene.status === 'ready');
    if (!this.viewport) {
      shell.setOverlay({ kind: 'unavailable', text: NO_WEBGL });
    } else if (this.scene.status === 'failed') {
      shell.setOverlay({ kind: 'failed', text: this.scene.error?.message ?? 'The scene could not be generated.' });
    } else if (this.scene.status === 'generating' && this.scene.loadedVersion === null) {
      const pct = this.scene.progress !== null ? ` ${Math.round(this.scene.progress * 100)}%` : '';
      shell.setOverlay({ kind: 'generating', text: `Generating your scene…${pct}` });
    } else if (this.scene.loadError && this.scene.loadedVersion === null) {
      shell.setOverlay({ kind: 'load-error', text: this.scene.loadError, retry: () => this.loader?.retry() });
    } else if (this.scene.loadedVersion === null) {
      shell.setOverlay({ kind: 'loading', text: 'Loading the scene…' });
    } else {
      shell.setOverlay({ kind: 'none' });
    }
  }

  private async refresh(api: StudioApiClient): Promise<void> {
    try {
      const session = await api.session();
      if (this.phase === 'active') this.applySceneState(session.scene);
    } catch {
      // A 401 has ended the studio already; anything else waits for the next reconnect.
    }
    if (this.edits?.pending) await this.edits.sync();
  }

  /** Ends the studio for good: stop drawing, give back the GPU, tell the parent, say so. */
  end(reason: EndedReason): void {
    if (this.phase === 'ended') return;
    this.endedReason = reason;
    this.bridge.post('session.ended', { reason });
    this.bridge.disconnect();
    this.endWithMessage(ENDED_MESSAGES[reason]);
  }

  private endWithMessage(message: string): void {
    this.setPhase('ended');
    window.clearTimeout(this.expiryTimer);
    this.stream?.stop();
    this.edits?.stop();
    this.loader?.dispose();
    // Stopping the recorder first lets the take finish from frames already captured.
    const takes = this.perform ? this.perform.end() : Promise.resolve<readonly TakeLinks[]>([]);
    this.viewport?.dispose();
    this.sizeNotice?.dispose();
    if (this.sourceImageUrl) URL.revokeObjectURL(this.sourceImageUrl);
    this.root.replaceChildren(this.screen.element, this.live.element);
    this.screen.showEnded(message);
    this.live.announce('This session has ended.');
    void takes.then((list) => {
      if (list.length > 0) this.screen.showEnded(message, endedDownloads(list));
    });
  }

  private async loadSourceImage(api: StudioApiClient): Promise<void> {
    try {
      const blob = await api.sourceImage();
      if (this.phase !== 'active') return;
      this.sourceImageUrl = URL.createObjectURL(blob);
      this.editPanel?.setSourceImage(this.sourceImageUrl);
    } catch {
      if (this.phase === 'active') this.editPanel?.setSourceImage(null);
    }
  }

  /** The stream reports expiry within seconds; this covers a stream that is down at that moment. */
  private scheduleExpiryCheck(api: StudioApiClient, expiresAt: string): void {
    const at = Date.parse(expiresAt);
    if (!Number.isFinite(at)) return;
    const delay = Math.min(Math.max(0, at - Date.now()) + 1500, 2 ** 31 - 1);
    this.expiryTimer = window.setTimeout(() => void api.session().catch(() => undefined), delay);
  }

  private configureCanvas(canvas: HTMLCanvasElement, interactive: boolean): void {
    if (interactive) {
      canvas.tabIndex = 0;
      canvas.setAttribute('role', 'application');
      canvas.setAttribute('aria-roledescription', 'camera viewport');
      canvas.setAttribute('aria-label', 'Camera viewport');
    } else {
      canvas.setAttribute('role', 'img');
      canvas.setAttribute('aria-label', 'Scene preview');
    }
    canvas.setAttribute('aria-describedby', 'viewport-hint');
  }

  private updateLensReadout(): void {
    const viewport = this.viewport;
    if (!viewport || !this.shell) return;
    const rig = viewport.rig;
    const fov = fieldOfView(rig.focalLengthMm, FRAME_ASPECT);
    const dof = viewport.depthOfFieldActive ? ` · ${formatFNumber(rig.fNumber)} · ${formatDistance(rig.focusDistanceM)}` : '';
    this.shell.setLensReadout(
      `${Math.round(rig.focalLengthMm)} mm · ${fov.horizontalDeg.toFixed(1)}°×${fov.verticalDeg.toFixed(1)}°${dof}`,
    );
  }

  private setPhase(phase: StudioPhase): void {
    this.phase = phase;
    this.root.dataset.phase = phase;
  }

  private teardownOnUnload(): void {
    this.stream?.stop();
    this.perform?.revokeDownloads();
  }
}

function endedDownloads(takes: readonly TakeLinks[]): HTMLElement {
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

/** A spec without cameras still gets a sensible view: back and above, looking at the middle. */
function fallbackPreset(center: number[], radius: number): CameraPreset {
  const [x, y, z] = center;
  return { id: 'fallback', name: 'Overview', position: [x, y + radius * 0.5, z + radius * 1.6], target: [x, y, z], focalLengthMm: 24 };
}
