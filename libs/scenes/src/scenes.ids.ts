/** Prefixes of contract section 3: scenes and their operations. Ids are `<prefix>_<ULID>` (IdGenerator); a prefix never changes once ids carry it. */
export const SceneIdPrefix = {
  Scene: 'scn',
  Operation: 'op',
} as const;
