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
