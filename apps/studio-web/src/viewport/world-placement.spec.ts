import { Group, Sphere, Vector3 } from 'three';
import { STUDIO_UNITS, placeObject, placeSphere, worldPlacement } from './world-placement';

/** Where a point of the files lands once placed, through three.js's own matrix. */
function placed(raw: [number, number, number], world: ReturnType<typeof worldPlacement>): number[] {
  const root = new Group();
  placeObject(root, world);
  return new Vector3(...raw)
    .applyMatrix4(root.matrixWorld)
    .toArray()
    .map((v) => Math.round(v * 1e6) / 1e6 + 0);
}

describe(worldPlacement.name, () => {
  it('leaves files in studio units as they are', () => {
    expect(worldPlacement(undefined)).toEqual(STUDIO_UNITS);
    expect(placed([1, 2, 3], worldPlacement(undefined))).toEqual([1, 2, 3]);
  });

  it('puts a Marble world (OpenCV frame) upright, in metres, its ground at y = 0', () => {
    // World Labs' recipe: metric = raw × s; metric.y −= g; then y and z negated (OpenCV → OpenGL).
    const world = worldPlacement({ metricScale: 1.25, groundOffset: 0.4, frame: 'opencv' });
    // The ground under the raw origin: raw y = g / s (y points down in the raw frame).
    expect(placed([0, 0.4 / 1.25, 0], world)).toEqual([0, 0, 0]);
    // 1 raw unit up (raw −y) from the ground is 1.25 m up; 1 raw unit forward (raw +z) is −Z.
    expect(placed([0, 0.4 / 1.25 - 1, 0], world)).toEqual([0, 1.25, 0]);
    expect(placed([2, 0.4 / 1.25, 1], world)).toEqual([2.5, 0, -1.25]);
  });

  it('without a frame (specs stored before it was recorded) only scales and lowers', () => {
    const world = worldPlacement({ metricScale: 2, groundOffset: 0.5 });
    expect(placed([1, 1, 1], world)).toEqual([2, 1.5, 2]);
  });

  it('places bounds as it places the files', () => {
    const world = worldPlacement({ metricScale: 1.25, groundOffset: 0.4, frame: 'opencv' });
    const sphere = placeSphere(new Sphere(new Vector3(2, -1, 4), 3), world);
    expect(sphere.center.toArray()).toEqual(placed([2, -1, 4], world));
    expect(sphere.radius).toBeCloseTo(3.75, 9);
  });

  it('refuses nonsense rather than turning a world inside out: a bad scale counts as 1', () => {
    expect(worldPlacement({ metricScale: -3, groundOffset: Number.NaN, frame: 'opengl' })).toEqual(STUDIO_UNITS);
  });
});
