/** Prefix of embed sessions (docs/api.md, "Identifiers"). Ids are `<prefix>_<ULID>` (IdGenerator); a prefix never changes once ids carry it. */
export const EmbedSessionIdPrefix = {
  EmbedSession: 'es',
} as const;
