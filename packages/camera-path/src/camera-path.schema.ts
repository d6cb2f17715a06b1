/**
 * The camera-path file, `scene-studio.camera-path` format version 1 (docs/camera-paths.md, "The
 * file"), written once: its fields, their types and their limits. The studio server validates
 * saved paths with it (libs/camera-paths, through `cameraPathDocumentErrors`), the studio page
 * imports and exports files with it (apps/studio-web/src/model), and the studio's OpenAPI
 * document describes the body with it (`cameraPathDocumentJsonSchema`). Plain TypeScript: no
 * Nest, no DOM, no three.js, so both sides may import it at run time.
 */

export const CAMERA_PATH_FORMAT = 'scene-studio.camera-path';
export const CAMERA_PATH_FORMAT_VERSION = 1;

/**
 * The bounds of saved camera paths (docs/camera-paths.md, "Limits"). Samples bound a recorded
 * take: 20 000 is 5 min 33 s at 60 frames per second (11 min at 30), and at most about 6.6 MB
 * of JSON even with every number at full double precision, so the studio's body limit for these
 * routes (apps/studio, 8 MiB) holds any document these allow.
 */
export const CAMERA_PATH_LIMITS = {
  /** Saved paths and views of one scene, together. */
  perScene: 200,
  samples: 20_000,
  /** docs/camera-paths.md, "The file": at most 1 000. */
  keyframes: 1_000,
  markers: 1_000,
  durationMs: 3_600_000,
  nameLength: 60,
  markerLabelLength: 60,
} as const;

/** A quaternion is a rotation when its length is 1 within this (the file format's rule). */
export const UNIT_QUATERNION_TOLERANCE = 1e-3;

/** Positions are in metres, within ±100 km of the origin. */
export const POSITION_BOUND_M = 100_000;

export const KEYFRAME_EASINGS = ['linear', 'ease-in', 'ease-out', 'ease-in-out', 'hold'] as const;
export type KeyframeEasing = (typeof KEYFRAME_EASINGS)[number];

/** What a saved path is: a move (a take or keyframes) or a view (one keyframe). */
export const CAMERA_PATH_KINDS = ['path', 'view'] as const;
export type CameraPathKind = (typeof CAMERA_PATH_KINDS)[number];

/** From `min` to `max`; `exclusive`: strictly between them. */
export interface NumberRange {
  min: number;
  max: number;
  exclusive?: boolean;
}

/** The ranges of a pose's numbers. */
export const POSE_RANGES = {
  t: { min: 0, max: CAMERA_PATH_LIMITS.durationMs },
  focalLengthMm: { min: 12, max: 200 },
  focusDistanceM: { min: 0.1, max: 10_000 },
  fNumber: { min: 1, max: 32 },
  rollDeg: { min: -180, max: 180 },
  verticalFovDeg: { min: 0, max: 180, exclusive: true },
} as const satisfies Record<string, NumberRange>;

export type Vec3 = [number, number, number];
export type Quaternion = [number, number, number, number];

/** One field of the format: its type and its limits. `optional`: may be left out (never null). */
export type FieldSchema = (
  | { type: 'number'; range: NumberRange }
  | { type: 'integer'; min: number; max: number }
  | { type: 'tuple'; length: number; bound?: number }
  | { type: 'literal'; value: string | number }
  | { type: 'oneOf'; values: readonly string[] }
  /** Text a person wrote, up to `maxCodePoints` (no control or bidirectional characters). */
  | { type: 'text'; maxCodePoints: number }
  /** Printable ASCII up to `maxLength` characters, as a media type is. */
  | { type: 'ascii'; maxLength: number }
  /** An ISO 8601 date-time with its offset, as RFC 3339 profiles it. */
  | { type: 'dateTime' }
  | { type: 'object'; fields: ObjectSchema }
  | { type: 'list'; max: number; items: ObjectSchema }
) & { optional?: true; nullable?: true; description?: string };

export type ObjectSchema = Readonly<Record<string, FieldSchema>>;

// Typed narrowly (not as FieldSchema), so that the value types below are read off the schema.
const number = (range: NumberRange, description?: string) => ({ type: 'number' as const, range, description });
const position = { type: 'tuple', length: 3, bound: POSITION_BOUND_M, description: 'Metres, glTF axes: [x, y, z].' } as const;
const quaternion = { type: 'tuple', length: 4, description: 'The camera\u2019s rotation, [x, y, z, w], of unit length.' } as const;

/** What samples and keyframes share: where the camera is, where it looks, and its lens. */
const POSE_FIELDS = {
  t: number(POSE_RANGES.t, 'Milliseconds from the start.'),
  position,
  quaternion,
  focalLengthMm: number(POSE_RANGES.focalLengthMm),
  focusDistanceM: number(POSE_RANGES.focusDistanceM),
  fNumber: number(POSE_RANGES.fNumber),
  rollDeg: number(POSE_RANGES.rollDeg),
} as const satisfies ObjectSchema;

export const SAMPLE_SCHEMA = { ...POSE_FIELDS, verticalFovDeg: number(POSE_RANGES.verticalFovDeg) } as const satisfies ObjectSchema;

export const KEYFRAME_SCHEMA = {
  ...POSE_FIELDS,
  easing: { type: 'oneOf', values: KEYFRAME_EASINGS, description: 'How the move leaves this keyframe.' },
} as const satisfies ObjectSchema;

export const MARKER_SCHEMA = {
  t: number(POSE_RANGES.t),
  label: { type: 'text', maxCodePoints: CAMERA_PATH_LIMITS.markerLabelLength },
  position,
  quaternion,
} as const satisfies ObjectSchema;

/** The whole document; docs/camera-paths.md says what each field means. */
export const CAMERA_PATH_DOCUMENT_SCHEMA = {
  format: { type: 'literal', value: CAMERA_PATH_FORMAT },
  formatVersion: { type: 'literal', value: CAMERA_PATH_FORMAT_VERSION },
  sceneVersion: { type: 'integer', min: 1, max: 2_147_483_647, nullable: true, description: 'The scene version it was made on, or null.' },
  recordedAt: { type: 'dateTime' },
  durationMs: number({ min: 0, max: CAMERA_PATH_LIMITS.durationMs }),
  video: {
    type: 'object',
    fields: {
      mimeType: { type: 'ascii', maxLength: 255, description: 'The take\u2019s video type, "" for an authored move.' },
      aspect: number({ min: 0.1, max: 10 }, 'The frame\u2019s width over height.'),
    },
  },
  coordinateSystem: {
    type: 'literal',
    value: 'gltf',
    description: 'glTF conventions: metres, +Y up, right-handed; the camera looks down its local \u2212Z.',
  },
  sensor: {
    type: 'object',
    fields: {
      widthMm: number({ min: 1, max: 100 }),
      heightMm: number({ min: 1, max: 100 }),
      filmGaugeMm: number({ min: 1, max: 100 }),
    },
  },
  samples: { type: 'list', max: CAMERA_PATH_LIMITS.samples, items: SAMPLE_SCHEMA },
  markers: { type: 'list', max: CAMERA_PATH_LIMITS.markers, items: MARKER_SCHEMA },
  keyframes: {
    type: 'list',
    max: CAMERA_PATH_LIMITS.keyframes,
    items: KEYFRAME_SCHEMA,
    optional: true,
    description: 'An authored move\u2019s keyframes: when present they are the move (samples are a baked copy).',
  },
  smoothing: {
    ...number({ min: 0, max: 1 }, '0 (straight lines between keyframes) to 1 (a smooth curve through them).'),
    optional: true,
  },
} as const satisfies ObjectSchema;

/** The value a field holds, read off its schema. */
type FieldValue<F> = F extends { type: 'number' | 'integer' }
  ? number
  : F extends { type: 'tuple'; length: 3 }
    ? Vec3
    : F extends { type: 'tuple'; length: 4 }
      ? Quaternion
      : F extends { type: 'literal'; value: infer V }
        ? V
        : F extends { type: 'oneOf'; values: readonly (infer V)[] }
          ? V
          : F extends { type: 'text' | 'ascii' | 'dateTime' }
            ? string
            : F extends { type: 'object'; fields: infer O }
              ? SchemaValue<O>
              : F extends { type: 'list'; items: infer O }
                ? SchemaValue<O>[]
                : never;
type NullableValue<F> = F extends { nullable: true } ? FieldValue<F> | null : FieldValue<F>;
type Flatten<T> = { [K in keyof T]: T[K] };

/**
 * The object a schema describes: each field's value, `?` where it is optional. The format's types
 * are read off its schema this way, so neither can gain a field or change a type alone.
 */
export type SchemaValue<S> = Flatten<
  { -readonly [K in keyof S as S[K] extends { optional: true } ? never : K]: NullableValue<S[K]> } & {
    -readonly [K in keyof S as S[K] extends { optional: true } ? K : never]?: NullableValue<S[K]>;
  }
>;

/** One recorded frame of a take: a pose, its lens and the frame's vertical angle. */
export type CameraPathSample = SchemaValue<typeof SAMPLE_SCHEMA>;
/** An authored keyframe: a pose at a time, and how the move leaves it. */
export type CameraPathKeyframe = SchemaValue<typeof KEYFRAME_SCHEMA>;
export type CameraPathMarker = SchemaValue<typeof MARKER_SCHEMA>;
/**
 * The camera path file: enough to re-create the move elsewhere. `coordinateSystem`: glTF
 * conventions (metres, +Y up, right-handed; the camera looks down its local −Z); `keyframes`, when
 * present, are the move (samples are a baked copy); `smoothing` 0 (straight lines between
 * keyframes) to 1 (a smooth curve through them).
 */
export type CameraPathDocument = SchemaValue<typeof CAMERA_PATH_DOCUMENT_SCHEMA>;

type JsonSchema = Record<string, unknown>;

/**
 * The schema above as JSON Schema (OpenAPI 3.1), for the studio API's document: what its
 * generated types (apps/studio-web/src/api/generated) and readers of the API see.
 */
export function cameraPathDocumentJsonSchema(): JsonSchema {
  return objectJsonSchema(CAMERA_PATH_DOCUMENT_SCHEMA);
}

function objectJsonSchema(fields: ObjectSchema): JsonSchema {
  return {
    type: 'object',
    additionalProperties: false,
    required: Object.entries(fields)
      .filter(([, f]) => !f.optional)
      .map(([key]) => key),
    properties: Object.fromEntries(Object.entries(fields).map(([key, f]) => [key, fieldJsonSchema(f)])),
  };
}

function fieldJsonSchema(field: FieldSchema): JsonSchema {
  const schema = ((): JsonSchema => {
    switch (field.type) {
      case 'number':
        return field.range.exclusive
          ? { type: 'number', exclusiveMinimum: field.range.min, exclusiveMaximum: field.range.max }
          : { type: 'number', minimum: field.range.min, maximum: field.range.max };
      case 'integer':
        return { type: field.nullable ? ['integer', 'null'] : 'integer', minimum: field.min, maximum: field.max };
      case 'tuple': {
        const item = field.bound === undefined ? { type: 'number' } : { type: 'number', minimum: -field.bound, maximum: field.bound };
        return { type: 'array', prefixItems: Array.from({ length: field.length }, () => item), items: false, minItems: field.length };
      }
      case 'literal':
        return { type: typeof field.value, const: field.value };
      case 'oneOf':
        return { type: 'string', enum: [...field.values] };
      case 'text':
        return { type: 'string', maxLength: field.maxCodePoints };
      case 'ascii':
        return { type: 'string', maxLength: field.maxLength, pattern: '^[\\x20-\\x7e]*$' };
      case 'dateTime':
        return { type: 'string', format: 'date-time' };
      case 'object':
        return objectJsonSchema(field.fields);
      case 'list':
        return { type: 'array', maxItems: field.max, items: objectJsonSchema(field.items) };
    }
  })();
  return field.description ? { ...schema, description: field.description } : schema;
}
