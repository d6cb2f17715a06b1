/** Prefixes of organizations and their API keys (docs/api.md, "Identifiers"). Ids are `<prefix>_<ULID>` (IdGenerator); a prefix never changes once ids carry it. */
export const OrganizationIdPrefix = {
  Organization: 'org',
  ApiKey: 'key',
} as const;
