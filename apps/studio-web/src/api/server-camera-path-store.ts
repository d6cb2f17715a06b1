import type { CameraPathDocument } from '../model/camera-path';
import type { CameraPathKind, CameraPathStore, CameraPathSummary, SavedCameraPath } from '../model/camera-path-store';
import { StudioApiError, type StudioApiClient } from './studio-api.client';

/**
 * The scene's camera paths on the server (the studio API's `/camera-paths`): every perform
 * session of the scene shares them, and they outlive the page. A path that is not there is null;
 * other failures are the client's `StudioApiError`s (a 401 also ends the studio, as on every call).
 */
export class ServerCameraPathStore implements CameraPathStore {
  constructor(private readonly api: StudioApiClient) {}

  list(kind?: CameraPathKind): Promise<CameraPathSummary[]> {
    return this.api.cameraPaths(kind);
  }

  async get(cameraPathId: string): Promise<SavedCameraPath | null> {
    try {
      return await this.api.cameraPath(cameraPathId);
    } catch (e) {
      if (e instanceof StudioApiError && e.status === 404) return null;
      throw e;
    }
  }

  create(kind: CameraPathKind, name: string, document: CameraPathDocument): Promise<SavedCameraPath> {
    return this.api.createCameraPath(kind, name, document);
  }

  update(cameraPathId: string, name: string, document: CameraPathDocument): Promise<SavedCameraPath> {
    return this.api.updateCameraPath(cameraPathId, name, document);
  }

  remove(cameraPathId: string): Promise<void> {
    return this.api.deleteCameraPath(cameraPathId);
  }
}
