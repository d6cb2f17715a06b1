/** Prefixes of webhook endpoints and messages (docs/api.md, "Identifiers"). Ids are `<prefix>_<ULID>` (IdGenerator); a prefix never changes once ids carry it. */
export const WebhookIdPrefix = {
  Endpoint: 'whe',
  Message: 'msg',
} as const;
