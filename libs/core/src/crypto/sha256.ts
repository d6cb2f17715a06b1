import { createHash } from 'node:crypto';

/** Lowercase hex SHA-256: the digest of stored secrets (API keys, embed secrets), uploads and request fingerprints. */
export function sha256Hex(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}
