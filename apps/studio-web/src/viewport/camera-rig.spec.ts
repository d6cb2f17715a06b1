import { Euler, MathUtils, PerspectiveCamera, Quaternion } from 'three';
import { CameraRig } from './camera-rig';
import { DEFAULT_FRAME, PRIME_FOCALS_MM, fieldOfView } from '../model/lens';

describe(CameraRig.name, () => {
  let sut: CameraRig;
  let camera: PerspectiveCamera;

  beforeEach(() => {
    sut = new CameraRig();
    camera = new PerspectiveCamera();
  });

  describe('frame', () => {
    it('starts full frame 16:9', () => {
      expect(sut.frame).toBe(DEFAULT_FRAME);
    });

    it("gives the camera the gate's fields of view at every prime stop, for each sensor and aspect", () => {
      for (const sensor of ['full-frame', 'super-35'] as const) {
        for (const aspect of ['16:9', '2.39:1', '1:1', '9:16'] as const) {
          sut.setFrame(sensor, aspect);
          for (const focal of PRIME_FOCALS_MM) {
            sut.setFocalLength(focal);
            sut.apply(camera);
            const expected = fieldOfView(focal, sut.frame);
            expect(camera.fov).toBeCloseTo(expected.verticalDeg, 9);
            expect(camera.aspect).toBe(sut.frame.aspect.ratio);
            const horizontal = MathUtils.radToDeg(2 * Math.atan(Math.tan(MathUtils.degToRad(camera.fov) / 2) * camera.aspect));
            expect(horizontal).toBeCloseTo(expected.horizontalDeg, 9);
            expect(camera.getFocalLength()).toBeCloseTo(focal, 9);
          }
        }
      }
    });

    it('counts a change as a change of the rig (the viewport re-lays out and redraws), and a no-op as none', () => {
      const before = sut.revision;
      sut.setFrame('full-frame', '16:9');
      expect(sut.revision).toBe(before);
      sut.setFrame('super-35', '9:16');
      expect(sut.revision).toBe(before + 1);
      expect(sut.frame.film.height).toBeCloseTo(18.66, 9);
    });
  });

  describe('setPose', () => {
    it('puts the camera exactly at the pose: position, orientation with roll, lens', () => {
      const orientation = new Quaternion().setFromEuler(new Euler(0.3, -1.2, 0.1, 'YXZ'));
      sut.setPose({
        position: [1, 2, 3],
        quaternion: [orientation.x, orientation.y, orientation.z, orientation.w],
        focalLengthMm: 85,
        focusDistanceM: 4,
        fNumber: 5.6,
        rollDeg: 5.7,
      });
      sut.apply(camera);
      expect(camera.position.toArray()).toEqual([1, 2, 3]);
      expect(camera.quaternion.angleTo(orientation)).toBeLessThan(1e-6);
      expect([sut.focalLengthMm, sut.focusDistanceM, sut.fNumber]).toEqual([85, 4, 5.6]);
    });
  });

  describe('snapshot', () => {
    it('puts back exactly what a borrowed rig changed: pose, lens, orbit distance, navigation, frame', () => {
      sut.setFrame('super-35', '2.39:1');
      sut.turn(0.4, -0.2);
      sut.dolly(0.7);
      sut.setRollDeg(3.3);
      sut.setNavigation('fly');
      const before = { ...sut, position: sut.position.clone(), frame: sut.frame };
      const restore = sut.snapshot();

      sut.setPose({
        position: [9, 8, 7],
        quaternion: [0, 0.7071068, 0, 0.7071068],
        focalLengthMm: 135,
        focusDistanceM: 2,
        fNumber: 11,
        rollDeg: 0,
      });
      sut.setFrame('full-frame', '9:16');
      sut.setNavigation('orbit');
      sut.orbitDistance = 42;
      const revision = sut.revision;
      restore();

      expect(sut.position.equals(before.position)).toBe(true);
      const fields = ['yaw', 'pitch', 'roll', 'orbitDistance', 'focalLengthMm', 'focusDistanceM', 'fNumber', 'navigation'] as const;
      for (const field of fields) expect(sut[field]).toBe(before[field]);
      expect(sut.frame).toBe(before.frame);
      // A change the viewport redraws for.
      expect(sut.revision).toBeGreaterThan(revision);
    });
  });
});
