import {
  ACESFilmicToneMapping,
  Box3,
  PerspectiveCamera,
  Raycaster,
  SRGBColorSpace,
  Scene,
  Vector3,
  WebGLRenderer,
  type Object3D,
  type Sphere,
} from 'three';
import type { SceneSpec } from '../api/studio-api.types';
import { AdaptiveQuality, frameDelta, type AdaptiveQualityOptions } from './adaptive-quality';
import type { MovePose } from '../model/camera-move';
import { CameraRig } from './camera-rig';
import { ColliderWalls } from './collider-walls';
import type { DepthOfFieldPass } from './depth-of-field.pass';
import { splatApertureAngle, type FrameFormat } from '../model/lens';
import { SceneEnvironment } from './scene-environment';
import { disposeModel, type LoadedModel } from './scene-loader';
import type { LoadedSplat, SplatRendererHandle } from './splat-layer';

/** The lazily loaded Spark module (viewport/splat-layer.ts, its own chunk). */
export type SplatModule = typeof import('./splat-layer');

/** A version as the viewport draws it: meshes under one root, and a splat world's splat. */
export interface ShownVersion {
  model: LoadedModel;
  splat: { layer: LoadedSplat; module: SplatModule } | null;
}

/** In fly mode over a splat world, the camera stays at least this high above its collider. */
const GROUND_CLEARANCE_M = 0.4;
/** How far up a camera that sank through the ground looks for it. */
const GROUND_SEARCH_M = 50;

/**
 * Called before drawing, every animation frame while the loop runs and every REST_TICK_MS while it
 * rests. Returns true to keep the loop at the display's rate (a device that must be polled is
 * connected, say); a listener that only reads state for a panel returns nothing.
 */
export type FrameListener = (dt: number, now: number) => boolean | void;

/**
 * Frames in a row with nothing drawn and nothing asking for frames before the loop rests: about
 * half a second at 60 fps. An open studio nobody touches then asks for no animation frames
 * (`npm run bench:studio`, idle: 5.9 % of a core in Chromium before, 1.4 % resting); a partner
 * page may keep one open for hours.
 */
const IDLE_FRAMES_BEFORE_REST = 30;
/**
 * While the loop rests, the frame listeners still run this often, so a panel that polls its state
 * stays current and a change nobody announced (see wake) is drawn within this time.
 */
const REST_TICK_MS = 250;
/** Input that wakes a resting loop at once (the camera rig's changes and invalidate() do too). */
const WAKE_EVENTS = ['pointerdown', 'pointermove', 'wheel', 'keydown', 'keyup', 'touchstart', 'focus', 'message', 'gamepadconnected'];

const MAX_PIXEL_RATIO = 2;

/**
 * The viewport lent to an offline render (StudioViewport.beginCapture): it draws only what the
 * render asks for, at the render's size, until `end()` gives the live view back as it was.
 */
export interface ViewportCapture {
  readonly width: number;
  readonly height: number;
  /** The viewport's canvas: what `draw` draws into. */
  readonly canvas: HTMLCanvasElement;
  /**
   * Puts the camera at `pose`, waits until that frame is final (a splat world's sort for this
   * exact view), draws it at the capture's size, and calls `read` in the same task — before the
   * browser can present the canvas and clear its drawing buffer. Resolves to what `read` returned.
   */
  draw<T>(pose: MovePose, read: (canvas: HTMLCanvasElement) => T, signal?: AbortSignal): Promise<T>;
  /** The live view again: size, pixel ratio, pose, lens, navigation and frame as before. Idempotent. */
  end(): void;
}

/** What the fps indicator and the tests read of the adaptive quality. */
export interface QualityState {
  pixelRatio: number;
  maxPixelRatio: number;
  fps: number | null;
  pinned: boolean;
}

/**
 * The 3D view: one WebGL renderer, one scene, one camera driven by a CameraRig, and a frame
 * loop that polls inputs every animation frame but only draws when something changed (or while
 * recording, when the video needs every frame). The frame has the rig's aspect (`rig.frame`),
 * letterboxed inside its container, so the lens maths and recordings do not depend on the
 * iframe's shape. While the camera moves, the pixel ratio adapts to the frame rate
 * (AdaptiveQuality); a take pins it at full quality.
 */
export class StudioViewport {
  readonly canvas: HTMLCanvasElement;
  readonly rig = new CameraRig();
  readonly camera = new PerspectiveCamera(40, this.rig.frame.aspect.ratio, 0.1, 2000);
  readonly quality: AdaptiveQuality;
  readonly scene = new Scene();
  private readonly renderer: WebGLRenderer;
  private environment: SceneEnvironment | null = null;
  private model: LoadedModel | null = null;
  private splat: LoadedSplat | null = null;
  private spark: SplatRendererHandle | null = null;
  private readonly groundRay = new Raycaster();
  private readonly down = new Vector3(0, -1, 0);
  private readonly up = new Vector3(0, 1, 0);
  private groundCheckedRevision = -1;
  /** Spark has finished a sort since the splat was shown: the next frame draws every splat. */
  private splatSorted = false;
  /**
   * A preview the world replaced, still drawn until Spark's sorts include the world, so no frame
   * between the two is empty; then removed and disposed.
   */
  private retiring: { splat: LoadedSplat; sortsLeft: number } | null = null;
  private readonly splatDrawnWaiters: (() => void)[] = [];
  /** A frame with the shown version's splats has been drawn (whenSplatsDrawn). */
  private splatsDrawn = false;
  private dof: DepthOfFieldPass | null = null;
  private dofEnabled = false;
  private focusAid = false;
  private laidOutFrame: FrameFormat | null = null;
  private readonly frameListeners = new Set<FrameListener>();
  private readonly renderListeners = new Set<(now: number) => void>();
  private readonly resizeObserver: ResizeObserver;
  private rafId = 0;
  private lastTick = 0;
  /** Frames in a row that drew nothing, with no listener asking for more (IDLE_FRAMES_BEFORE_REST). */
  private idleFrames = 0;
  private restTimer: ReturnType<typeof setTimeout> | null = null;
  private renderedRevision = -1;
  private needsRender = false;
  private continuousHolds = 0;
  /** An offline render's drawing size while it holds the viewport (beginCapture). */
  private capture: { width: number; height: number } | null = null;
  /** A version that arrived during an offline render, shown when it ends. */
  private deferred: { version: number; spec: SceneSpec; shown: ShownVersion } | null = null;
  private contextLost = false;
  private disposed = false;
  private frames = 0;
  firstFrameAt: number | null = null;
  /** When the first frame with splats on it was finished (Spark sorts in a worker first). */
  firstSplatFrameAt: number | null = null;
  /** When the first frame of a whole world (not its preview) was finished. */
  fullSplatFrameAt: number | null = null;
  loadedVersion: number | null = null;
  onContextChange: (lost: boolean) => void = () => undefined;

  /** Throws when WebGL 2 is unavailable; the caller shows the studio without a 3D view. */
  constructor(
    private readonly frame: HTMLElement,
    qualityOptions: Partial<AdaptiveQualityOptions> = {},
  ) {
    this.canvas = document.createElement('canvas');
    this.canvas.className = 'viewport-canvas';
    this.renderer = new WebGLRenderer({ canvas: this.canvas, antialias: true, powerPreference: 'high-performance' });
    this.renderer.toneMapping = ACESFilmicToneMapping;
    this.renderer.outputColorSpace = SRGBColorSpace;
    this.quality = new AdaptiveQuality({ maxRatio: Math.min(window.devicePixelRatio || 1, MAX_PIXEL_RATIO), ...qualityOptions });
    this.renderer.setPixelRatio(this.quality.ratio);
    frame.append(this.canvas);

    this.canvas.addEventListener('webglcontextlost', this.onContextLost);
    this.canvas.addEventListener('webglcontextrestored', this.onContextRestored);
    this.resizeObserver = new ResizeObserver(() => this.layout());
    this.resizeObserver.observe(frame.parentElement ?? frame);
    this.layout();
    this.rig.onTouch = this.wake;
    for (const type of WAKE_EVENTS) window.addEventListener(type, this.wake, { capture: true, passive: true });
    this.rafId = requestAnimationFrame(this.tick);
  }

  /** Whether the frame loop rests: nothing moved or asked for frames lately (IDLE_FRAMES_BEFORE_REST). */
  get resting(): boolean {
    return this.restTimer !== null;
  }

  get renderedFrames(): number {
    return this.frames;
  }

  get hasScene(): boolean {
    return this.model !== null;
  }

  get sceneBounds(): Sphere | null {
    return this.model?.bounds ?? null;
  }

  /** Splats in the shown world (0 for a mesh scene), how many the last sort drew, and which level is shown. */
  get splatStats(): { count: number; drawn: number; level: LoadedSplat['level'] | null } {
    return {
      count: this.splat?.count ?? 0,
      drawn: this.splat && this.spark ? this.spark.activeSplats : 0,
      level: this.splat?.level ?? null,
    };
  }

  /**
   * Where the shown version stands, for tests: the world-space box of its meshes and collider
   * (as placed) and the splat's world matrix (column-major), to check metres, +Y up, ground at 0.
   */
  get placement(): { meshBox: { min: number[]; max: number[] } | null; splatMatrix: number[] | null } {
    const box = this.model ? new Box3().setFromObject(this.model.root) : null;
    return {
      meshBox: box && !box.isEmpty() ? { min: box.min.toArray(), max: box.max.toArray() } : null,
      splatMatrix: this.splat ? [...this.splat.object.matrixWorld.elements] : null,
    };
  }

  get depthOfFieldActive(): boolean {
    return this.dofEnabled && this.dof !== null;
  }

  get focusAidActive(): boolean {
    return this.focusAid && this.dof !== null;
  }

  get qualityState(): QualityState {
    return {
      pixelRatio: this.renderer.getPixelRatio(),
      maxPixelRatio: this.quality.maxRatio,
      fps: this.quality.fps,
      pinned: this.quality.pinned,
    };
  }

  /** Swaps in a new scene version and draws it at once: the first frame is the one users wait for. */
  showScene(version: number, spec: SceneSpec, shown: ShownVersion): void {
    const { model } = shown;
    const splat = shown.splat?.layer ?? null;
    if (this.disposed) {
      disposeModel(model.root);
      splat?.dispose();
      return;
    }
    if (this.capture) {
      // An offline render draws one version from its first frame to its last: a version that
      // lands meanwhile waits for the render's end (the newest one, if several land).
      if (this.deferred) releaseShown(this.deferred.shown);
      this.deferred = { version, spec, shown };
      return;
    }
    const previous = this.model;
    const previousSplat = this.splat;
    const previousEnvironment = this.environment;
    if (previous) this.scene.remove(previous.root);
    if (previousSplat) this.scene.remove(previousSplat.object);
    this.dropRetiring();
    previousEnvironment?.detach(this.scene);

    this.model = model;
    this.splat = splat;
    if (shown.splat && !this.spark) {
      // One Spark renderer for the viewport's life; it redraws us whenever a sort finishes.
      this.spark = shown.splat.module.createSplatRenderer(this.renderer, () => {
        this.splatSorted = true;
        this.retireWhenSorted();
        this.invalidate();
      });
      this.scene.add(this.spark.object);
    }
    this.environment = new SceneEnvironment(spec, model.bounds.radius);
    this.environment.attach(this.scene);
    this.scene.add(model.root);
    if (splat) this.scene.add(splat.object);
    this.camera.far = Math.max(1000, model.bounds.radius * 8);
    this.camera.near = Math.max(0.05, this.camera.far / 100_000);
    this.rig.moveSpeed = Math.max(2, model.bounds.radius * 0.12);
    const collider = model.root.getObjectByName('studio-collider');
    this.rig.walls = collider ? new ColliderWalls(collider) : null;
    this.loadedVersion = version;
    this.groundCheckedRevision = -1;
    this.splatSorted = false;
    this.splatsDrawn = false;
    // Whoever waited for the replaced version's splats waits no more.
    this.splatDrawnWaiters.splice(0).forEach((resolve) => resolve());
    // The shell may have been attached since the last resize callback: size the frame now so
    // the first frame is drawn at its real size, not the canvas default.
    this.layout();

    if (previous) disposeModel(previous.root);
    previousSplat?.dispose();
    previousEnvironment?.dispose();
    this.renderNow();
  }

  /**
   * The world behind a preview has decoded: it replaces the preview if the preview is still what
   * this viewport shows (true), else nothing changes (false: the caller keeps or frees it).
   */
  replaceSplat(preview: LoadedSplat, world: LoadedSplat): boolean {
    if (this.disposed || this.splat !== preview) return false;
    this.splat = world;
    this.scene.add(world.object);
    this.dropRetiring();
    this.retiring = { splat: preview, sortsLeft: 2 };
    this.invalidate();
    return true;
  }

  /**
   * Resolves once a frame with the shown version's splats on it has been drawn (at once when one
   * has), or when another version replaces it first.
   */
  whenSplatsDrawn(): Promise<void> {
    if (this.splatsDrawn || this.disposed) return Promise.resolve();
    return new Promise((resolve) => this.splatDrawnWaiters.push(resolve));
  }

  /**
   * After a sort: once it covered the world (more splats than the preview alone, or two sorts
   * on, for worlds drawn at a lower level of detail), the preview goes.
   */
  private retireWhenSorted(): void {
    const retiring = this.retiring;
    // Spark also says it is dirty when its splat set changes, before any sort of it lands.
    if (!retiring || !this.spark || this.spark.sorting) return;
    retiring.sortsLeft--;
    if (this.spark.activeSplats > retiring.splat.count || retiring.sortsLeft <= 0) this.dropRetiring();
  }

  private dropRetiring(): void {
    if (!this.retiring) return;
    this.scene.remove(this.retiring.splat.object);
    this.retiring.splat.dispose();
    this.retiring = null;
  }

  /** Called every animation frame before drawing (input polling). Returns an unsubscribe. */
  addFrameListener(listener: FrameListener): () => void {
    this.frameListeners.add(listener);
    return () => this.frameListeners.delete(listener);
  }

  /** Called after every drawn frame (take recording samples the camera here). */
  addRenderListener(listener: (now: number) => void): () => void {
    this.renderListeners.add(listener);
    return () => this.renderListeners.delete(listener);
  }

  /** While held, every animation frame is drawn (canvas capture needs a steady stream). */
  holdContinuousRendering(): () => void {
    this.continuousHolds++;
    this.wake();
    // Every frame of a capture at the same resolution: quality is pinned while a hold lasts.
    const unpin = this.quality.pin();
    this.applyPixelRatio();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.continuousHolds--;
      unpin();
    };
  }

  /** Keeps full quality until released, capture or not (e.g. a still export, a benchmark). */
  pinQuality(): () => void {
    const unpin = this.quality.pin();
    this.applyPixelRatio();
    return unpin;
  }

  invalidate(): void {
    this.needsRender = true;
    this.wake();
  }

  /** Back to a frame every animation frame, from rest: input, a rig change, invalidate(). */
  readonly wake = (): void => {
    if (this.restTimer === null || this.disposed) return;
    clearTimeout(this.restTimer);
    this.restTimer = null;
    this.idleFrames = 0;
    // The first frame integrates input over the time since now, not over the rest.
    this.lastTick = performance.now();
    this.rafId = requestAnimationFrame(this.tick);
  };

  /**
   * The largest frame this GPU can draw: the drawing buffer, the lens pass's target and the
   * viewport must all hold it.
   */
  get maxDrawingSize(): number {
    const gl = this.renderer.getContext();
    const dims = gl.getParameter(gl.MAX_VIEWPORT_DIMS) as Int32Array;
    return Math.min(this.renderer.capabilities.maxTextureSize, gl.getParameter(gl.MAX_RENDERBUFFER_SIZE) as number, dims[0], dims[1]);
  }

  get capturing(): boolean {
    return this.capture !== null;
  }

  /**
   * Lends the viewport to an offline render: inputs and the live frame loop pause, quality is
   * pinned, the drawing buffer takes `width` × `height` (pixel ratio 1), and the rig takes `frame`
   * (the move's sensor and aspect) when given. The canvas keeps its place on the page and shows
   * each rendered frame scaled. `end()` restores everything exactly.
   */
  beginCapture(width: number, height: number, frame?: FrameFormat): ViewportCapture {
    if (this.capture) throw new Error('The viewport is already rendering.');
    if (this.disposed || !this.model) throw new Error('There is no scene to render.');
    // A render draws the world, never the coarse preview standing in for it (while it loads, or
    // for good when it could not be loaded).
    if (this.splat?.level === 'preview') throw new Error('Only the coarse preview of the world is on screen.');
    this.capture = { width, height };
    // A preview the world just replaced is kept only so the live view never shows an empty
    // frame; a render draws the world alone.
    this.dropRetiring();
    const restoreRig = this.rig.snapshot();
    const unpin = this.quality.pin();
    if (frame) this.rig.setFrame(frame.sensor.id, frame.aspect.id);
    this.renderer.setPixelRatio(1);
    this.renderer.setSize(width, height, false);
    // The frame on the page takes the render's aspect; the drawing buffer keeps the render's size.
    this.layout();
    let ended = false;
    return {
      width,
      height,
      canvas: this.canvas,
      draw: (pose, read, signal) => this.drawCaptured(pose, read, signal),
      end: () => {
        if (ended) return;
        ended = true;
        this.capture = null;
        unpin();
        restoreRig();
        if (this.disposed) return;
        this.renderer.setPixelRatio(this.quality.ratio);
        // The first live frame after the render moves held keys by its own frame time, not by
        // the render's length.
        this.lastTick = 0;
        this.layout();
        const deferred = this.deferred;
        this.deferred = null;
        if (deferred) this.showScene(deferred.version, deferred.spec, deferred.shown);
      },
    };
  }

  private async drawCaptured<T>(pose: MovePose, read: (canvas: HTMLCanvasElement) => T, signal?: AbortSignal): Promise<T> {
    for (;;) {
      signal?.throwIfAborted();
      if (this.disposed || this.contextLost || !this.capture) throw new Error('The graphics context was lost during the render.');
      this.rig.setPose(pose);
      const revision = this.rig.revision;
      if (this.splat && this.spark) {
        this.rig.apply(this.camera);
        this.camera.updateMatrixWorld();
        await this.spark.settle(this.scene, this.camera, signal);
      }
      // A pointer drag on the canvas may have turned the rig while Spark sorted: pose it again.
      if (this.rig.revision !== revision) continue;
      if (this.disposed || this.contextLost || !this.capture) throw new Error('The graphics context was lost during the render.');
      this.renderNow();
      return read(this.canvas);
    }
  }

  /** Lazily builds the depth-of-field pass; returns false when the GPU cannot run it. */
  async setDepthOfField(enabled: boolean): Promise<boolean> {
    this.dofEnabled = enabled;
    return this.ensureLensPass(enabled);
  }

  /**
   * The focus aid: focus peaking, edges within the depth of field marked green (the lens pass,
   * with or without blur). Meshes only: splats write no depth, so on a splat world nothing is.
   */
  async setFocusAid(enabled: boolean): Promise<boolean> {
    this.focusAid = enabled;
    return this.ensureLensPass(enabled);
  }

  private async ensureLensPass(enabled: boolean): Promise<boolean> {
    if (enabled && !this.dof) {
      try {
        const { DepthOfFieldPass } = await import('./depth-of-field.pass');
        if (this.disposed) return false;
        // Depth of field and the focus aid may both have asked before the chunk arrived: one pass.
        this.dof ??= new DepthOfFieldPass();
        this.layout();
      } catch {
        this.dof = null;
        this.dofEnabled = false;
        this.focusAid = false;
        return false;
      }
    }
    this.invalidate();
    return true;
  }

  /**
   * Draws the current frame, then hands the context to `read` before the browser may clear the
   * drawing buffer: the test builds' pixel read-back (debug/canvas-stats.ts) goes through here.
   */
  withDrawnFrame<T>(read: (gl: WebGLRenderingContext | WebGL2RenderingContext) => T): T {
    this.renderNow();
    return read(this.renderer.getContext());
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    cancelAnimationFrame(this.rafId);
    if (this.restTimer !== null) clearTimeout(this.restTimer);
    this.restTimer = null;
    for (const type of WAKE_EVENTS) window.removeEventListener(type, this.wake, { capture: true });
    if (this.rig.onTouch === this.wake) this.rig.onTouch = null;
    this.resizeObserver.disconnect();
    this.frameListeners.clear();
    this.renderListeners.clear();
    if (this.model) disposeModel(this.model.root);
    this.rig.walls = null;
    this.splat?.dispose();
    this.dropRetiring();
    if (this.deferred) releaseShown(this.deferred.shown);
    this.deferred = null;
    this.spark?.dispose();
    this.splat = null;
    this.splatDrawnWaiters.splice(0).forEach((resolve) => resolve());
    this.environment?.dispose();
    this.dof?.dispose();
    this.model = null;
    this.renderer.dispose();
    // Give the GPU context back now: the partner page may open many studios over its life.
    this.renderer.forceContextLoss();
    this.canvas.removeEventListener('webglcontextlost', this.onContextLost);
    this.canvas.remove();
  }

  private readonly tick = (now: number): void => {
    if (this.disposed) return;
    // Asked first, so a listener that throws does not stop the loop.
    this.rafId = requestAnimationFrame(this.tick);
    // An offline render draws its own frames; inputs wait until the live view is back.
    if (this.capture) return;
    const dt = frameDelta(now, this.lastTick);
    this.lastTick = now;
    let wanted = false;
    for (const listener of this.frameListeners) if (listener(dt, now) === true) wanted = true;
    if (this.rig.frame !== this.laidOutFrame) this.layout();
    if (this.quality.restoreWhenIdle(now)) this.applyPixelRatio();
    const draw = this.needsDrawing();
    if (draw) this.renderNow(now);
    if (draw || wanted || this.quality.restorePending) this.idleFrames = 0;
    else if (++this.idleFrames >= IDLE_FRAMES_BEFORE_REST) this.rest();
  };

  private needsDrawing(): boolean {
    return this.rig.revision !== this.renderedRevision || this.needsRender || this.continuousHolds > 0;
  }

  private rest(): void {
    cancelAnimationFrame(this.rafId);
    this.restTimer = setTimeout(this.restTick, REST_TICK_MS);
  }

  /** A resting loop's tick: the listeners run (without time passing for inputs); any change wakes it. */
  private readonly restTick = (): void => {
    if (this.disposed || this.restTimer === null) return;
    this.restTimer = setTimeout(this.restTick, REST_TICK_MS);
    const now = performance.now();
    let wanted = false;
    for (const listener of this.frameListeners) if (listener(0, now) === true) wanted = true;
    if (wanted || this.needsDrawing() || this.rig.frame !== this.laidOutFrame || this.capture) this.wake();
  };

  private renderNow(now = performance.now()): void {
    if (this.disposed || this.contextLost || !this.model) return;
    this.keepAboveGround();
    this.rig.apply(this.camera);
    this.camera.updateMatrixWorld();
    this.environment?.follow(this.camera.position, this.camera.far);
    const lens = { focalLengthMm: this.rig.focalLengthMm, fNumber: this.rig.fNumber, focusDistanceM: this.rig.focusDistanceM };
    const dof = this.dofEnabled ? lens : null;
    // The focus aid is for framing, not for the picture: never drawn into a capture.
    const focusAid = this.focusAid && this.continuousHolds === 0 && !this.capture;
    if (this.splat && this.spark) {
      // Splats write no depth, so the post pass cannot blur them: Spark blurs each splat as it
      // draws it, from the same lens settings (a mesh drawn with a splat stays sharp).
      this.spark.setDepthOfField(
        dof ? dof.focusDistanceM : 0,
        dof ? splatApertureAngle(dof.focalLengthMm, dof.fNumber, dof.focusDistanceM) : 0,
      );
      this.renderer.render(this.scene, this.camera);
    } else if ((dof || focusAid) && this.dof) {
      this.dof.render(this.renderer, this.scene, this.camera, { ...lens, blur: dof !== null, focusAid });
    } else {
      this.renderer.render(this.scene, this.camera);
    }
    const moving = this.rig.revision !== this.renderedRevision;
    this.renderedRevision = this.rig.revision;
    this.needsRender = false;
    this.frames++;
    if (this.quality.frameDrawn(now, moving) !== this.renderer.getPixelRatio()) this.applyPixelRatio();
    if (this.firstFrameAt === null) {
      // The first frame counts once the GPU has finished it, not when its draw was issued
      // (with software WebGL the difference is most of the time). Only ever blocks once.
      this.renderer.getContext().finish();
      this.firstFrameAt = performance.now();
    }
    // Before Spark's first sort its ordering is empty and a frame draws no splat at all: the
    // first splat frame is the first drawn after that sort, finished (the expensive one).
    if (!this.splatsDrawn && this.splatSorted && this.splat && this.spark && this.spark.activeSplats > 0) {
      this.splatsDrawn = true;
      if (this.firstSplatFrameAt === null) {
        this.renderer.getContext().finish();
        this.firstSplatFrameAt = performance.now();
      }
      this.splatDrawnWaiters.splice(0).forEach((resolve) => resolve());
    }
    if (this.fullSplatFrameAt === null && this.splatSorted && this.splat?.level === 'full' && !this.retiring && this.spark) {
      if (this.spark.activeSplats > 0) {
        this.renderer.getContext().finish();
        this.fullSplatFrameAt = performance.now();
      }
    }
    for (const listener of this.renderListeners) listener(now);
  }

  /**
   * Fly mode over a splat world: the camera rests on the world's collider instead of sinking
   * into the ground the splats only suggest. Checked once per camera change; a camera already
   * below the ground (a preset, a jump) is lifted back above it.
   */
  private keepAboveGround(): void {
    // Renders put the camera where the move says, as presets and playback do.
    if (this.capture) return;
    if (this.rig.navigation !== 'fly' || this.rig.revision === this.groundCheckedRevision) return;
    this.groundCheckedRevision = this.rig.revision;
    const collider = this.model?.root.getObjectByName('studio-collider');
    if (!collider) return;
    const position = this.rig.position;
    const below = this.groundDistance(collider, position, this.down, GROUND_CLEARANCE_M + this.model!.bounds.radius * 4);
    if (below !== null) {
      if (below < GROUND_CLEARANCE_M) this.lift(GROUND_CLEARANCE_M - below);
      return;
    }
    const above = this.groundDistance(collider, position, this.up, GROUND_SEARCH_M);
    if (above !== null) this.lift(above + GROUND_CLEARANCE_M);
  }

  private groundDistance(collider: Object3D, from: Vector3, direction: Vector3, far: number): number | null {
    this.groundRay.set(from, direction);
    this.groundRay.far = far;
    return this.groundRay.intersectObject(collider, true)[0]?.distance ?? null;
  }

  private lift(metres: number): void {
    this.rig.position.y += metres;
    this.rig.touch();
    this.groundCheckedRevision = this.rig.revision;
  }

  private layout(): void {
    if (this.disposed) return;
    const container = this.frame.parentElement ?? this.frame;
    const availableWidth = Math.max(1, container.clientWidth);
    const availableHeight = Math.max(1, container.clientHeight);
    const aspect = this.rig.frame.aspect.ratio;
    this.laidOutFrame = this.rig.frame;
    const width = Math.max(1, Math.floor(Math.min(availableWidth, availableHeight * aspect)));
    const height = Math.max(1, Math.floor(width / aspect));
    this.frame.style.width = `${width}px`;
    this.frame.style.height = `${height}px`;
    this.frame.dataset.aspect = this.rig.frame.aspect.id;
    this.rig.apply(this.camera);
    this.camera.updateProjectionMatrix();
    if (this.capture) {
      // The render's size holds until it ends, whatever the page around does meanwhile.
      this.dof?.setSize(this.capture.width, this.capture.height);
      return;
    }
    this.renderer.setSize(width, height, false);
    if (this.dof) {
      const pixelRatio = this.renderer.getPixelRatio();
      this.dof.setSize(Math.floor(width * pixelRatio), Math.floor(height * pixelRatio));
    }
    this.invalidate();
  }

  /** Sizes the drawing buffer (and the lens pass) for the quality's current pixel ratio. */
  private applyPixelRatio(): void {
    if (this.disposed || this.capture || this.renderer.getPixelRatio() === this.quality.ratio) return;
    this.renderer.setPixelRatio(this.quality.ratio);
    this.layout();
  }

  private readonly onContextLost = (event: Event): void => {
    event.preventDefault();
    this.contextLost = true;
    this.onContextChange(true);
  };

  private readonly onContextRestored = (): void => {
    this.contextLost = false;
    this.onContextChange(false);
    this.invalidate();
  };
}

/** Frees a version that will never be shown. */
function releaseShown(shown: ShownVersion): void {
  disposeModel(shown.model.root);
  shown.splat?.layer.dispose();
}
