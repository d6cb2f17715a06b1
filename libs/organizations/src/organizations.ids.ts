/** Prefixes of contract section 3: organizations and their API keys. Ids are `<prefix>_<ULID>` (IdGenerator); a prefix never changes once ids carry it. */
export const OrganizationIdPrefix = {
  Organization: 'org',
  ApiKey: 'key',
} as const;
