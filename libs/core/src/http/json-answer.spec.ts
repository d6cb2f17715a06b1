import fc from 'fast-check';
import { stringifyYielding } from './json-answer';

describe(stringifyYielding.name, () => {
  it('writes the text JSON.stringify writes, for any JSON value, long arrays included', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (value) => {
        expect(await stringifyYielding(value)).toBe(JSON.stringify(value));
      }),
      { numRuns: 500, seed: 20261129 },
    );
    const take = {
      name: 'x',
      skipped: undefined,
      at: new Date(0),
      document: { samples: Array.from({ length: 4321 }, (_, t) => ({ t, p: [t / 3, null] })), markers: [] },
    };
    expect(await stringifyYielding(take)).toBe(JSON.stringify(take));
    expect(await stringifyYielding(Array.from({ length: 2000 }, () => undefined))).toBe(
      JSON.stringify(Array.from({ length: 2000 }, () => undefined)),
    );
  });
});
