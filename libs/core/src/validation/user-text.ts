import { applyDecorators } from '@nestjs/common';
import { ValidateBy } from 'class-validator';

/**
 * Text a partner sends us: prompts, external references, edit instructions, theme texts. One
 * rule set for all of it, each check bounded by the field's maximum before it looks closer, so
 * no value, however long, costs more than a linear pass over the first `2 × max` UTF-16 units:
 *
 * - length in Unicode code points (`too_short` / `too_long`);
 * - `invalid_characters`: NUL and the other C0 controls except tab, line feed and carriage
 *   return, DEL, the C1 controls, unpaired surrogates (JSON's `\ud800` escapes: PostgreSQL would
 *   refuse NUL, and a lone surrogate would be stored as U+FFFD, not as sent), and the
 *   bidirectional embedding, override and isolate controls (U+202A–U+202E, U+2066–U+2069), so no
 *   text we show can reverse the text around it — refused rather than silently removed, because a
 *   value must be stored as sent or not at all;
 * - optionally `blank` (only whitespace) and `looks_like_email`.
 */
export interface UserTextRules {
  min: number;
  max: number;
  /** Refuse a value of only whitespace. */
  notBlank?: boolean;
  /** Refuse a value containing an e-mail address (personal data). */
  notEmailLike?: boolean;
}

// eslint-disable-next-line no-control-regex -- refusing control characters is the point
const FORBIDDEN = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/;

const isWellFormed = (s: string): boolean => (s as unknown as { isWellFormed(): boolean }).isWellFormed();

/**
 * Code points of `s`, or `Infinity` once past `max`: a string of more than `2 × max` UTF-16 units
 * has more than `max` code points whatever it holds, and is not counted.
 */
export function codePointsUpTo(s: string, max: number): number {
  if (s.length <= max) return s.length - countPairs(s);
  if (s.length > 2 * max) return Infinity;
  const n = s.length - countPairs(s);
  return n > max ? Infinity : n;
}

function countPairs(s: string): number {
  let pairs = 0;
  for (let i = 0; i < s.length - 1; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        pairs++;
        i++;
      }
    }
  }
  return pairs;
}

/** Outside the field's bound: another rule reports it, and nothing costlier looks at it. */
const outOfBound = (v: string, max: number): boolean => v.length > 2 * max;

/**
 * Whether the value contains something shaped like an e-mail address, `local@domain.tld`, where
 * the parts hold no whitespace or `@<>(),;:"`. One linear pass: the text splits into runs between
 * such separators, a run into its `@`-free parts, and an address is a non-empty part followed by
 * one holding a dot with characters on both sides (a regular expression for the same shape
 * backtracks quadratically on a long run without a dot).
 */
export function looksLikeEmail(s: string): boolean {
  for (const run of s.split(/[\s<>(),;:"]+/)) {
    if (!run.includes('@')) continue;
    const parts = run.split('@');
    for (let i = 0; i < parts.length - 1; i++) {
      if (parts[i].length === 0) continue;
      const domain = parts[i + 1];
      const dot = domain.indexOf('.', 1);
      if (dot !== -1 && dot < domain.length - 1) return true;
    }
  }
  return false;
}

/**
 * One class-validator rule whose failures carry a stable field code (docs/api.md), for the rules
 * class-validator has no decorator for. `message` may be worded from the property's name.
 */
export function fieldRule(
  name: string,
  code: string,
  valid: (v: unknown) => boolean,
  message: string | ((property: string) => string),
): PropertyDecorator {
  return ValidateBy(
    {
      name,
      validator: {
        validate: valid,
        defaultMessage: (a) => (typeof message === 'string' ? message : message(a?.property ?? 'value')),
      },
    },
    { context: { code } },
  );
}

/** A rule on text alone: a value of another type is `IsString`'s to report. */
const textRule = (name: string, code: string, valid: (v: string) => boolean, message: (property: string) => string) =>
  fieldRule(name, code, (v) => typeof v !== 'string' || valid(v), message);

export function UserText(rules: UserTextRules): PropertyDecorator {
  const { min, max } = rules;
  const checks = [
    textRule(
      'minCodePoints',
      'too_short',
      (v) => codePointsUpTo(v, max) >= min,
      (p) => `${p} must be at least ${min} character${min === 1 ? '' : 's'} long`,
    ),
    textRule(
      'maxCodePoints',
      'too_long',
      (v) => codePointsUpTo(v, max) <= max,
      (p) => `${p} must be at most ${max} characters long`,
    ),
    textRule(
      'validCharacters',
      'invalid_characters',
      (v) => outOfBound(v, max) || (!FORBIDDEN.test(v) && isWellFormed(v)),
      (p) => `${p} must not contain control characters, bidirectional controls or unpaired surrogates`,
    ),
  ];
  if (rules.notBlank) {
    checks.push(
      textRule(
        'notBlank',
        'blank',
        (v) => v.length === 0 || outOfBound(v, max) || v.trim().length > 0,
        (p) => `${p} must contain more than whitespace`,
      ),
    );
  }
  if (rules.notEmailLike) {
    checks.push(
      textRule(
        'notEmailLike',
        'looks_like_email',
        (v) => outOfBound(v, max) || !looksLikeEmail(v),
        (p) => `${p} looks like an e-mail address; use an internal record id, never personal data`,
      ),
    );
  }
  return applyDecorators(...checks);
}
