import { filetypeinfo } from 'magic-bytes.js';
import { ImageFormat } from './image-asset.entity';

const ACCEPTED: Record<string, ImageFormat> = { png: 'png', apng: 'png', jpg: 'jpeg', jpeg: 'jpeg', webp: 'webp' };

/**
 * Identifies a file by its signature alone, whatever its name or declared type says.
 * `other` names what was recognised instead (gif, tif, avif…) for a helpful error.
 */
export function detectImageFormat(bytes: Buffer): { format: ImageFormat } | { format: null; other: string | null } {
  const candidates = filetypeinfo(bytes.subarray(0, 64)).map((t) => t.typename.toLowerCase());
  for (const c of candidates) if (ACCEPTED[c]) return { format: ACCEPTED[c] };
  return { format: null, other: candidates[0] ?? null };
}
