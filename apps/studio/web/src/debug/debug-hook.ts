import type { PostedEvent } from '../parent/parent.bridge';
import type { StudioApp } from '../studio/studio.app';
import type { CanvasStats } from '../viewport/studio-viewport';

export interface StudioDebugCamera {
  position: [number, number, number];
  quaternion: [number, number, number, number];
  /** Vertical field of view in degrees (three.js `camera.fov`). */
  fov: number;
  horizontalFov: number;
  aspect: number;
  focalLengthMm: number;
  filmGauge: number;
  near: number;
  far: number;
  /** Degrees. */
  roll: number;
  focusDistance: number;
  fNumber: number;
  navigation: 'orbit' | 'fly';
  projectionMatrix: number[];
}

/**
 * `window.__studio`: a read-only window on the studio for automated tests and benchmarks. It
 * reports what is on screen and what was posted to the parent, never the session secret (which
 * only the API client holds), and it offers no way to act on the studio.
 */
export function installDebugHook(app: StudioApp): void {
  const hook = Object.freeze({
    state() {
      const session = app.session;
      const perform = app.perform?.state ?? null;
      return {
        phase: app.phase,
        embedSessionId: session?.embedSessionId ?? null,
        mode: session?.mode ?? null,
        capabilities: session ? { ...session.capabilities } : null,
        activeTab: app.shell?.tab ?? null,
        endedReason: app.endedReason,
        scene: { ...app.scene },
        loadedVersion: app.scene.loadedVersion,
        webgl: app.viewport !== null,
        tooSmall: app.sizeNotice?.tooSmall ?? false,
        streamConnected: app.streamConnected,
        edits: app.edits?.list.map((t) => ({ operationId: t.operationId, status: t.status, version: t.version })) ?? [],
        perform,
      };
    },
    camera(): StudioDebugCamera | null {
      const viewport = app.viewport;
      if (!viewport) return null;
      const c = viewport.camera;
      const rig = viewport.rig;
      const horizontalFov = (2 * Math.atan(Math.tan((c.fov * Math.PI) / 360) * c.aspect) * 180) / Math.PI;
      return {
        position: c.position.toArray(),
        quaternion: c.quaternion.toArray(),
        fov: c.fov,
        horizontalFov,
        aspect: c.aspect,
        focalLengthMm: c.getFocalLength(),
        filmGauge: c.filmGauge,
        near: c.near,
        far: c.far,
        roll: rig.rollDeg,
        focusDistance: rig.focusDistanceM,
        fNumber: rig.fNumber,
        navigation: rig.navigation,
        projectionMatrix: [...c.projectionMatrix.elements],
      };
    },
    renderedFrames(): number {
      return app.viewport?.renderedFrames ?? 0;
    },
    get firstFrameAt(): number | null {
      return app.viewport?.firstFrameAt ?? null;
    },
    canvasStats(): CanvasStats | null {
      return app.viewport?.hasScene ? app.viewport.canvasStats() : null;
    },
    events(): PostedEvent[] {
      return app.bridge.history().map((e) => ({ ...e, payload: { ...e.payload } }));
    },
  });
  Object.defineProperty(window, '__studio', { value: hook, enumerable: false, configurable: false, writable: false });
}
