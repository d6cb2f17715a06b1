import { FieldError, MAX_FIELD_ERRORS } from '@app/core';
import { cameraPathRuleErrors, type CameraPathDocument, type CameraPathKind } from '@scene-studio/camera-path';

/**
 * The rules of docs/camera-paths.md that span fields (packages/camera-path, `cameraPathRuleErrors`),
 * checked once the document's fields are each valid: field paths are the request's
 * (`document.keyframes[2].quaternion`).
 */
export function documentErrors(kind: CameraPathKind, doc: CameraPathDocument): FieldError[] {
  return cameraPathRuleErrors(kind, doc, { at: 'document', max: MAX_FIELD_ERRORS });
}

/** What the list shows of a document, kept in columns so listing never reads documents. */
export function summaryOf(doc: CameraPathDocument): { durationMs: number; keyframeCount: number; sampleCount: number } {
  return { durationMs: doc.durationMs, keyframeCount: doc.keyframes?.length ?? 0, sampleCount: doc.samples.length };
}
