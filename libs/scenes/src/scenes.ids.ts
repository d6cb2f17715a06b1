/** Prefixes of scenes and their operations (docs/api.md, "Identifiers"). Ids are `<prefix>_<ULID>` (IdGenerator); a prefix never changes once ids carry it. */
export const SceneIdPrefix = {
  Scene: 'scn',
  Operation: 'op',
} as const;
