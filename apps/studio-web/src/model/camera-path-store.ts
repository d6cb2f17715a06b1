import type { CameraPathDocument, CameraPathKind, CameraPathSummary, SavedCameraPath } from '@scene-studio/camera-path';

export type { CameraPathKind, CameraPathSummary, SavedCameraPath };

/**
 * Where the studio keeps camera paths per scene. The timeline and saved views code against this;
 * the studio API implements it for the page, and `InMemoryCameraPathStore` stands in where there
 * is no server (unit specs).
 */
export interface CameraPathStore {
  list(kind?: CameraPathKind): Promise<CameraPathSummary[]>;
  /** Null when the scene has no such path (never saved, or deleted meanwhile by another session). */
  get(cameraPathId: string): Promise<SavedCameraPath | null>;
  create(kind: CameraPathKind, name: string, document: CameraPathDocument): Promise<SavedCameraPath>;
  update(cameraPathId: string, name: string, document: CameraPathDocument): Promise<SavedCameraPath>;
  remove(cameraPathId: string): Promise<void>;
}

export class InMemoryCameraPathStore implements CameraPathStore {
  private readonly paths = new Map<string, SavedCameraPath>();
  private next = 1;

  list(kind?: CameraPathKind): Promise<CameraPathSummary[]> {
    const all = [...this.paths.values()].filter((p) => kind === undefined || p.kind === kind).reverse();
    return Promise.resolve(all.map(summaryOf));
  }

  get(cameraPathId: string): Promise<SavedCameraPath | null> {
    const found = this.paths.get(cameraPathId);
    return Promise.resolve(found ? structuredClone(found) : null);
  }

  create(kind: CameraPathKind, name: string, document: CameraPathDocument): Promise<SavedCameraPath> {
    const now = new Date().toISOString();
    const saved: SavedCameraPath = {
      cameraPathId: `cam_local_${this.next++}`,
      kind,
      name,
      document: structuredClone(document),
      createdAt: now,
      updatedAt: now,
    };
    this.paths.set(saved.cameraPathId, saved);
    return Promise.resolve(structuredClone(saved));
  }

  update(cameraPathId: string, name: string, document: CameraPathDocument): Promise<SavedCameraPath> {
    const found = this.paths.get(cameraPathId);
    if (!found) return Promise.reject(new Error('not_found'));
    const saved = { ...found, name, document: structuredClone(document), updatedAt: new Date().toISOString() };
    this.paths.set(cameraPathId, saved);
    return Promise.resolve(structuredClone(saved));
  }

  remove(cameraPathId: string): Promise<void> {
    this.paths.delete(cameraPathId);
    return Promise.resolve();
  }
}

export function summaryOf(path: SavedCameraPath): CameraPathSummary {
  const { document, ...rest } = path;
  return {
    ...rest,
    durationMs: document.durationMs,
    keyframeCount: document.keyframes?.length ?? 0,
    sampleCount: document.samples.length,
  };
}
