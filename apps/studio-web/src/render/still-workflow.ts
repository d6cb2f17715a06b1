import { formatBytes } from '../ui/format';
import { isFramed } from '../ui/dom';
import type { FrameFormat } from '../model/lens';
import type { StudioViewport } from '../viewport/studio-viewport';
import { StillPanel } from './still-panel.view';
import { STILL_MIME_TYPE, STILL_RESOLUTIONS, planStill, stillFits, stillSize, type StillResolutionId } from './still-options';

export interface StillHost {
  viewport: StudioViewport;
  post(type: string, payload: Record<string, unknown>): void;
  announce(text: string): void;
  /** Why a still cannot be taken now (a take records, a render runs), or null. */
  blockedBy(): string | null;
  /** A still is being drawn: takes and renders wait (it holds the viewport for a moment). */
  onCapturingChange(capturing: boolean): void;
}

/** What the debug hook and the tests read of the stills. */
export interface StillState {
  taking: boolean;
  stills: number;
  last: { width: number; height: number; sizeBytes: number; mimeType: string } | null;
}

/** A finished still as the page keeps it: framed it is the parent's, so no URL is held here. */
export interface FinishedStill {
  index: number;
  fileName: string;
  url: string | null;
}

/**
 * Stills of the current view: the camera and lens as they are (depth of field as set), drawn at
 * a size the render section's rule gives, up to 8K where the GPU draws it, as a PNG handed to the
 * parent in `still.completed` (framed, the sandbox cannot download) and offered here when not.
 */
export class StillWorkflow {
  readonly panel: StillPanel;
  private taking = false;
  private ended = false;
  private readonly finished: FinishedStill[] = [];
  private last: StillState['last'] = null;
  private shown: { frame: FrameFormat; max: number } | null = null;
  private readonly unsubscribe: () => void;
  private readonly framed = isFramed();

  constructor(private readonly host: StillHost) {
    this.panel = new StillPanel({ take: (resolution) => void this.take(resolution) });
    // The aspect select changes the sizes offered: described again when the frame changes.
    this.unsubscribe = host.viewport.addFrameListener(() => {
      this.describe();
      this.panel.setBlocked(this.ended ? 'The session has ended.' : this.taking ? null : host.blockedBy());
    });
    this.describe();
  }

  get state(): StillState {
    return { taking: this.taking, stills: this.finished.length, last: this.last };
  }

  get busy(): boolean {
    return this.taking;
  }

  get stills(): readonly FinishedStill[] {
    return this.finished;
  }

  end(): void {
    this.ended = true;
    this.panel.setBlocked('The session has ended.');
    this.unsubscribe();
  }

  revokeDownloads(): void {
    for (const s of this.finished) if (s.url) URL.revokeObjectURL(s.url);
  }

  private describe(): void {
    const viewport = this.host.viewport;
    const frame = viewport.rig.frame;
    if (this.shown?.frame === frame) return;
    const max = viewport.maxDrawingSize;
    this.shown = { frame, max };
    const aspect = frame.aspect.ratio;
    const sizes = Object.fromEntries(
      STILL_RESOLUTIONS.map((r) => [r.id, { ...stillSize(r.id, aspect), fits: stillFits(r.id, aspect, max) }]),
    ) as Record<StillResolutionId, { width: number; height: number; fits: boolean }>;
    this.panel.setSizes(sizes);
  }

  async take(resolution: StillResolutionId): Promise<void> {
    if (this.taking || this.ended) return;
    const viewport = this.host.viewport;
    const blocked = this.host.blockedBy();
    if (blocked) return this.refuse(blocked);
    if (!viewport.hasScene) return this.refuse('There is nothing to take a still of until the scene has loaded.');
    if (viewport.splatStats.level === 'preview') {
      return this.refuse('Only the coarse preview of the world is on screen: a still needs the whole world.');
    }
    const planned = planStill({ resolution, aspect: viewport.rig.frame.aspect.ratio, maxDrawingSize: viewport.maxDrawingSize });
    if (!planned.ok) return this.refuse(planned.message);
    const { width, height } = planned.plan;
    this.taking = true;
    this.panel.setBusy(true);
    this.panel.setMessage(`Taking a ${width} × ${height} still…`);
    this.host.announce(`Taking a ${width} × ${height} still.`);
    this.host.onCapturingChange(true);
    try {
      const pose = viewport.rig.movePose(viewport.camera);
      const frame = viewport.rig.frame;
      const image = await drawStill(viewport, width, height);
      this.finish(image, width, height, { ...pose, sensor: frame.sensor.id, aspect: frame.aspect.id });
    } catch (e) {
      const message = e instanceof Error && e.message ? `The still failed: ${e.message}` : 'The still failed.';
      this.host.post('error', { code: 'still_failed', message });
      this.panel.setMessage(message, 'error');
      this.host.announce(message);
    } finally {
      this.taking = false;
      this.panel.setBusy(false);
      this.host.onCapturingChange(false);
    }
  }

  private finish(image: Blob, width: number, height: number, camera: Record<string, unknown>): void {
    const index = this.finished.length + 1;
    const fileName = `still-${index}.png`;
    const url = this.framed ? null : URL.createObjectURL(image);
    this.finished.unshift({ index, fileName, url });
    this.last = { width, height, sizeBytes: image.size, mimeType: STILL_MIME_TYPE };
    const depthOfField = this.host.viewport.depthOfFieldActive;
    this.panel.addStill({ index, label: `${width} × ${height} · PNG · ${formatBytes(image.size)}`, fileName, url });
    this.host.post('still.completed', {
      mimeType: STILL_MIME_TYPE,
      sizeBytes: image.size,
      width,
      height,
      fileName,
      depthOfField,
      sceneVersion: this.host.viewport.loadedVersion,
      camera,
      image,
    });
    this.panel.setMessage(`Still ${index} taken: ${width} × ${height}.`);
    this.host.announce(`Still ${index} taken${this.framed ? ' and handed to the page' : ', ready to download'}.`);
  }

  private refuse(message: string): void {
    this.panel.setMessage(message, 'error');
    this.host.announce(message);
  }
}

/**
 * Draws the view once at `width` × `height` (the offline render's capture: the whole world,
 * sorted for this exact view, the lens pass as set) and encodes it as PNG. The pixels are copied
 * to a 2D canvas in the same task as the draw, before the browser may clear the drawing buffer.
 */
async function drawStill(viewport: StudioViewport, width: number, height: number): Promise<Blob> {
  const pose = viewport.rig.movePose(viewport.camera);
  const capture = viewport.beginCapture(width, height);
  let copy: HTMLCanvasElement;
  try {
    copy = await capture.draw(pose, (canvas) => {
      const target = document.createElement('canvas');
      target.width = width;
      target.height = height;
      const context = target.getContext('2d');
      if (!context) throw new Error('This browser cannot copy the image.');
      context.drawImage(canvas, 0, 0, width, height);
      return target;
    });
  } finally {
    capture.end();
  }
  const blob = await new Promise<Blob | null>((resolve) => copy.toBlob(resolve, STILL_MIME_TYPE));
  // Release the copy's memory at once (an 8K canvas holds 130 MB) rather than at the next GC.
  copy.width = 0;
  copy.height = 0;
  if (!blob) throw new Error(`The browser could not encode a ${width} × ${height} PNG.`);
  return blob;
}
