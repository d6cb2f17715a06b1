import { parse as parseJsonSyntaxTree } from '@humanwhocodes/momoa';
import fc from 'fast-check';
import { firstRepeatedKey, MAX_JSON_DEPTH, parseJsonObject, parseJsonObjectYielding } from './json-body';

/** The reference: a full JSON syntax tree, which keeps every member of an object. */
function repeatedBySyntaxTree(text: string): string | null {
  type Node = ReturnType<typeof parseJsonSyntaxTree>['body'];
  const stack: Node[] = [parseJsonSyntaxTree(text, { mode: 'json', ranges: false, tokens: false }).body];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.type === 'Object') {
      const seen = new Set<string>();
      for (const member of node.members) {
        const name = member.name.type === 'String' ? member.name.value : member.name.name;
        if (seen.has(name)) return name;
        seen.add(name);
        stack.push(member.value);
      }
    } else if (node.type === 'Array') {
      for (const element of node.elements) stack.push(element.value);
    }
  }
  return null;
}

/** JSON text whose objects may repeat keys, spelled plainly or with escapes, with any spacing. */
const keyText = fc.oneof(
  fc.constantFrom('a', 'b', 'ab', '', '"', '\\', 'é', '🌲').map((k) => JSON.stringify(k)),
  fc.constantFrom('"a\\u0062"', '"\\u0061"', '"\\""', '"\\\\"', '"\\u00e9"', '"\\ud83c\\udf32"', '"a\\/b"', '"a/b"'),
);
const space = fc.constantFrom('', ' ', '\n  ', '\t');
const { json } = fc.letrec<{ json: string; scalar: string; array: string; object: string }>((tie) => ({
  json: fc.oneof({ depthSize: 'small', withCrossShrink: true }, tie('scalar'), tie('array'), tie('object')),
  scalar: fc.oneof(
    fc.constantFrom('1', '-0.5e3', 'true', 'false', 'null', '"x"', '"{\\"a\\":1,\\"a\\":2}"', '"[,]"', '","'),
    fc.string().map((s) => JSON.stringify(s)),
  ),
  array: fc.array(tie('json'), { maxLength: 4 }).map((items) => `[${items.join(',')}]`),
  object: fc
    .array(fc.tuple(keyText, space, tie('json')), { maxLength: 5 })
    .map((members) => `{${members.map(([k, s, v]) => `${s}${k}${s}:${s}${v}`).join(`,`)}}`),
}));

describe(firstRepeatedKey.name, () => {
  it('finds the repeated key a full syntax tree finds, on any JSON', () => {
    fc.assert(
      fc.property(json, (text) => {
        JSON.parse(text);
        const expected = repeatedBySyntaxTree(text);
        const found = firstRepeatedKey(text);
        // Both find one exactly when there is one; which one may differ (the reference walks from the end).
        expect(found === null).toBe(expected === null);
      }),
      { numRuns: 2000, seed: 20261126 },
    );
  });

  it.each([
    ['{"a":1,"a":2}', 'a'],
    ['{"a":1,"\\u0061":2}', 'a'],
    ['{"x":{"a":1},"y":{"a":1}}', null],
    ['{"list":[{"x":1},{"x":1}]}', null],
    ['{"list":[{"x":1,"x":2}]}', 'x'],
    ['{"a":"a","b":"a"}', null],
    ['{"a":{"b":1},"a":2}', 'a'],
    ['{"s":"\\"a\\":1,\\"a\\":2"}', null],
    ['{"a\\\\":1,"a\\\\":2}', 'a\\'],
  ])('%s → %s', (text, key) => {
    expect(firstRepeatedKey(text)).toBe(key);
  });

  // Its speed on a take's megabytes is not judged here (no timed tests): the scan is one pass by
  // construction. This holds it right on such a body: 20 000 objects with the same keys.
  it('tells keys of sibling objects from a repeated key on a megabyte body', () => {
    const sample = { t: 0, position: [1.2345, 1.6, -8.1234], quaternion: [0, 0.123456, 0, 0.992349], focalLengthMm: 35 };
    const text = JSON.stringify({ samples: Array.from({ length: 20_000 }, (_, t) => ({ ...sample, t })), t: 1 });
    expect(firstRepeatedKey(text)).toBeNull();
    expect(firstRepeatedKey(`${text.slice(0, -1)},"t":2}`)).toBe('t');
  });
});

describe(parseJsonObject.name, () => {
  it('refuses a repeated key, naming it', () => {
    expect(() => parseJsonObject('{"prompt":"a","prompt":"b"}')).toThrow('repeats the key "prompt"');
  });
});

describe(parseJsonObjectYielding.name, () => {
  it('answers as parseJsonObject does, on any JSON object text', async () => {
    await fc.assert(
      fc.asyncProperty(json, async (inner) => {
        const text = `{"a":${inner}}`;
        const outcome = async (parse: () => unknown) => {
          try {
            return { value: await parse() };
          } catch (e) {
            return { error: (e as Error).message };
          }
        };
        expect(await outcome(() => parseJsonObjectYielding(text))).toEqual(await outcome(() => parseJsonObject(text)));
      }),
      { numRuns: 500, seed: 20261129 },
    );
  });

  it('refuses nesting deeper than the limit and a repeated key past its slices, and lets the event loop run between them', async () => {
    const deep = `{"a":${'['.repeat(MAX_JSON_DEPTH)}${']'.repeat(MAX_JSON_DEPTH)}}`;
    await expect(parseJsonObjectYielding(deep)).rejects.toThrow(`nests deeper than ${MAX_JSON_DEPTH} levels`);
    await expect(parseJsonObjectYielding(`{"a":${'['.repeat(MAX_JSON_DEPTH - 1)}${']'.repeat(MAX_JSON_DEPTH - 1)}}`)).resolves.toEqual({
      a: expect.any(Array),
    });
    const samples = JSON.stringify(Array.from({ length: 40_000 }, (_, t) => ({ t, x: [1.25, 2.5, 3.75] })));
    let turns = 0;
    const ticker = setInterval(() => turns++, 0);
    try {
      await expect(parseJsonObjectYielding(`{"samples":${samples},"t":1,"t":2}`)).rejects.toThrow('repeats the key "t"');
    } finally {
      clearInterval(ticker);
    }
    expect(turns).toBeGreaterThan(0);
  });
});
