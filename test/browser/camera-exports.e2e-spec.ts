import { Frame, Page } from 'playwright-core';
import { authorThreeKeyframes, chooseRender } from '../support/camera-moves';
import { readGltfCameraWithBlender, readUsdCameraWithTinyUsdz } from '../support/camera-readers';
import { setUpEmbedStack } from '../support/embed-stack';
import { openPerformStudioOnPartnerPage, postedBlob, studioEvents, type ReceivedStudioEvent, waitForEvent } from '../support/studio-frame';

/** Software WebGL draws 5–7 frames a second at 720p. */
const RENDER_TIMEOUT = 120_000;
const FPS = 24;
/** A 2 s move at 24 fps: frames 0 to 47; checked at the first, the middle and the last. */
const CHECKED = [0, 24, 47];
/** The studio's frame before anyone changes it: full frame cut to 16:9, a 36 × 20.25 mm gate. */
const GATE_HEIGHT_MM = 20.25;

/** A pose the render drew a frame at (`state().perform.render.drawnPoses`). */
interface DrawnPose {
  t: number;
  position: [number, number, number];
  quaternion: [number, number, number, number];
  focalLengthMm: number;
}

type Vec3 = [number, number, number];

/** The camera's view direction (its −Z) and picture up (its +Y) for a camera-to-world quaternion. */
function axes([x, y, z, w]: readonly number[]): { view: Vec3; up: Vec3 } {
  return {
    view: [-2 * (x * z + y * w), -2 * (y * z - x * w), -(1 - 2 * (x * x + y * y))],
    up: [2 * (x * y - z * w), 1 - 2 * (x * x + z * z), 2 * (y * z + x * w)],
  };
}

const angleBetweenDeg = (a: readonly number[], b: readonly number[]) => {
  const dot = (a[0] * b[0] + a[1] * b[1] + a[2] * b[2]) / (Math.hypot(a[0], a[1], a[2]) * Math.hypot(b[0], b[1], b[2]));
  return (Math.acos(Math.min(1, Math.max(-1, dot))) * 180) / Math.PI;
};

const distance = (a: readonly number[], b: readonly number[]) => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);

/** Tolerances: 0.1 mm, 0.01°, 0.01 mm of focal length — far below what a viewer could see, above float32 rounding. */
const MAX_POSITION_M = 1e-4;
const MAX_ANGLE_DEG = 0.01;
const MAX_FOCAL_MM = 0.01;

/**
 * Issue 27's "checked by other people's readers": a three-keyframe move authored in the studio
 * on the reference partner page, exported as glTF and USD, arrives in the parent page; Blender's
 * glTF importer and TinyUSDZ (an independent USD parser) read back a camera whose position,
 * orientation and focal length are those the studio's offline render draws at the same frames.
 */
describe('camera exports read by Blender (glTF) and TinyUSDZ (USD)', () => {
  const stack = setUpEmbedStack();
  const openStudio = async (page: Page): Promise<Frame> => (await openPerformStudioOnPartnerPage(page, stack.partner.origin)).frame;

  /** Exports the chosen source's camera in `format` and waits until the parent page received that file. */
  async function exportCamera(page: Page, frame: Frame, format: string): Promise<{ event: ReceivedStudioEvent; file: Buffer }> {
    const before = (await studioEvents(page, 'partnerEvents')).filter((e) => e.type === 'camera-path.exported').length;
    await frame.getByLabel('Camera file').selectOption(format);
    await frame.getByRole('button', { name: 'Make camera file' }).click();
    await page.waitForFunction(
      (n) => (window as any).partnerEvents.filter((e: { type: string }) => e.type === 'camera-path.exported').length > n,
      before,
    );
    const events = (await studioEvents(page, 'partnerEvents')).filter((e) => e.type === 'camera-path.exported');
    return { event: events[events.length - 1], file: await postedBlob(page, 'camera-path.exported', 'file', 'partnerEvents') };
  }

  it('exports a three-keyframe move as glTF and USD whose cameras match the rendered frames', async () => {
    const context = await stack.browser.newContext({ viewport: { width: 1400, height: 1000 } });
    try {
      const page = await context.newPage();
      const frame = await openStudio(page);
      const move = await authorThreeKeyframes(page, frame, 2);
      expect(move.keyframes.map((k) => k.t)).toEqual([0, 1000, 2000]);

      // The studio's camera at every frame: what its offline render draws at 24 fps.
      await frame.getByLabel('Source', { exact: true }).selectOption('timeline');
      await chooseRender(frame, { fps: FPS, resolution: '720p', container: 'webm' });
      await frame.getByRole('button', { name: 'Render', exact: true }).click();
      await waitForEvent(page, 'render.completed', RENDER_TIMEOUT, 'partnerEvents');
      const drawn = (await frame.evaluate(() => (window as any).__studio.state().perform.render.drawnPoses)) as DrawnPose[];
      expect(drawn).toHaveLength(48);

      const gltf = await exportCamera(page, frame, 'gltf');
      expect(gltf.event.payload).toMatchObject({ format: 'gltf', mimeType: 'model/gltf-binary', frames: 48, fps: FPS });
      expect(gltf.event.payload.fileName).toMatch(/\.glb$/);
      // The parent page offers it for download.
      await page.locator(`#events a[download="${gltf.event.payload.fileName}"]`).first().waitFor();

      const usd = await exportCamera(page, frame, 'usd');
      expect(usd.event.payload).toMatchObject({ format: 'usd', mimeType: 'model/vnd.usda', frames: 48, fps: FPS });

      // glTF, read by Blender: position and orientation at the first, middle and last frame; the
      // field of view (Blender's importer keeps the first frame's) as a focal length on our gate.
      const blender = await readGltfCameraWithBlender(gltf.file, FPS, CHECKED);
      for (const [k, index] of CHECKED.entries()) {
        const studio = drawn[index];
        const got = blender[k];
        const want = axes(studio.quaternion);
        expect(distance(got.position, studio.position)).toBeLessThan(MAX_POSITION_M);
        expect(angleBetweenDeg(got.view, want.view)).toBeLessThan(MAX_ANGLE_DEG);
        expect(angleBetweenDeg(got.up, want.up)).toBeLessThan(MAX_ANGLE_DEG);
      }
      const blenderFocal = GATE_HEIGHT_MM / 2 / Math.tan(blender[0].angleY / 2);
      expect(Math.abs(blenderFocal - drawn[0].focalLengthMm)).toBeLessThan(MAX_FOCAL_MM);

      // USD, read by TinyUSDZ: a stage in metres, +Y up, one time code per frame at 24 per second.
      const reading = await readUsdCameraWithTinyUsdz(stack.browser, usd.file);
      expect(reading.camera).toEqual({ path: '/Camera', nodeType: 'camera' });
      expect(Number(reading.stage.metersPerUnit)).toBe(1);
      expect(reading.stage.upAxis).toBe('Y');
      expect(Number(reading.stage.timeCodesPerSecond)).toBe(FPS);
      // Lens and filmback in tenths of a metre: ×100 is millimetres.
      expect(reading.verticalAperture * 100).toBeCloseTo(GATE_HEIGHT_MM, 4);
      expect(reading.horizontalAperture * 100).toBeCloseTo(36, 4);
      // The render scene's world matrix (column-major) at the default time is frame 0's pose.
      const g = reading.globalMatrix;
      expect(distance([g[12], g[13], g[14]], drawn[0].position)).toBeLessThan(MAX_POSITION_M);
      expect(angleBetweenDeg([-g[8], -g[9], -g[10]], axes(drawn[0].quaternion).view)).toBeLessThan(MAX_ANGLE_DEG);
      for (const index of CHECKED) {
        const studio = drawn[index];
        const m = reading.transforms.get(index);
        expect(m).toHaveLength(16);
        // Row vectors: row 2 is the camera's +Z (behind it), row 1 its +Y, row 3 its position.
        expect(distance(m!.slice(12, 15), studio.position)).toBeLessThan(MAX_POSITION_M);
        const want = axes(studio.quaternion);
        expect(angleBetweenDeg([-m![8], -m![9], -m![10]], want.view)).toBeLessThan(MAX_ANGLE_DEG);
        expect(angleBetweenDeg(m!.slice(4, 7), want.up)).toBeLessThan(MAX_ANGLE_DEG);
        expect(Math.abs(reading.focalLengths.get(index)! * 100 - studio.focalLengthMm)).toBeLessThan(MAX_FOCAL_MM);
      }
    } finally {
      await context.close();
    }
  }, 240_000);
});
