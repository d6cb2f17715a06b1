import { SparkRenderer, SplatFileType, SplatMesh } from '@sparkjsdev/spark';
import { Sphere, Vector3, type Camera, type Object3D, type Scene, type WebGLRenderer } from 'three';

/**
 * Everything that touches Spark (World Labs' Gaussian-splat renderer for three.js). This module
 * is only ever imported dynamically, so Vite puts Spark (~1 MB gzipped, most of it its bundled
 * WebAssembly) in its own chunk: a studio showing a GLB never downloads it.
 *
 * Spark compiles that WebAssembly from bytes and sorts splats in a worker made from a `blob:`
 * URL; the page's CSP allows exactly that (`'wasm-unsafe-eval'`, `worker-src blob:`).
 */

/**
 * Above this many splats Spark builds a level-of-detail tree in its worker and draws a coarser
 * set while the camera is far: worlds at Marble's `full_res` (millions of splats) stay fluid.
 * Below it the tree would cost more load time than it saves frame time.
 */
const LOD_ABOVE_SPLATS = 1_500_000;

export interface LoadedSplat {
  object: Object3D;
  count: number;
  bounds: Sphere;
  /** `preview`: the coarse copy drawn first (a `splat-preview` file); `full`: the world itself. */
  level: SplatLevel;
  /** Once disposed (by whoever held it last), never drawn again. */
  readonly disposed: boolean;
  dispose(): void;
}

export type SplatLevel = 'preview' | 'full';

/** Decodes an SPZ (in Spark's worker) into a drawable splat mesh. */
export async function loadSplat(
  bytes: ArrayBuffer,
  level: SplatLevel,
  onDecodeProgress?: (loaded: number, total: number) => void,
): Promise<LoadedSplat> {
  const mesh = new SplatMesh({
    fileBytes: bytes,
    fileType: SplatFileType.SPZ,
    lod: true,
    lodAbove: LOD_ABOVE_SPLATS,
    // Focus picking and fly-mode ground use the collider mesh, far cheaper than splat raycasts.
    raycastable: false,
    onProgress: (e) => {
      if (e.lengthComputable) onDecodeProgress?.(e.loaded, e.total);
    },
  });
  mesh.name = 'studio-splat';
  await mesh.initialized;
  const count = mesh.packedSplats?.numSplats ?? mesh.extSplats?.numSplats ?? 0;
  const bounds = mesh.getBoundingBox(true).getBoundingSphere(new Sphere());
  if (!Number.isFinite(bounds.radius) || bounds.radius <= 0) bounds.radius = 50;
  let disposed = false;
  return {
    object: mesh,
    count,
    bounds,
    level,
    get disposed() {
      return disposed;
    },
    dispose() {
      if (disposed) return;
      disposed = true;
      mesh.dispose();
    },
  };
}

export interface SplatRendererHandle {
  object: Object3D;
  /** Splats drawn by the last sort: 0 until Spark's worker has sorted the world once. */
  readonly activeSplats: number;
  /** A sort is running in Spark's worker (its dirty notices also come before any sort lands). */
  readonly sorting: boolean;
  /**
   * Spark's own depth of field, applied per splat as it is drawn (a post pass cannot: splats
   * write no depth): `focalDistance` in metres, `apertureAngle` the full angle of the aperture
   * as seen from the focal plane, 0 for a pinhole.
   */
  setDepthOfField(focalDistance: number, apertureAngle: number): void;
  /**
   * Resolves once the next frame drawn from `camera` is final: Spark has gathered the splats for
   * exactly this view, sorted them in its worker and holds that order for drawing (and, on a
   * world with a level-of-detail tree, picked the detail for this view first). Offline renders
   * wait for this before each frame; the live view never does (it redraws when a sort lands).
   */
  settle(scene: Scene, camera: Camera, signal?: AbortSignal): Promise<void>;
  dispose(): void;
}

/** An offline render gives up on a view Spark has not settled by then (a stuck worker). */
const SETTLE_LIMIT_MS = 120_000;
/** How often `settle` looks at Spark's state while its worker sorts (it posts no event per sort). */
const SETTLE_POLL_MS = 4;

/** One per viewport: Spark's renderer object, which sorts and draws every splat mesh in the scene. */
export function createSplatRenderer(renderer: WebGLRenderer, onDirty: () => void): SplatRendererHandle {
  const spark = new SparkRenderer({ renderer, onDirty });
  spark.name = 'studio-spark';
  return {
    object: spark,
    get activeSplats() {
      return spark.activeSplats;
    },
    get sorting() {
      return spark.sorting;
    },
    setDepthOfField(focalDistance, apertureAngle) {
      spark.focalDistance = focalDistance;
      spark.apertureAngle = apertureAngle;
    },
    settle: (scene, camera, signal) => settle(spark, scene, camera, signal),
    dispose: () => spark.dispose(),
  };
}

/**
 * Spark's state machine, read from its public fields (2.2.0, `SparkRenderer.updateInternal` and
 * `driveSort`): `update()` gathers the splats for a camera (`current`, whose `viewOrigin` and
 * `viewDirection` are that camera's) and starts a sort unless one is running (`sorting`), in
 * which case `sortDirty` asks for another when it lands; a landed sort records the view it was
 * for in `sortedCenter`/`sortedDir` and swaps its order in for drawing. A frame is final when no
 * sort runs or waits and the last one was for this exact camera. Level of detail (worlds above
 * LOD_ABOVE_SPLATS) runs in a second worker: a new detail set means gathering and sorting again.
 */
async function settle(spark: SparkRenderer, scene: Scene, camera: Camera, signal?: AbortSignal): Promise<void> {
  const deadline = performance.now() + SETTLE_LIMIT_MS;
  const position = camera.getWorldPosition(new Vector3());
  const direction = camera.getWorldDirection(new Vector3());
  // What the next draw will use; Spark otherwise learns the size only when it draws.
  spark.renderer.getDrawingBufferSize(spark.renderSize);
  const withLod = spark.lodMeshes.length > 0;
  for (;;) {
    const lodBefore = spark.currentLod;
    await spark.update({ scene, camera });
    while (spark.sorting || spark.sortTimeoutId !== -1 || (withLod && spark.lodWorker?.queue != null)) {
      signal?.throwIfAborted();
      if (performance.now() > deadline) throw new Error('The splat renderer did not finish sorting the world for a frame.');
      await new Promise((resolve) => setTimeout(resolve, SETTLE_POLL_MS));
    }
    signal?.throwIfAborted();
    const sortedHere = spark.sortedCenter.distanceTo(position) < 1e-9 && spark.sortedDir.dot(direction) > 1 - 1e-12;
    const lodSettled = !withLod || (!spark.lodDirty && spark.currentLod === lodBefore);
    if (sortedHere && !spark.sortDirty && lodSettled) return;
    if (performance.now() > deadline) throw new Error('The splat renderer did not finish sorting the world for a frame.');
  }
}
