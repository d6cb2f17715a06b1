import { SparkRenderer, SplatFileType, SplatMesh } from '@sparkjsdev/spark';
import { Sphere, type Object3D, type WebGLRenderer } from 'three';

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
  /**
   * Spark's own depth of field, applied per splat as it is drawn (a post pass cannot: splats
   * write no depth): `focalDistance` in metres, `apertureAngle` the full angle of the aperture
   * as seen from the focal plane, 0 for a pinhole.
   */
  setDepthOfField(focalDistance: number, apertureAngle: number): void;
  dispose(): void;
}

/** One per viewport: Spark's renderer object, which sorts and draws every splat mesh in the scene. */
export function createSplatRenderer(renderer: WebGLRenderer, onDirty: () => void): SplatRendererHandle {
  const spark = new SparkRenderer({ renderer, onDirty });
  spark.name = 'studio-spark';
  return {
    object: spark,
    get activeSplats() {
      return spark.activeSplats;
    },
    setDepthOfField(focalDistance, apertureAngle) {
      spark.focalDistance = focalDistance;
      spark.apertureAngle = apertureAngle;
    },
    dispose: () => spark.dispose(),
  };
}
