import { isFramed } from '../ui/dom';
import type { CameraPathDocument, CameraPathSample } from '../model/camera-path';
import type { CameraMove } from '../model/camera-move';
import { frameOfPath, type FrameFormat } from '../model/lens';
import type { StudioViewport } from '../viewport/studio-viewport';
import { loadMedia, type MediaModule } from './media-loader';
import { renderMove, type RenderedVideo } from './offline-render';
import { cameraExportFile, type CameraExportFormatId } from '../model/camera-exports/camera-export-formats';
import { cameraExportInput } from './camera-export';
import { CameraExportView } from './camera-export.view';
import { RenderPanel, type RenderChoice } from './render-panel.view';
import { progressAnnouncement, startAnnouncements } from './render-progress';
import { formatBytes, formatSeconds } from '../ui/format';
import {
  CONTAINERS,
  RENDER_FRAME_RATES,
  RESOLUTIONS,
  outputSize,
  planRender,
  videoBitrate,
  type ContainerId,
  type ContainerPreset,
  type RenderPlan,
  type ResolutionId,
} from './render-options';

/** A move the studio can render, with the camera-path document handed over beside the video. */
export interface RenderSource {
  move: CameraMove;
  cameraPath: CameraPathDocument;
}

/** What the panel says of a source's move, known without building it. */
export interface SourceDescription {
  /** "Take 3 · 4.0 s". */
  label: string;
  /** The frame it was made in; null for the rig's. */
  frame: FrameFormat | null;
}

/**
 * One place a move to render can come from (the timeline, the newest take): the Source select
 * lists them with `describe()`, and `read()` builds the move and its file when a render starts
 * (the timeline's file bakes the whole move into samples).
 */
export interface RenderSourceOption {
  id: string;
  /** The select's text: "Timeline", "Newest take". */
  name: string;
  /** Said when it has no move: "No take yet: record one." */
  empty: string;
  /** Null when it has no move. */
  describe(): SourceDescription | null;
  read(): RenderSource | null;
  /** A number that changes whenever the move does: watched every frame, so keep it cheap. */
  revision(): number;
}

export interface RenderHost {
  viewport: StudioViewport;
  post(type: string, payload: Record<string, unknown>): void;
  announce(text: string): void;
  /** A render started or ended: takes cannot start meanwhile (the render holds the viewport). */
  onRenderingChange(rendering: boolean): void;
}

type RenderCancelReason = 'user' | 'session_ended';

/**
 * A finished render as the page keeps it: its video is the parent's once posted, so framed (no
 * downloads in the sandbox) nothing holds it here; opened on its own, its download link does.
 */
export interface FinishedRender {
  index: number;
  fileName: string;
  videoUrl: string | null;
}

type DrawnPose = Pick<CameraPathSample, 't' | 'position' | 'quaternion' | 'focalLengthMm'> & {
  /** Splats Spark drew in that frame (0 for a mesh scene). */
  splats: number;
};

interface RenderState {
  rendering: boolean;
  framesDone: number;
  frames: number;
  renders: number;
  last: {
    frames: number;
    fps: number;
    width: number;
    height: number;
    mimeType: string;
    sizeBytes: number;
    durationMs: number;
    /** Wall time from the first frame drawn to the file finished. */
    elapsedMs: number;
  } | null;
  /** The camera of every frame of the last render, in order: what a test compares with the move. */
  drawnPoses: DrawnPose[];
}

const DRAWN_POSES_KEPT = 10_000;

/**
 * Offline renders for the perform workflow: offers what the browser can encode for the frame the
 * move was made in, renders on request (one at a time, never during a take), reports progress,
 * and hands the finished video to the parent like a take (`render.completed`). Cancelling, a
 * failure and the session's end leave no partial file and the live view as it was.
 */
export class RenderWorkflow {
  readonly panel: RenderPanel;
  private sources: readonly RenderSourceOption[] = [];
  private shownFrame: FrameFormat | null = null;
  /** What the sources and the rig's frame were when the panel last described them. */
  private seen = { revisions: '', frame: null as FrameFormat | null };
  private readonly encodable = new Map<string, boolean>();
  private probed = false;
  private running: { controller: AbortController; done: Promise<void>; frames: number; framesDone: number } | null = null;
  private recording = false;
  private ended = false;
  private readonly finished: FinishedRender[] = [];
  private last: RenderState['last'] = null;
  private drawnPoses: DrawnPose[] = [];
  private readonly unsubscribe: () => void;
  private readonly framed = isFramed();
  private readonly cameraExport: CameraExportView;
  private cameraExportUrl: string | null = null;

  constructor(private readonly host: RenderHost) {
    this.panel = new RenderPanel({
      start: (choice) => void this.start(choice),
      cancel: () => void this.cancel('user'),
      shown: () => {
        this.probed = true;
        void this.refreshAvailability();
      },
      sourceChosen: () => {
        if (!this.running) this.describeSources();
      },
    });
    this.cameraExport = new CameraExportView({ exportCamera: (format) => this.exportCamera(format) }, this.framed);
    this.panel.elements.push(this.cameraExport.element);
    // A move edited on the timeline, a take, the aspect select: the panel describes what Render
    // would render now (its length, the sizes for its frame).
    this.unsubscribe = host.viewport.addFrameListener(() => {
      if (this.running) return;
      const revisions = this.sources.map((o) => o.revision()).join();
      const frame = host.viewport.rig.frame;
      if (revisions !== this.seen.revisions || frame !== this.seen.frame) this.describeSources();
    });
    this.describeSources();
  }

  get rendering(): boolean {
    return this.running !== null;
  }

  get renders(): readonly FinishedRender[] {
    return this.finished;
  }

  get state(): RenderState {
    return {
      rendering: this.running !== null,
      framesDone: this.running?.framesDone ?? 0,
      frames: this.running?.frames ?? 0,
      renders: this.finished.length,
      last: this.last,
      drawnPoses: this.drawnPoses,
    };
  }

  /** Where moves to render come from, in the Source select's order; the panel describes them at once. */
  setSources(sources: readonly RenderSourceOption[]): void {
    this.sources = sources;
    this.describeSources();
  }

  setRecording(recording: boolean): void {
    this.recording = recording;
    this.panel.setBlocked(recording ? 'A take is recording: stop it to render.' : null);
  }

  cancel(reason: RenderCancelReason): Promise<void> {
    const running = this.running;
    if (!running) return Promise.resolve();
    running.controller.abort(reason);
    return running.done;
  }

  /**
   * The session ended: a running render is cancelled (`render.cancelled`, reason
   * `session_ended`) — it needs the viewport the ended studio gives back, and could take
   * minutes — and nothing starts again.
   */
  async end(): Promise<void> {
    this.ended = true;
    this.panel.setBlocked('The session has ended.');
    await this.cancel('session_ended');
    this.unsubscribe();
  }

  revokeDownloads(): void {
    for (const r of this.finished) if (r.videoUrl) URL.revokeObjectURL(r.videoUrl);
    if (this.cameraExportUrl) URL.revokeObjectURL(this.cameraExportUrl);
  }

  /**
   * Exports the camera of the chosen source's move at the chosen frame rate (docs/embed.md,
   * "Camera files for other tools"), posted as `camera-path.exported` with the file.
   */
  private exportCamera(format: CameraExportFormatId): void {
    this.describeSources();
    const option = this.sources.find((o) => o.id === this.panel.sourceId);
    const source = option ? readSource(option) : null;
    if (!source) {
      this.refuse(option ? option.empty : 'There is no camera move to export.');
      return;
    }
    const { viewport } = this.host;
    const frame = frameOfPath(source.cameraPath) ?? viewport.rig.frame;
    const choice = this.panel.choice;
    const input = cameraExportInput(source.move, {
      fps: choice.fps,
      frame,
      clipping: { near: viewport.camera.near, far: viewport.camera.far },
    });
    const file = cameraExportFile(format, input, {
      baseName: `${option!.id}-camera-${choice.fps}fps`,
      image: outputSize(choice.resolution, frame.aspect.ratio),
    });
    const blob = new Blob([file.bytes], { type: file.mimeType });
    // Like every event, posted only to the session's exact origin; the sandbox cannot download.
    this.host.post('camera-path.exported', {
      fileName: file.fileName,
      format: file.format,
      mimeType: file.mimeType,
      sizeBytes: blob.size,
      frames: input.frames.length,
      fps: input.fps,
      file: blob,
    });
    const words = `${file.fileName}, ${input.frames.length} frames at ${input.fps} fps`;
    if (this.framed) {
      this.panel.setMessage(`Camera exported: ${words}, handed to the page around the studio.`);
      this.host.announce('Camera file handed to the page around the studio.');
      return;
    }
    if (this.cameraExportUrl) URL.revokeObjectURL(this.cameraExportUrl);
    this.cameraExportUrl = URL.createObjectURL(blob);
    this.cameraExport.offerDownload(this.cameraExportUrl, file.fileName);
    this.panel.setMessage(`Camera exported: ${words}.`);
    this.host.announce(`Camera file ready to download: ${file.fileName}.`);
  }

  /** Tells the panel what each source holds, and the sizes for the frame of the one chosen. */
  private describeSources(): void {
    const frame = this.host.viewport.rig.frame;
    this.seen = { revisions: this.sources.map((o) => o.revision()).join(), frame };
    const described = this.sources.map((option) => ({ option, description: option.describe() }));
    this.panel.setSources(
      described.map(({ option, description }) => ({
        id: option.id,
        name: option.name,
        empty: option.empty,
        description: description?.label ?? null,
      })),
    );
    const chosen = described.find((d) => d.option.id === this.panel.sourceId)?.description;
    this.showFrame(chosen?.frame ?? frame);
  }

  private showFrame(frame: FrameFormat): void {
    this.shownFrame = frame;
    const sizes = Object.fromEntries(RESOLUTIONS.map((r) => [r.id, outputSize(r.id, frame.aspect.ratio)])) as Record<
      ResolutionId,
      { width: number; height: number }
    >;
    this.panel.setSizes(sizes);
    if (this.probed) void this.refreshAvailability();
  }

  /** Asks mediabunny which pairs the encoder takes at every frame rate, for the frame shown. */
  private async refreshAvailability(): Promise<void> {
    const frame = this.shownFrame ?? this.host.viewport.rig.frame;
    const queries = RESOLUTIONS.flatMap((r) =>
      CONTAINERS.flatMap((container) =>
        RENDER_FRAME_RATES.map((fps) => {
          const size = outputSize(r.id, frame.aspect.ratio);
          return { container, fps, ...size, bitrate: videoBitrate(size.width, size.height, fps) };
        }),
      ),
    ).filter((q) => !this.encodable.has(encoderKey(q)));
    if (queries.length > 0) {
      let media: MediaModule;
      try {
        media = await loadMedia();
      } catch {
        // Offer everything: Render loads the chunk again and says what failed if it still cannot.
        this.panel.setMessage('The video encoder could not be loaded yet. Check the connection; Render tries again.', 'error');
        this.panel.setAvailability(() => true);
        return;
      }
      const results = await media.canEncode(queries);
      queries.forEach((q, i) => this.encodable.set(encoderKey(q), results[i]));
    }
    if (frame !== this.shownFrame) return;
    const maxSize = this.host.viewport.maxDrawingSize;
    this.panel.setAvailability((resolution, container, fps) => {
      const size = outputSize(resolution, frame.aspect.ratio);
      if (Math.max(size.width, size.height) > maxSize) return false;
      return this.encodable.get(encoderKey({ container: { id: container }, fps, ...size })) === true;
    });
  }

  private async start(choice: RenderChoice): Promise<void> {
    if (this.running || this.ended) return;
    if (this.recording) {
      this.host.announce('A take is recording: stop it to render.');
      return;
    }
    const viewport = this.host.viewport;
    // A still (render/still-workflow.ts) holds the viewport for a moment.
    if (viewport.capturing) {
      this.refuse('A still is being taken: render when it is done.');
      return;
    }
    this.describeSources();
    const option = this.sources.find((o) => o.id === this.panel.sourceId);
    const source = option ? readSource(option) : null;
    if (!source || !viewport.hasScene) {
      this.refuse(option ? option.empty : 'There is nothing to render.');
      return;
    }
    if (viewport.splatStats.level === 'preview') {
      this.refuse('Only the coarse preview of the world is on screen: a render needs the whole world.');
      return;
    }
    const frame = frameOfPath(source.cameraPath) ?? viewport.rig.frame;
    const planned = planRender({
      durationMs: source.move.durationMs,
      fps: choice.fps,
      resolution: choice.resolution,
      container: choice.container,
      aspect: frame.aspect.ratio,
      maxDrawingSize: viewport.maxDrawingSize,
    });
    if (!planned.ok) {
      this.refuse(planned.message);
      return;
    }
    const plan = planned.plan;
    const controller = new AbortController();
    const running = { controller, done: Promise.resolve(), frames: plan.frames, framesDone: 0 };
    this.running = running;
    this.panel.setRunning(true);
    this.panel.setProgress(0, plan.frames);
    this.panel.setMessage('Preparing the encoder…');
    this.host.onRenderingChange(true);
    running.done = this.run(source, plan, frame, controller, running).finally(() => {
      this.running = null;
      this.panel.setRunning(false);
      this.host.onRenderingChange(false);
    });
    await running.done;
  }

  private async run(
    source: RenderSource,
    plan: RenderPlan,
    frame: FrameFormat,
    controller: AbortController,
    running: { framesDone: number },
  ): Promise<void> {
    const { signal } = controller;
    const viewport = this.host.viewport;
    let started = false;
    const startedAt = performance.now();
    try {
      const media = await loadMedia();
      // Known already when the section asked for this size (it asks with the plan's bitrate).
      const query = { container: plan.container, width: plan.width, height: plan.height, fps: plan.fps, bitrate: plan.bitrate };
      const encodable = this.encodable.get(encoderKey(query)) ?? (await media.canEncode([query]))[0];
      signal.throwIfAborted();
      if (!encodable) {
        throw new Error(`This browser cannot encode ${plan.container.label} at ${plan.width} × ${plan.height}, ${plan.fps} fps.`);
      }
      this.host.post('render.started', {
        durationMs: plan.durationMs,
        mimeType: plan.container.mimeType,
        frames: plan.frames,
        fps: plan.fps,
        width: plan.width,
        height: plan.height,
      });
      started = true;
      const words = `${plan.frames} frames at ${plan.width} × ${plan.height}, ${plan.fps} fps, ${plan.container.label}`;
      this.panel.setMessage(`Rendering ${words}.`);
      this.host.announce(`Rendering ${words}.`);
      this.drawnPoses = [];
      const announcements = startAnnouncements(performance.now());
      const result = await renderMove(
        viewport,
        media,
        { move: source.move, plan, frame },
        {
          signal,
          onDrawn: (_index, t) => this.noteDrawn(t),
          onProgress: (done, total) => {
            running.framesDone = done;
            this.panel.setProgress(done, total);
            const words = progressAnnouncement(announcements, done, total, performance.now());
            if (words) this.host.announce(words);
          },
        },
      );
      this.finish(source, result, plan.container, performance.now() - startedAt);
    } catch (e) {
      if (signal.aborted) {
        const reason = signal.reason === 'session_ended' ? 'session_ended' : 'user';
        if (started) this.host.post('render.cancelled', { reason, framesDone: running.framesDone, frames: plan.frames });
        this.panel.setMessage('Render cancelled: nothing was kept.');
        if (reason === 'user') this.host.announce('Render cancelled.');
        return;
      }
      const message = e instanceof Error && e.message ? `The render failed: ${e.message}` : 'The render failed.';
      this.host.post('error', { code: 'render_failed', message });
      this.panel.setMessage(message, 'error');
      this.host.announce(message);
    }
  }

  private finish(source: RenderSource, result: RenderedVideo, container: ContainerPreset, elapsedMs: number): void {
    const index = this.finished.length + 1;
    const fileName = `render-${index}${container.extension}`;
    const entry: FinishedRender = { index, fileName, videoUrl: this.framed ? null : URL.createObjectURL(result.video) };
    this.finished.unshift(entry);
    const facts = {
      durationMs: result.durationMs,
      mimeType: result.mimeType,
      sizeBytes: result.video.size,
      frames: result.frames,
      fps: result.fps,
      width: result.width,
      height: result.height,
    };
    this.last = { ...facts, elapsedMs: Math.round(elapsedMs) };
    const label = `${result.width} × ${result.height} · ${result.fps} fps · ${formatSeconds(result.durationMs, 1)} · ${formatBytes(result.video.size)}`;
    // The sandbox has no allow-downloads: framed, the parent gets the file and offers it; the
    // panel shows no link that would do nothing.
    this.panel.addRender({ index, label, fileName, videoUrl: entry.videoUrl });
    this.host.post('render.completed', { ...facts, video: result.video, cameraPath: source.cameraPath });
    const rate = result.frames / Math.max(0.001, elapsedMs / 1000);
    this.panel.setMessage(
      `Render ${index} finished: ${result.frames} frames in ${formatSeconds(elapsedMs, 1)} (${rate.toFixed(1)} frames/s).`,
    );
    this.host.announce(`Render ${index} finished${this.framed ? ' and handed to the page' : ', ready to download'}.`);
  }

  private noteDrawn(t: number): void {
    if (this.drawnPoses.length >= DRAWN_POSES_KEPT) return;
    const { camera, rig } = this.host.viewport;
    this.drawnPoses.push({
      t,
      position: camera.position.toArray(),
      quaternion: camera.quaternion.toArray(),
      focalLengthMm: rig.focalLengthMm,
      splats: this.host.viewport.splatStats.drawn,
    });
  }

  private refuse(message: string): void {
    this.panel.setMessage(message, 'error');
    this.host.announce(message);
  }
}

function readSource(option: RenderSourceOption): RenderSource | null {
  try {
    return option.read();
  } catch {
    // A move that cannot be built (a path without samples) is no move.
    return null;
  }
}

function encoderKey(q: { container: { id: ContainerId }; width: number; height: number; fps: number }): string {
  return `${q.container.id}:${q.width}x${q.height}@${q.fps}`;
}
