import { fieldRule } from '@app/core';
import { applyDecorators } from '@nestjs/common';

/**
 * Number rules with the stable field codes of docs/api.md. Each rule passes values another rule
 * reports (a missing value is `required`, a string is `invalid_type`), so one bad value gets one
 * error, not three.
 */
const isFiniteNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const absent = (v: unknown): boolean => v === undefined || v === null;

/** From `min` to `max`; `exclusive`: strictly between them. */
export interface NumberRange {
  min: number;
  max: number;
  exclusive?: boolean;
}

export function isNumberIn(v: unknown, { min, max, exclusive }: NumberRange): boolean {
  return isFiniteNumber(v) && (exclusive ? v > min && v < max : v >= min && v <= max);
}

/**
 * A finite number within `range`. JSON has no NaN, but `1e999` parses to Infinity: refused as
 * `invalid_type` like a string or a boolean.
 */
export function NumberIn(property: string, { min, max, exclusive = false }: NumberRange): PropertyDecorator {
  return applyDecorators(
    fieldRule('finiteNumber', 'invalid_type', (v) => absent(v) || isFiniteNumber(v), `${property} must be a finite number`),
    fieldRule(
      'atLeast',
      'too_small',
      (v) => !isFiniteNumber(v) || (exclusive ? v > min : v >= min),
      `${property} must be ${exclusive ? 'more than' : 'at least'} ${min}`,
    ),
    fieldRule(
      'atMost',
      'too_large',
      (v) => !isFiniteNumber(v) || (exclusive ? v < max : v <= max),
      `${property} must be ${exclusive ? 'less than' : 'at most'} ${max}`,
    ),
  );
}

export function isNumberTuple(v: unknown, length: number, bound = Infinity): boolean {
  if (!Array.isArray(v) || v.length !== length) return false;
  for (const n of v) if (!isFiniteNumber(n) || Math.abs(n) > bound) return false;
  return true;
}

/** `[x, y, …]`: exactly `length` finite numbers, each within ±`bound` when one is given. */
export function NumberTuple(property: string, length: number, bound?: number): PropertyDecorator {
  const isNumbers = (v: unknown): v is number[] => Array.isArray(v) && v.every(isFiniteNumber);
  const rules = [
    fieldRule('finiteNumbers', 'invalid_type', (v) => absent(v) || isNumbers(v), `${property} must be an array of finite numbers`),
    fieldRule(
      'tupleLength',
      'invalid_length',
      (v) => !Array.isArray(v) || v.length === length,
      `${property} must hold exactly ${length} numbers`,
    ),
  ];
  if (bound !== undefined) {
    rules.push(
      fieldRule(
        'withinBound',
        'too_large',
        (v) => !isNumbers(v) || v.every((n) => Math.abs(n) <= bound),
        `${property} must be within ±${bound}`,
      ),
    );
  }
  return applyDecorators(...rules);
}

/**
 * An ISO 8601 date-time with its offset, as RFC 3339 profiles it (`2026-11-26T10:00:00.000Z`,
 * what `Date.toISOString()` writes): checked by length first, then one anchored pattern without
 * nested repetition, then the calendar.
 */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/;

export function IsoDateTime(property: string): PropertyDecorator {
  return fieldRule(
    'isoDateTime',
    'invalid_format',
    (v) => typeof v !== 'string' || (v.length <= 40 && DATE_TIME.test(v) && isCalendarDate(v)),
    `${property} must be an ISO 8601 date-time with its offset, like 2026-11-26T10:00:00.000Z`,
  );
}

function isCalendarDate(v: string): boolean {
  const [year, month, day] = v.slice(0, 10).split('-').map(Number);
  const [hour, minute, second] = v.slice(11, 19).split(':').map(Number);
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return false;
  return day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}
