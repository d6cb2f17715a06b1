import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import type { Browser } from 'playwright-core';

const run = promisify(execFile);

/** The camera Blender built from a glTF file at one frame, in glTF axes (+Y up, metres). */
export interface BlenderCameraFrame {
  frame: number;
  position: [number, number, number];
  /** Unit vectors: where the camera looks, and its picture's up. */
  view: [number, number, number];
  up: [number, number, number];
  /** Vertical field of view in radians, as Blender holds it (its glTF importer keeps the first frame's). */
  angleY: number;
}

/**
 * Imports a .glb with Blender's own glTF importer (Debian's blender; .ci/run installs it) and
 * reads its camera at the given export frames (frame / fps seconds). test/support/blender/
 * read-gltf-camera.py does the reading inside Blender.
 */
export async function readGltfCameraWithBlender(glb: Buffer, fps: number, frames: number[]): Promise<BlenderCameraFrame[]> {
  const dir = await mkdtemp(join(tmpdir(), 'camera-gltf-'));
  try {
    const path = join(dir, 'camera.glb');
    await writeFile(path, glb);
    const script = join(__dirname, 'blender', 'read-gltf-camera.py');
    const { stdout } = await run(
      'blender',
      ['--background', '--factory-startup', '--python-exit-code', '1', '--python', script, '--', path, String(fps), ...frames.map(String)],
      { timeout: 120_000, maxBuffer: 16 * 1024 * 1024 },
    );
    const line = stdout.split('\n').find((l) => l.startsWith('CAMERA_JSON '));
    if (!line) throw new Error(`Blender printed no camera:\n${stdout.slice(-2000)}`);
    return (JSON.parse(line.slice('CAMERA_JSON '.length)) as { frames: BlenderCameraFrame[] }).frames;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** What TinyUSDZ reads in a USD file: the stage, the camera prim, and its samples. */
export interface UsdCameraReading {
  /** The stage metadata TinyUSDZ parsed (`metersPerUnit`, `upAxis`, `timeCodesPerSecond`, …), as it writes them back. */
  stage: Record<string, string>;
  /** The default prim's path and TinyUSDZ's node type for it ("camera"). */
  camera: { path: string; nodeType: string };
  /** The camera's world matrix at the default time, column-major (TinyUSDZ's render scene; the first sample). */
  globalMatrix: number[];
  /** Time code → row-major 4×4 (USD row vectors), from TinyUSDZ's own reading of the layer. */
  transforms: Map<number, number[]>;
  /** Time code → focalLength in the file's unit (tenths of a scene unit). */
  focalLengths: Map<number, number>;
  horizontalAperture: number;
  verticalAperture: number;
}

const READER_ORIGIN = 'http://usd-reader.test';

/**
 * Reads a .usda with TinyUSDZ (npm `tinyusdz`, its WebAssembly build, a USD parser independent
 * of the studio's writer) in a page of its own: TinyUSDZ's JS is built for browsers only. The
 * render-scene conversion gives the camera's world matrix at the default time; for the other
 * time samples the layer as TinyUSDZ parsed it is written back by TinyUSDZ (`layerToString`) and
 * read from there, so every value comes from TinyUSDZ's parse, none from the file's own text.
 */
export async function readUsdCameraWithTinyUsdz(browser: Browser, usda: Buffer): Promise<UsdCameraReading> {
  const dir = dirname(require.resolve('tinyusdz/package.json'));
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await context.route(`${READER_ORIGIN}/**`, (route) => {
      const name = new URL(route.request().url()).pathname.slice(1);
      if (name === '') return route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>USD reader</title>' });
      if (name === 'tinyusdz.js') return route.fulfill({ contentType: 'text/javascript', body: readFileSync(join(dir, name)) });
      if (name === 'tinyusdz.wasm') return route.fulfill({ contentType: 'application/wasm', body: readFileSync(join(dir, name)) });
      if (name === 'camera.usda') return route.fulfill({ contentType: 'text/plain', body: usda });
      return route.fulfill({ status: 404, body: '' });
    });
    await page.goto(`${READER_ORIGIN}/`);
    // A string, not a function: the test's compiler would turn `import()` into a `require` the page lacks.
    const read = (await page.evaluate(`(async () => {
      const { default: init } = await import('${READER_ORIGIN}/tinyusdz.js');
      const tinyusdz = await init();
      const bytes = new Uint8Array(await (await fetch('/camera.usda')).arrayBuffer());
      const scene = new tinyusdz.TinyUSDZLoaderNative();
      if (!scene.loadFromBinary(bytes, 'camera.usda')) throw new Error('TinyUSDZ refused the file: ' + scene.error());
      const root = scene.getDefaultRootNode();
      const layer = new tinyusdz.TinyUSDZLoaderNative();
      if (!layer.loadAsLayerFromBinary(bytes, 'camera.usda')) throw new Error('TinyUSDZ refused the layer: ' + layer.error());
      return {
        root: { path: root.absPath, nodeType: root.nodeType, globalMatrix: Array.from(root.globalMatrix) },
        layer: layer.layerToString(),
      };
    })()`)) as { root: { path: string; nodeType: string; globalMatrix: number[] }; layer: string };
    return parseTinyUsdzLayer(read.layer, read.root);
  } finally {
    await context.close();
  }
}

/** Picks the values out of TinyUSDZ's canonical writing of the layer (its own spacing and number format). */
function parseTinyUsdzLayer(layer: string, root: { path: string; nodeType: string; globalMatrix: number[] }): UsdCameraReading {
  const header = /^#usda 1\.0\s*\(([\s\S]*?)\n\)/.exec(layer)?.[1] ?? '';
  const stage = Object.fromEntries(Array.from(header.matchAll(/^\s*(\w+)\s*=\s*"?([^"\n]*)"?\s*$/gm), (m) => [m[1], m[2]]));
  const block = (attribute: string) =>
    new RegExp(`${attribute.replace(/[.:]/g, '\\$&')}\\.timeSamples = \\{([\\s\\S]*?)\\n\\s*\\}`).exec(layer)?.[1] ?? '';
  const numbers = (text: string) => Array.from(text.matchAll(/-?\d+(?:\.\d+)?(?:e-?\d+)?/gi), (m) => Number(m[0]));
  const samples = (attribute: string) =>
    new Map(Array.from(block(attribute).matchAll(/^\s*(-?[\d.]+)\s*:\s*(.+?),?\s*$/gm), (m) => [Number(m[1]), numbers(m[2])] as const));
  const scalar = (attribute: string) => Number(new RegExp(`float ${attribute} = (\\S+)`).exec(layer)?.[1]);
  return {
    stage,
    camera: { path: root.path, nodeType: root.nodeType },
    globalMatrix: root.globalMatrix,
    transforms: samples('matrix4d xformOp:transform'),
    focalLengths: new Map(Array.from(samples('float focalLength'), ([t, v]) => [t, v[0]])),
    horizontalAperture: scalar('horizontalAperture'),
    verticalAperture: scalar('verticalAperture'),
  };
}
