import type { CameraPathDocument, CameraPathKind } from '@scene-studio/camera-path';

/** A saved path as the list shows it: no document, its size instead. */
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
