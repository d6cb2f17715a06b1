/** The prefix of scenes (docs/api.md, "Identifiers"). Ids are `<prefix>_<ULID>` (IdGenerator); a prefix never changes once ids carry it. */
export const SceneIdPrefix = {
  Scene: 'scn',
} as const;
