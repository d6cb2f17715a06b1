import { DomainError, ErrorCode } from '@app/core';
import type { FastifyRequest } from 'fastify';

/** Room for the multipart framing around the file; anything beyond is refused before reading. */
const FRAMING_ALLOWANCE = 64 * 1024;

const tooLarge = (limit: number) =>
  new DomainError(ErrorCode.PayloadTooLarge, `The file exceeds the ${limit / (1024 * 1024)} MiB limit (${limit} bytes).`);

const fieldError = (code: string, message: string) =>
  DomainError.validation([{ field: 'file', code, message }], 'The upload must contain exactly one file part named "file".');

/**
 * Reads the one file part named `file` of a multipart request, as a stream, holding at most
 * `limit` bytes: the file is refused at `limit + 1` bytes with 413 and the rest is discarded.
 */
export async function readSingleFile(request: FastifyRequest, limit: number): Promise<Buffer> {
  if (!request.isMultipart()) {
    throw new DomainError(ErrorCode.UnsupportedMediaType, 'Send the image as multipart/form-data with a part named "file".');
  }
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit + FRAMING_ALLOWANCE) throw tooLarge(limit);

  let file: Buffer | null = null;
  try {
    const parts = request.parts({
      limits: { fileSize: limit, files: 1, fields: 20, fieldSize: 4096, parts: 21, headerPairs: 50 },
    });
    for await (const part of parts) {
      if (part.type !== 'file') continue; // text fields carry nothing we use
      if (part.fieldname !== 'file') {
        part.file.resume();
        throw fieldError('unknown_field', `Unexpected file part "${part.fieldname}"; the image goes in a part named "file".`);
      }
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of part.file as AsyncIterable<Buffer>) {
        size += chunk.length;
        chunks.push(chunk);
      }
      if (part.file.truncated) throw tooLarge(limit);
      file = Buffer.concat(chunks, size);
    }
  } catch (e) {
    if (e instanceof DomainError) throw e;
    switch ((e as { code?: string }).code) {
      case 'FST_REQ_FILE_TOO_LARGE':
        throw tooLarge(limit);
      case 'FST_FILES_LIMIT':
        throw fieldError('too_many_files', 'Send exactly one file.');
      case 'FST_PARTS_LIMIT':
      case 'FST_FIELDS_LIMIT':
        throw fieldError('too_many_parts', 'The upload has too many parts.');
      default:
        throw new DomainError(ErrorCode.BadRequest, 'The multipart body is malformed.');
    }
  }
  if (!file) throw fieldError('required', 'The upload has no file part named "file".');
  return file;
}
