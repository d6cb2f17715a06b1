import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { codePointsUpTo, looksLikeEmail, UserText } from './user-text';

class Sut {
  @UserText({ min: 1, max: 200, notBlank: true, notEmailLike: true })
  ref!: string;
}

const codes = (ref: unknown): string[] =>
  validateSync(plainToInstance(Sut, { ref })).flatMap((e) => Object.entries(e.contexts ?? {}).map(([, c]) => c.code as string));

/**
 * Wall-clock time of `fn`, in ms. Used only as a guard against catastrophic backtracking: the
 * quadratic regular expression this replaced took 4 to 7 s on 60 000 characters, a linear pass
 * takes well under a millisecond, so a bound of 100 ms cannot flake yet catches the regression.
 */
function elapsedMs(fn: () => unknown): number {
  const t0 = performance.now();
  fn();
  return performance.now() - t0;
}

describe(UserText.name, () => {
  it.each<[string, unknown, string[]]>([
    ['a plain reference', 'order-48213', []],
    ['an empty value', '', ['too_short']],
    ['201 characters', 'r'.repeat(201), ['too_long']],
    ['200 emoji (code points, not UTF-16 units)', '🌲'.repeat(200), []],
    ['201 emoji', '🌲'.repeat(201), ['too_long']],
    ['only whitespace', '   ', ['blank']],
    ['a NUL', 'a\u0000b', ['invalid_characters']],
    ['a C1 control', 'a\u0085b', ['invalid_characters']],
    ['a right-to-left override', 'Acme\u202Eevil', ['invalid_characters']],
    ['a first-strong isolate', 'Acme\u2068x', ['invalid_characters']],
    ['an unpaired high surrogate', 'a\ud800b', ['invalid_characters']],
    ['an unpaired low surrogate', 'a\udc00b', ['invalid_characters']],
    ['a tab and a newline (allowed)', 'a\tb\nc', []],
    ['an e-mail address', 'jane.doe@example.com', ['looks_like_email']],
    ['an e-mail address inside', 'user:jane@corp.example', ['looks_like_email']],
  ])('%s', (_, value, expected) => {
    expect(codes(value).sort()).toEqual(expected.sort());
  });

  it('reports only too_long for a value far past its bound, without looking closer', () => {
    expect(codes(`${'\u0000'.repeat(1000)}jane@example.com`)).toEqual(['too_long']);
  });

  describe('the worst case of every check stays linear, at the maximum and at 64 KiB', () => {
    const worst = (n: number) => ({
      // A long run of local part and domain without a dot: the shape that made the old
      // e-mail expression backtrack quadratically.
      email: `${'a'.repeat(n >> 1)}@${'a'.repeat(n >> 1)}`,
      manyAts: 'a@'.repeat(n >> 1),
      blank: ' '.repeat(n),
      surrogates: '\ud83c'.repeat(n),
      pairs: '🌲'.repeat(n >> 1),
    });
    it.each([200, 64 * 1024])('%d characters', (n) => {
      for (const [shape, value] of Object.entries(worst(n))) {
        // The shape in the comparison names the culprit when one fails.
        expect([shape, elapsedMs(() => looksLikeEmail(value)) < 100]).toEqual([shape, true]);
        expect([shape, elapsedMs(() => codes(value)) < 100]).toEqual([shape, true]);
      }
    });
  });
});

describe(looksLikeEmail.name, () => {
  it.each([
    ['jane@example.com', true],
    ['a@b.c', true],
    ['x a@b.c y', true],
    ['a@b.c@d', true],
    ['a@.b.c', true],
    ['a@b.', false],
    ['a@.b', false],
    ['@b.c', false],
    ['a@bc', false],
    ['a@b;.c', false],
    ['order@2024', false],
    ['no at sign.here', false],
  ])('%s → %s', (value, expected) => {
    expect(looksLikeEmail(value)).toBe(expected);
  });
});

describe(codePointsUpTo.name, () => {
  it('counts code points up to the bound and gives up beyond it', () => {
    expect(codePointsUpTo('abc', 10)).toBe(3);
    expect(codePointsUpTo('🌲🌲', 10)).toBe(2);
    expect(codePointsUpTo('🌲'.repeat(6), 5)).toBe(Infinity);
    expect(codePointsUpTo('a'.repeat(11), 5)).toBe(Infinity);
    expect(codePointsUpTo('\ud800'.repeat(4), 5)).toBe(4);
  });
});
