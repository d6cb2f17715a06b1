/** Prefixes of contract section 3: webhook endpoints and messages. Ids are `<prefix>_<ULID>` (IdGenerator); a prefix never changes once ids carry it. */
export const WebhookIdPrefix = {
  Endpoint: 'whe',
  Message: 'msg',
} as const;
