import type { CameraPathDocument, CameraPathKind } from './camera-path.schema';

/**
 * A saved camera path as the studio API's list answers it (docs/camera-paths.md, "Saved camera
 * paths"): no document, its size instead. One declaration for the server's answers
 * (libs/camera-paths) and the page's store (apps/studio-web/src/model/camera-path-store.ts).
 */
export interface CameraPathSummary {
  cameraPathId: string;
  kind: CameraPathKind;
  name: string;
  durationMs: number;
  keyframeCount: number;
  sampleCount: number;
  createdAt: string;
  updatedAt: string;
}

/** A saved path with its document: the values sent (PostgreSQL's jsonb keeps values, not key order or number spelling). */
export interface SavedCameraPath {
  cameraPathId: string;
  kind: CameraPathKind;
  name: string;
  document: CameraPathDocument;
  createdAt: string;
  updatedAt: string;
}
