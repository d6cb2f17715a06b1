import { openAsBlob } from 'node:fs';
import { basename } from 'node:path';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';

/** The API's upload limit (20 MiB, docs/api.md): a stream is buffered up to it, never beyond. */
export const MAX_UPLOAD_BYTES = 20 * 1024 * 1024;

/**
 * What `uploadImage` accepts: a file path (read lazily from disk while sending), bytes, a Blob,
 * or a Node or web stream (buffered up to the upload limit, since the request may be retried).
 */
export type UploadSource = string | Buffer | Uint8Array | Blob | Readable | WebReadableStream<Uint8Array>;

export interface UploadOptions {
  /** The multipart file name; defaults to the path's base name, else `upload`. The api ignores it for validation. */
  filename?: string;
  /** The declared type; the api decides by the bytes alone, whatever this says. */
  contentType?: string;
}

/** The source as a Blob that can be sent more than once, and the file name to send it under. */
export async function toUploadBlob(source: UploadSource, options: UploadOptions = {}): Promise<{ blob: Blob; filename: string }> {
  const type = options.contentType ?? 'application/octet-stream';
  if (typeof source === 'string') {
    return { blob: await openAsBlob(source, { type }), filename: options.filename ?? basename(source) };
  }
  const filename = options.filename ?? 'upload';
  if (source instanceof Blob) return { blob: options.contentType ? source.slice(0, source.size, type) : source, filename };
  // The casts are for projects that compile this with the DOM's typings (see BlobBytes); under
  // the package's own Node typings they are redundant, hence the lint exceptions.
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion
  if (source instanceof Uint8Array) return { blob: new Blob([source as BlobBytes], { type }), filename };
  const stream = source instanceof Readable ? source : Readable.fromWeb(source);
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion
  return { blob: new Blob((await collect(stream)) as BlobBytes[], { type }), filename };
}

/** The DOM's Blob typings refuse views that might sit on a SharedArrayBuffer; Node's bytes never do here. */
type BlobBytes = Uint8Array<ArrayBuffer>;

async function collect(stream: Readable): Promise<Uint8Array[]> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Uint8Array);
    size += bytes.byteLength;
    if (size > MAX_UPLOAD_BYTES) {
      stream.destroy();
      throw new RangeError(`upload stream exceeds ${MAX_UPLOAD_BYTES} bytes, the api's limit`);
    }
    chunks.push(bytes);
  }
  return chunks;
}
