import {
  CAMERA_PATH_FORMAT,
  CAMERA_PATH_FORMAT_VERSION,
  CAMERA_PATH_LIMITS,
  cameraPathDocumentErrors,
  cameraPathRuleErrors,
  isPlainObject,
  knownFieldsOf,
  type CameraPathDocument,
  type CameraPathFieldError,
} from '@scene-studio/camera-path';

export const MAX_DURATION_MS = CAMERA_PATH_LIMITS.durationMs;
/** docs/camera-paths.md: a document holds at most this many keyframes. */
export const MAX_KEYFRAMES = CAMERA_PATH_LIMITS.keyframes;
/** Bigger files are refused before they are read: an hour of 60 fps samples is about 45 MB. */
export const MAX_FILE_BYTES = 64 * 1024 * 1024;

export type ParsedCameraPath = { ok: true; document: CameraPathDocument } | { ok: false; reason: string };

/**
 * Reads a camera-path file (docs/camera-paths.md) as the studio imports it: by the format's own
 * rules (packages/camera-path), the ones the studio API saves paths by, so a file the studio reads
 * is one it can save as a path. Refusals say why, naming the field as the studio API does
 * (`keyframes[2].quaternion`). The document returned holds only the format's fields (anything else
 * in the file is dropped), keyframes and samples copied as they were written.
 */
export function parseCameraPathFile(text: string): ParsedCameraPath {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return refuse('The file is not JSON.');
  }
  if (!isPlainObject(value)) return refuse('The file is not a camera path: it holds no JSON object.');
  // What the file is comes first: another tool's JSON deserves a plainer answer than its fields'.
  if (value.format !== CAMERA_PATH_FORMAT) {
    return refuse(`The file is not a Scene Studio camera path (its format is ${describe(value.format)}, not "${CAMERA_PATH_FORMAT}").`);
  }
  if (value.formatVersion !== CAMERA_PATH_FORMAT_VERSION) {
    return refuse(`Camera path format version ${describe(value.formatVersion)} is not one this studio reads (it reads version 1).`);
  }
  const [fieldError] = cameraPathDocumentErrors(value, { unknownFields: 'ignore', max: 1 });
  if (fieldError) return refuse(sentence(fieldError));
  const document = knownFieldsOf(value);
  const [ruleError] = cameraPathRuleErrors('path', document, { max: 1 });
  if (ruleError) return refuse(sentence(ruleError));
  return { ok: true, document };
}

function refuse(reason: string): ParsedCameraPath {
  return { ok: false, reason };
}

/**
 * An error as a sentence naming where it is: `fNumber must be at most 32` at
 * `keyframes[0].fNumber` reads `keyframes[0].fNumber must be at most 32.`
 */
function sentence({ field, message }: CameraPathFieldError): string {
  const name = field.slice(field.lastIndexOf('.') + 1);
  const text = message.startsWith(`${name} `) ? `${field}${message.slice(name.length)}` : `${field}: ${message}`;
  return `${text}.`;
}

function describe(value: unknown): string {
  // JSON.stringify gives undefined for undefined (a missing field) and functions, never in parsed JSON.
  const text = JSON.stringify(value) ?? 'missing';
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}
