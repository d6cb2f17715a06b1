/** Prefix of contract section 3: embed sessions. Ids are `<prefix>_<ULID>` (IdGenerator); a prefix never changes once ids carry it. */
export const EmbedSessionIdPrefix = {
  EmbedSession: 'es',
} as const;
