/** Prefix of the studio's saved camera paths (docs/camera-paths.md). Ids are `<prefix>_<ULID>` (IdGenerator); a prefix never changes once ids carry it. */
export const CameraPathIdPrefix = {
  CameraPath: 'cam',
} as const;
