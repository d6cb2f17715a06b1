/** The prefix of operations (docs/api.md, "Identifiers"). Ids are `<prefix>_<ULID>` (IdGenerator); a prefix never changes once ids carry it. */
export const OperationIdPrefix = {
  Operation: 'op',
} as const;
