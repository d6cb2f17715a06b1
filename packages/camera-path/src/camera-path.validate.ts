import {
  CAMERA_PATH_DOCUMENT_SCHEMA,
  UNIT_QUATERNION_TOLERANCE,
  type CameraPathDocument,
  type CameraPathKind,
  type FieldSchema,
  type NumberRange,
  type ObjectSchema,
} from './camera-path.schema';

/** A broken rule, as a `validation_failed` problem lists it (docs/api.md): where, which code, why. */
export interface CameraPathFieldError {
  field: string;
  code: string;
  message: string;
}

export interface ValidationOptions {
  /** Where the document sits: `document` in the studio API's body, `` for a file. */
  at?: string;
  /** Stop after this many errors. */
  max?: number;
  /** The API refuses fields the format does not have; a file from another tool may carry them. */
  unknownFields?: 'refuse' | 'ignore';
}

type Json = Record<string, unknown>;

export const isPlainObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);
const isFiniteNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** Where a rule broke: `video.aspect`, array items by index, `document.keyframes[2].quaternion`. */
export function fieldPath(parent: string, key: string | number): string {
  if (typeof key === 'number') return `${parent}[${key}]`;
  return parent ? `${parent}.${key}` : key;
}

export function isNumberIn(v: unknown, { min, max, exclusive }: NumberRange): boolean {
  return isFiniteNumber(v) && (exclusive ? v > min && v < max : v >= min && v <= max);
}

export function isUnitQuaternion(q: readonly number[]): boolean {
  return Math.abs(Math.hypot(...q) - 1) <= UNIT_QUATERNION_TOLERANCE;
}

/**
 * The field errors of a camera-path document: each field's type and limits (the schema), with
 * the studio API's codes and words. Plain loops over plain values: a 20 000-sample take is checked
 * in milliseconds. What spans fields (order, unit quaternions, a duration that covers the content,
 * what a kind holds) is `cameraPathRuleErrors`, once these pass.
 */
export function cameraPathDocumentErrors(value: unknown, options: ValidationOptions = {}): CameraPathFieldError[] {
  const steps = documentErrorSteps(value, options);
  let step = steps.next();
  while (!step.done) step = steps.next();
  return step.value;
}

/**
 * The same, letting the event loop run every LIST_ITEMS_PER_STEP items of a list (the studio
 * server checks takes of megabytes while it serves other requests). Same errors, same order.
 */
export async function cameraPathDocumentErrorsYielding(value: unknown, options: ValidationOptions = {}): Promise<CameraPathFieldError[]> {
  const steps = documentErrorSteps(value, options);
  let step = steps.next();
  while (!step.done) {
    await new Promise<void>((resolve) => setTimeout(resolve, 0));
    step = steps.next();
  }
  return step.value;
}

/** Items of a list checked between two steps: a few milliseconds' work for a take's samples. */
const LIST_ITEMS_PER_STEP = 1000;

/** The check as steps: lists pause every LIST_ITEMS_PER_STEP items (a generator, run by the two above). */
function* documentErrorSteps(value: unknown, options: ValidationOptions): Generator<void, CameraPathFieldError[], void> {
  const errors: CameraPathFieldError[] = [];
  const max = options.max ?? Infinity;
  const refuseUnknown = (options.unknownFields ?? 'refuse') === 'refuse';
  const add = (field: string, code: string, message: string): void => {
    if (errors.length < max) errors.push({ field, code, message });
  };
  const full = () => errors.length >= max;

  let sinceStep = 0;

  function* checkObject(obj: Json, schema: ObjectSchema, at: string): Generator<void, void, void> {
    if (refuseUnknown) {
      for (const key of Object.keys(obj)) {
        if (!Object.hasOwn(schema, key)) add(fieldPath(at, key), 'unknown_field', `${fieldPath(at, key)} is not a known field`);
      }
    }
    for (const [key, field] of Object.entries(schema)) {
      if (full()) return;
      const v = obj[key];
      // Only objects and lists nest: every other field is checked at once.
      if ((field.type === 'object' && isPlainObject(v)) || (field.type === 'list' && Array.isArray(v) && v.length <= field.max)) {
        yield* checkNested(v, key, field, fieldPath(at, key));
      } else checkField(v, key, field, fieldPath(at, key));
    }
  }

  function* checkNested(v: Json | unknown[], name: string, field: FieldSchema, at: string): Generator<void, void, void> {
    if (field.type === 'object') return yield* checkObject(v as Json, field.fields, at);
    if (field.type !== 'list') return;
    const items = v as unknown[];
    for (let i = 0; i < items.length && !full(); i++) {
      if (++sinceStep >= LIST_ITEMS_PER_STEP) {
        sinceStep = 0;
        yield;
      }
      const item: unknown = items[i];
      if (isPlainObject(item)) yield* checkObject(item, field.items, fieldPath(at, i));
      else add(fieldPath(at, i), 'invalid_type', `each item of ${name} must be an object`);
    }
  }

  const checkField = (v: unknown, name: string, field: FieldSchema, at: string): void => {
    if (v === undefined && field.optional) return;
    if (v === null && field.nullable) return;
    if (v === undefined || v === null) {
      // An optional list sent as null is there, of the wrong type (`keyframes: null`).
      if (v === null && field.optional && field.type === 'list') return add(at, 'invalid_type', `${name} must be an array`);
      return add(at, 'required', `${name} is required`);
    }
    switch (field.type) {
      case 'number': {
        const { min, max: top, exclusive } = field.range;
        if (!isFiniteNumber(v)) return add(at, 'invalid_type', `${name} must be a finite number`);
        if (exclusive ? !(v > min) : v < min) add(at, 'too_small', `${name} must be ${exclusive ? 'more than' : 'at least'} ${min}`);
        if (exclusive ? !(v < top) : v > top) add(at, 'too_large', `${name} must be ${exclusive ? 'less than' : 'at most'} ${top}`);
        return;
      }
      case 'integer':
        if (!Number.isInteger(v)) return add(at, 'invalid_type', `${name} must be a whole number${field.nullable ? ' or null' : ''}`);
        if ((v as number) < field.min) add(at, 'too_small', `${name} must be at least ${field.min}`);
        if ((v as number) > field.max) add(at, 'too_large', `${name} is too large`);
        return;
      case 'tuple': {
        const numbers = Array.isArray(v) && v.every(isFiniteNumber);
        if (!numbers) add(at, 'invalid_type', `${name} must be an array of finite numbers`);
        if (Array.isArray(v) && v.length !== field.length) add(at, 'invalid_length', `${name} must hold exactly ${field.length} numbers`);
        if (numbers && field.bound !== undefined && v.some((n) => Math.abs(n) > field.bound!)) {
          add(at, 'too_large', `${name} must be within ±${field.bound}`);
        }
        return;
      }
      case 'literal':
        if (v !== field.value) add(at, 'invalid_value', `${name} must be ${JSON.stringify(field.value)}`);
        return;
      case 'oneOf':
        if (typeof v !== 'string' || !field.values.includes(v))
          add(at, 'invalid_value', `${name} must be one of ${field.values.join(', ')}`);
        return;
      case 'text': {
        if (typeof v !== 'string') return add(at, 'invalid_type', `${name} must be a string`);
        const top = field.maxCodePoints;
        if (codePointsUpTo(v, top) > top) add(at, 'too_long', `${name} must be at most ${top} characters long`);
        else if (!isCleanText(v)) {
          add(at, 'invalid_characters', `${name} must not contain control characters, bidirectional controls or unpaired surrogates`);
        }
        return;
      }
      case 'ascii':
        if (typeof v !== 'string') return add(at, 'invalid_type', `${name} must be a string`);
        if (v.length > field.maxLength) add(at, 'too_long', `${name} must be at most ${field.maxLength} characters long`);
        if (!PRINTABLE_ASCII.test(v)) add(at, 'invalid_characters', `${name} must be printable ASCII`);
        return;
      case 'dateTime':
        if (typeof v !== 'string') return add(at, 'invalid_type', `${name} must be a string`);
        if (!isDateTime(v))
          add(at, 'invalid_format', `${name} must be an ISO 8601 date-time with its offset, like 2026-11-26T10:00:00.000Z`);
        return;
      // An object or a list of the right type and size is checkNested's.
      case 'object':
        return add(at, 'invalid_type', `${name} must be an object`);
      case 'list':
        if (!Array.isArray(v)) return add(at, 'invalid_type', `${name} must be an array`);
        // Over the limit, the list is refused whole, unread: its size bounds the work.
        return add(at, 'too_many', `${name} must hold at most ${field.max} items`);
    }
  };

  if (!isPlainObject(value)) add(options.at ?? '', 'invalid_type', 'the camera path must be an object');
  else yield* checkObject(value, CAMERA_PATH_DOCUMENT_SCHEMA, options.at ?? '');
  return errors;
}

/**
 * The rules of docs/camera-paths.md that span fields, for a document whose fields each passed
 * `cameraPathDocumentErrors`: samples' `t` ascending, keyframes' `t` ascending and distinct, unit
 * quaternions (samples, keyframes, markers), a duration that covers the last sample and keyframe,
 * and what each kind holds — a view exactly one keyframe and no duration, a path at least two
 * keyframes or one sample.
 */
export function cameraPathRuleErrors(
  kind: CameraPathKind,
  doc: CameraPathDocument,
  options: ValidationOptions = {},
): CameraPathFieldError[] {
  const errors: CameraPathFieldError[] = [];
  const max = options.max ?? Infinity;
  const at = (field: string) => fieldPath(options.at ?? '', field);
  const add = (field: string, code: string, message: string) => {
    if (errors.length < max) errors.push({ field, code, message });
  };
  const keyframes = doc.keyframes ?? [];

  const checkOrder = (items: readonly { t: number }[], field: string, distinct: boolean) => {
    for (let i = 1; i < items.length; i++) {
      const before = items[i - 1].t;
      const t = items[i].t;
      if (t < before || (distinct && t === before)) {
        add(`${at(field)}[${i}].t`, 'not_ascending', `t must be ${distinct ? 'after' : 'at or after'} the previous item's t (${before})`);
      }
    }
  };
  checkOrder(doc.samples, 'samples', false);
  checkOrder(keyframes, 'keyframes', true);
  for (const [name, items] of [
    ['samples', doc.samples],
    ['keyframes', keyframes],
    ['markers', doc.markers],
  ] as const) {
    for (let i = 0; i < items.length; i++) {
      if (!isUnitQuaternion(items[i].quaternion)) {
        add(`${at(name)}[${i}].quaternion`, 'not_unit', `quaternion must have length 1 (within ${UNIT_QUATERNION_TOLERANCE})`);
      }
    }
  }

  const lastT = Math.max(doc.samples.at(-1)?.t ?? 0, keyframes.at(-1)?.t ?? 0);
  if (doc.durationMs < lastT) {
    add(at('durationMs'), 'too_small', `durationMs must be at least the last sample's and the last keyframe's t (${lastT})`);
  }

  if (kind === 'view') {
    if (keyframes.length !== 1) add(at('keyframes'), 'invalid_count', 'a view holds exactly one keyframe');
    if (doc.durationMs !== 0) add(at('durationMs'), 'invalid_value', 'a view lasts 0 ms');
  } else if (keyframes.length < 2 && doc.samples.length === 0) {
    add(at('keyframes'), 'invalid_count', 'a path holds at least two keyframes or at least one sample');
  }
  return errors;
}

/**
 * The document's fields and nothing else, copied from a value `cameraPathDocumentErrors` passed
 * (with unknown fields ignored): what the studio keeps of a file another tool wrote.
 */
export function knownFieldsOf(value: Json): CameraPathDocument {
  return pick(value, CAMERA_PATH_DOCUMENT_SCHEMA) as unknown as CameraPathDocument;
}

function pick(value: Json, schema: ObjectSchema): Json {
  const out: Json = {};
  for (const [key, field] of Object.entries(schema)) {
    const v = value[key];
    if (v === undefined) continue;
    if (field.type === 'object' && isPlainObject(v)) out[key] = pick(v, field.fields);
    else if (field.type === 'list' && Array.isArray(v)) out[key] = v.map((item: Json) => pick(item, field.items));
    else if (field.type === 'tuple' && Array.isArray(v)) out[key] = [...(v as number[])];
    else out[key] = v;
  }
  return out;
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

// eslint-disable-next-line no-control-regex -- refusing control characters is the point
const FORBIDDEN_TEXT = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/;

/**
 * Text as the studio API takes a person's text (libs/core's UserText): no C0 or C1 controls but
 * tab and line breaks, no bidirectional embedding or isolate controls, no unpaired surrogates.
 */
function isCleanText(s: string): boolean {
  return !FORBIDDEN_TEXT.test(s) && (s as unknown as { isWellFormed(): boolean }).isWellFormed();
}

/** Code points of `s`, or Infinity once clearly past `max` (a long string is never counted). */
function codePointsUpTo(s: string, max: number): number {
  if (s.length > 2 * max) return Infinity;
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

/**
 * An ISO 8601 date-time with its offset, as RFC 3339 profiles it (`2026-11-26T10:00:00.000Z`,
 * what `Date.toISOString()` writes): checked by length first, then one anchored pattern without
 * nested repetition, then the calendar.
 */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/;

function isDateTime(v: string): boolean {
  if (v.length > 40 || !DATE_TIME.test(v)) return false;
  const [year, month, day] = v.slice(0, 10).split('-').map(Number);
  const [hour, minute, second] = v.slice(11, 19).split(':').map(Number);
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return false;
  return day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}
