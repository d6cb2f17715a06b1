import { movePoseOf, type MovePose } from '../model/camera-move';
import type { FrameFormat } from '../model/lens';
import { cameraPathHeader, type CameraPathDocument } from '../model/camera-path';
import type { CameraPathStore, CameraPathSummary, SavedCameraPath } from '../model/camera-path-store';
import { copyView, type SavedView, type SavedViewStore } from './saved-views';

/** What a view's document records besides the pose: the frame it was framed in, and the scene version. */
export interface ViewContext {
  frame(): FrameFormat;
  sceneVersion(): number | null;
}

/** Documents fetched at once when the list needs views it has not seen. */
const FETCH_CONCURRENCY = 4;

/**
 * Saved views on the server: each is a camera path of `kind: "view"` (docs/camera-paths.md), a
 * document with one keyframe and no duration, so every perform session of the scene — and the
 * next page load — lists the same views. The list has no poses, so each view's document is
 * fetched once and kept while its `updatedAt` stays the same. Listed in the order saved, as the
 * page has always shown them.
 */
export class ServerSavedViewStore implements SavedViewStore {
  private readonly known = new Map<string, { updatedAt: string; view: SavedView }>();

  constructor(
    private readonly paths: CameraPathStore,
    private readonly context: ViewContext,
  ) {}

  async list(): Promise<SavedView[]> {
    const summaries = (await this.paths.list('view')).reverse();
    const views = await mapLimited(summaries, FETCH_CONCURRENCY, (summary) => this.viewOf(summary));
    const listed = new Set(summaries.map((s) => s.cameraPathId));
    for (const id of this.known.keys()) if (!listed.has(id)) this.known.delete(id);
    return views.filter((v): v is SavedView => v !== null).map(copyView);
  }

  async save(name: string, pose: MovePose): Promise<SavedView> {
    const saved = await this.paths.create('view', name, viewDocument(pose, this.context.frame(), this.context.sceneVersion(), new Date()));
    return copyView(this.remember(saved) ?? { id: saved.cameraPathId, name: saved.name, pose });
  }

  async remove(id: string): Promise<void> {
    await this.paths.remove(id);
    this.known.delete(id);
  }

  private async viewOf(summary: CameraPathSummary): Promise<SavedView | null> {
    const known = this.known.get(summary.cameraPathId);
    if (known && known.updatedAt === summary.updatedAt) return known.view;
    // Null when another session deleted it between the list and this read: not a view any more.
    const saved = await this.paths.get(summary.cameraPathId);
    return saved ? this.remember(saved) : null;
  }

  private remember(saved: SavedCameraPath): SavedView | null {
    const pose = poseOfView(saved.document);
    if (!pose) return null;
    const view: SavedView = { id: saved.cameraPathId, name: saved.name, pose };
    this.known.set(saved.cameraPathId, { updatedAt: saved.updatedAt, view });
    return view;
  }
}

/**
 * A view as a camera path document: the pose as its one keyframe at 0 ms, no duration, no video
 * (an authored document's `mimeType` is empty), and the rig's frame: its whole sensor, the gate's
 * longer side as the film gauge and the aspect (as a take records them, camera-path.ts).
 */
export function viewDocument(pose: MovePose, frame: FrameFormat, sceneVersion: number | null, at: Date): CameraPathDocument {
  return {
    ...cameraPathHeader(frame, { sceneVersion, recordedAt: at.toISOString(), durationMs: 0, mimeType: '' }),
    samples: [],
    markers: [],
    // A view does not move: were it ever played, it would stay where it is.
    keyframes: [{ t: 0, ...movePoseOf(pose), easing: 'hold' }],
  };
}

/** The pose of a view's document (its keyframe), or null for a document that holds none. */
export function poseOfView(document: CameraPathDocument): MovePose | null {
  const k = document.keyframes?.[0];
  return k ? movePoseOf(k) : null;
}

/** `work` over `items`, at most `limit` at a time, results in the items' order. */
async function mapLimited<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
