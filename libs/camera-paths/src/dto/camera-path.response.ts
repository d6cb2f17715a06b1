// The answers' shapes are the camera-path format's (packages/camera-path), shared with the page.
export type { CameraPathSummary, SavedCameraPath } from '@scene-studio/camera-path';
