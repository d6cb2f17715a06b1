import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** Incoming ids are echoed only when short and made of characters safe in logs and headers. */
export const SAFE_REQUEST_ID = /^[A-Za-z0-9._:~-]{1,128}$/;

export function requestIdFor(req: IncomingMessage): string {
  const incoming = req.headers['x-request-id'];
  return typeof incoming === 'string' && SAFE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
}
