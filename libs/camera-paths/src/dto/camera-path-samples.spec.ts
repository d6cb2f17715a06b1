import { DTO_VALIDATION } from '@app/core';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import fc from 'fast-check';
import { CameraPathSampleDto, POSE_RANGES, POSITION_BOUND_M } from './camera-path-document.dto';
import { passesSampleRules, sampleFieldErrors } from './camera-path-samples';

const valid = {
  t: 16.7,
  position: [1.2345, 1.6, -8.1234],
  quaternion: [0, 0.123456, 0, 0.992349],
  focalLengthMm: 35,
  focusDistanceM: 8,
  fNumber: 2.8,
  rollDeg: -2.5,
  verticalFovDeg: 32.2,
};

const byDto = (sample: unknown) => validateSync(plainToInstance(CameraPathSampleDto, sample as object), DTO_VALIDATION).length === 0;

/** Values around a range's edges, and the wrong kinds of value. */
function around({ min, max }: { min: number; max: number }) {
  const span = max - min;
  return fc.oneof(
    fc.constantFrom(min, max, min - 1e-9 * span, max + 1e-9 * span, (min + max) / 2, min - 1, max + 1),
    fc.double({ min: min - span, max: max + span, noNaN: true }),
    fc.constantFrom(Infinity, -Infinity, NaN, '1', null, true, [], {}, undefined),
  );
}

function tuple(length: number, bound: number) {
  const n = fc.oneof(fc.double({ min: -bound * 1.01, max: bound * 1.01, noNaN: true }), fc.constantFrom(Infinity, NaN, '0', null));
  return fc.oneof(
    fc.array(n, { minLength: length, maxLength: length }),
    fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: length - 1, maxLength: length + 1 }),
    fc.constantFrom('0,0,0', null, {}, 5),
  );
}

const mutation = fc.oneof(
  ...(['t', 'focalLengthMm', 'focusDistanceM', 'fNumber', 'rollDeg', 'verticalFovDeg'] as const).map((k) =>
    around(POSE_RANGES[k]).map((v) => ({ [k]: v })),
  ),
  tuple(3, POSITION_BOUND_M).map((v) => ({ position: v })),
  tuple(4, 2).map((v) => ({ quaternion: v })),
  fc.constantFrom({ extra: 1 }, { easing: 'linear' }, { label: 'x' }),
);

describe(passesSampleRules.name, () => {
  it('says exactly what CameraPathSampleDto says, on generated samples', () => {
    fc.assert(
      fc.property(fc.array(mutation, { maxLength: 3 }), fc.subarray(Object.keys(valid), { maxLength: 1 }), (changes, removed) => {
        const sample: Record<string, unknown> = Object.assign({}, valid, ...changes);
        for (const key of removed) delete sample[key];
        expect(passesSampleRules(sample)).toBe(byDto(sample));
      }),
      { numRuns: 3000, seed: 20261126 },
    );
  });

  it('refuses what is not an object', () => {
    for (const v of [null, 1, 'x', [valid]]) expect(passesSampleRules(v)).toBe(false);
  });
});

describe(sampleFieldErrors.name, () => {
  it('words the errors of failing samples as the DTO does, at their index', () => {
    const samples = [valid, { ...valid, quaternion: [0, 0, 1] }, valid, { ...valid, fNumber: 40, extra: true }];
    expect(sampleFieldErrors(samples, 'document.samples', 100)).toEqual([
      { field: 'document.samples[1].quaternion', code: 'invalid_length', message: 'quaternion must hold exactly 4 numbers' },
      { field: 'document.samples[3].extra', code: 'unknown_field', message: 'document.samples[3].extra is not a known field' },
      { field: 'document.samples[3].fNumber', code: 'too_large', message: 'fNumber must be at most 32' },
    ]);
  });

  it('refuses items that are not objects by index; too many samples whole, unread', () => {
    expect(sampleFieldErrors([1, valid, ['x']], 'document.samples', 100)).toEqual([
      { field: 'document.samples[0]', code: 'invalid_type', message: 'each item of samples must be an object' },
      { field: 'document.samples[2]', code: 'invalid_type', message: 'each item of samples must be an object' },
    ]);
    expect(sampleFieldErrors(new Array(20_001).fill(null), 'document.samples', 100)).toEqual([
      { field: 'document.samples', code: 'too_many', message: 'samples must hold at most 20000 items' },
    ]);
  });

  it('stops at the cap', () => {
    expect(sampleFieldErrors(new Array(500).fill({ ...valid, t: -1 }), 'document.samples', 100)).toHaveLength(100);
  });
});
