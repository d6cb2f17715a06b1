import { FieldError, MAX_FIELD_ERRORS } from '@app/core';
import { UNIT_QUATERNION_TOLERANCE } from './camera-path-limits';
import type { CameraPathDocumentDto } from './dto/camera-path-document.dto';
import type { CameraPathKind } from './dto/camera-path.dto';

type Timed = { t: number };
type Oriented = { quaternion: number[] };

/**
 * The rules of docs/camera-paths.md that span fields, checked once the document's fields are
 * each valid (the DTO): samples' `t` ascending, keyframes' `t` ascending and distinct, unit
 * quaternions (samples, keyframes, markers), a duration that covers the last sample and keyframe,
 * and what each kind holds — a view exactly one keyframe and no duration, a path at least two
 * keyframes or one sample. Field paths are the request's (`document.keyframes[2].quaternion`).
 */
export function documentErrors(kind: CameraPathKind, doc: CameraPathDocumentDto): FieldError[] {
  const errors: FieldError[] = [];
  const add = (field: string, code: string, message: string) => {
    if (errors.length < MAX_FIELD_ERRORS) errors.push({ field, code, message });
  };
  const keyframes = doc.keyframes ?? [];

  checkOrder(doc.samples, 'document.samples', false, add);
  checkOrder(keyframes, 'document.keyframes', true, add);
  for (const [name, items] of [
    ['samples', doc.samples],
    ['keyframes', keyframes],
    ['markers', doc.markers],
  ] as const) {
    checkQuaternions(items, `document.${name}`, add);
  }

  const lastT = Math.max(doc.samples.at(-1)?.t ?? 0, keyframes.at(-1)?.t ?? 0);
  if (doc.durationMs < lastT) {
    add('document.durationMs', 'too_small', `durationMs must be at least the last sample's and the last keyframe's t (${lastT})`);
  }

  if (kind === 'view') {
    if (keyframes.length !== 1) add('document.keyframes', 'invalid_count', 'a view holds exactly one keyframe');
    if (doc.durationMs !== 0) add('document.durationMs', 'invalid_value', 'a view lasts 0 ms');
  } else if (keyframes.length < 2 && doc.samples.length === 0) {
    add('document.keyframes', 'invalid_count', 'a path holds at least two keyframes or at least one sample');
  }
  return errors;
}

/** Ascending `t`; `distinct` also refuses two items at the same time. Reports each item out of order. */
function checkOrder(items: readonly Timed[], field: string, distinct: boolean, add: (f: string, c: string, m: string) => void): void {
  for (let i = 1; i < items.length; i++) {
    const before = items[i - 1].t;
    const t = items[i].t;
    if (t < before || (distinct && t === before)) {
      add(`${field}[${i}].t`, 'not_ascending', `t must be ${distinct ? 'after' : 'at or after'} the previous item's t (${before})`);
    }
  }
}

function checkQuaternions(items: readonly Oriented[], field: string, add: (f: string, c: string, m: string) => void): void {
  for (let i = 0; i < items.length; i++) {
    if (!isUnitQuaternion(items[i].quaternion)) {
      add(`${field}[${i}].quaternion`, 'not_unit', `quaternion must have length 1 (within ${UNIT_QUATERNION_TOLERANCE})`);
    }
  }
}

export function isUnitQuaternion(q: readonly number[]): boolean {
  return Math.abs(Math.hypot(...q) - 1) <= UNIT_QUATERNION_TOLERANCE;
}

/** What the list shows of a document, kept in columns so listing never reads documents. */
export function summaryOf(doc: CameraPathDocumentDto): { durationMs: number; keyframeCount: number; sampleCount: number } {
  return { durationMs: doc.durationMs, keyframeCount: doc.keyframes?.length ?? 0, sampleCount: doc.samples.length };
}
