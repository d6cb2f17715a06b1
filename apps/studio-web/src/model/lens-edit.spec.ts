import { describeLensChange, type LensState } from './lens-edit';

const lens = (overrides: Partial<LensState> = {}): LensState => ({
  focalLengthMm: 35,
  focusDistanceM: 10,
  fNumber: 2.8,
  sensor: 'full-frame',
  aspect: '16:9',
  ...overrides,
});

describe(describeLensChange.name, () => {
  it('says nothing changed for equal lenses', () => {
    expect(describeLensChange(lens(), lens())).toBeNull();
  });

  it('names one changed field with its new value, keyed by the field', () => {
    expect(describeLensChange(lens(), lens({ focalLengthMm: 50 }))).toEqual({
      label: 'Focal length 50 mm',
      mergeKey: 'lens:focalLengthMm',
    });
    expect(describeLensChange(lens(), lens({ fNumber: 5.6 }))?.label).toBe('Aperture f/5.6');
    expect(describeLensChange(lens(), lens({ focusDistanceM: 3.24 }))?.label).toBe('Focus distance 3.2 m');
    expect(describeLensChange(lens(), lens({ aspect: '2.39:1' }))?.label).toBe('Aspect ratio 2.39:1');
  });

  it('names every field that changed together, with a key of them all', () => {
    expect(describeLensChange(lens(), lens({ focalLengthMm: 85, focusDistanceM: 12, sensor: 'super-35' }))).toEqual({
      label: 'Focal length 85 mm, focus distance 12 m and sensor super-35',
      mergeKey: 'lens:focalLengthMm+focusDistanceM+sensor',
    });
  });
});
