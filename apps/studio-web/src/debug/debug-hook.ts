import type { PostedEvent } from '../parent/parent.bridge';
import type { StudioPage } from '../studio/studio-page';
import type { QualityState } from '../viewport/studio-viewport';
import { canvasStats, type CanvasStats } from './canvas-stats';

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
 * only the API client holds), and it offers no way to act on the studio. Installed in test
 * builds only (main.ts, `vite build --mode test`): the production bundle holds none of this.
 */
export function installDebugHook(page: StudioPage): void {
  const { lifecycle, scene } = page;
  const hook = Object.freeze({
    state() {
      const session = lifecycle.session;
      const perform = page.perform?.state ?? null;
      return {
        phase: lifecycle.phase,
        embedSessionId: session?.embedSessionId ?? null,
        mode: session?.mode ?? null,
        capabilities: session ? { ...session.capabilities } : null,
        activeTab: page.shell?.tab ?? null,
        endedReason: lifecycle.endedReason,
        scene: { ...scene.state },
        loadedVersion: scene.state.loadedVersion,
        webgl: page.viewport !== null,
        tooSmall: page.sizeNotice?.tooSmall ?? false,
        streamConnected: lifecycle.streamConnected,
        edits: page.edits?.list.map((t) => ({ operationId: t.operationId, status: t.status, version: t.version })) ?? [],
        /** Which version the viewport holds and what a comparison shows (edit modes). */
        inspect: page.inspector?.state ?? null,
        perform,
      };
    },
    camera(): StudioDebugCamera | null {
      const viewport = page.viewport;
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
    /** The adaptive render quality: the pixel ratio now, the best one, the fps, whether pinned. */
    quality(): QualityState | null {
      return page.viewport?.qualityState ?? null;
    },
    renderedFrames(): number {
      return page.viewport?.renderedFrames ?? 0;
    },
    /** Whether the frame loop rests (no animation frames until input or a change wakes it). */
    loopResting(): boolean {
      return page.viewport?.resting ?? false;
    },
    get firstFrameAt(): number | null {
      return page.viewport?.firstFrameAt ?? null;
    },
    /** When the first frame of a whole world (after its preview, if any) was finished. */
    get fullSplatFrameAt(): number | null {
      return page.viewport?.fullSplatFrameAt ?? null;
    },
    /** When the first frame with splats drawn was finished; null for a mesh scene or before. */
    get firstSplatFrameAt(): number | null {
      return page.viewport?.firstSplatFrameAt ?? null;
    },
    /** The shown world's splat count and how many the last sort drew (0 and 0 for a mesh scene). */
    splats(): { count: number; drawn: number; level: 'preview' | 'full' | null } {
      return page.viewport?.splatStats ?? { count: 0, drawn: 0, level: null };
    },
    /** The shown version as placed: its meshes' box (collider included) and the splat's matrix. */
    placement(): { meshBox: { min: number[]; max: number[] } | null; splatMatrix: number[] | null } | null {
      return page.viewport?.hasScene ? page.viewport.placement : null;
    },
    canvasStats(): CanvasStats | null {
      return page.viewport?.hasScene ? page.viewport.withDrawnFrame(canvasStats) : null;
    },
    events(): PostedEvent[] {
      return lifecycle.bridge.history().map((e) => ({ ...e, payload: { ...e.payload } }));
    },
  });
  Object.defineProperty(window, '__studio', { value: hook, enumerable: false, configurable: false, writable: false });
}
