import { DomainError, ErrorCode } from '@app/core';
import type { Request, Response } from 'express';
import multer, { MulterError } from 'multer';
import type { IncomingHttpHeaders } from 'node:http';
import { PassThrough } from 'node:stream';

/** Room for the multipart framing around the file; anything beyond is refused before reading. */
const FRAMING_ALLOWANCE = 64 * 1024;

const tooLarge = (limit: number) =>
  new DomainError(ErrorCode.PayloadTooLarge, `The file exceeds the ${limit / (1024 * 1024)} MiB limit (${limit} bytes).`);

const timedOut = (detail: string) => new DomainError(ErrorCode.RequestTimeout, detail);

/** How long an upload's body may pause, and take in all, once it has a slot. */
export interface UploadTimeouts {
  idleMs: number;
  totalMs: number;
}

const fieldError = (code: string, message: string, field = 'file') =>
  DomainError.validation([{ field, code, message }], 'The upload must contain exactly one file part named "file".');

/**
 * What an upload must look like before it may wait for a slot: multipart, and not declared
 * larger than the file limit plus framing (refused without reading a byte of it).
 */
export function assertUploadRequest(request: Request, limit: number): void {
  if (!request.is('multipart/form-data')) {
    throw new DomainError(ErrorCode.UnsupportedMediaType, 'Send the image as multipart/form-data with a part named "file".');
  }
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit + FRAMING_ALLOWANCE) throw tooLarge(limit);
}

/**
 * What multer reads instead of the request: the same headers, the same bytes up to `cap`.
 * multer reads a failed request to its very end before it reports the error, which an endless
 * chunked body turns into a stalled slot; this stand-in ends the moment multer gives up or the
 * body passes the cap, and leaves the rest of the request unread.
 */
class UploadBody extends PassThrough {
  readonly headers: IncomingHttpHeaders;
  private received = 0;
  private readonly idleTimer: NodeJS.Timeout;
  private readonly totalTimer: NodeJS.Timeout;

  constructor(
    private readonly request: Request,
    private readonly cap: number,
    private readonly limit: number,
    timeouts: UploadTimeouts,
  ) {
    super();
    this.headers = request.headers;
    // A body that stops arriving, or arrives too slowly, gives its slot back.
    this.idleTimer = setTimeout(
      () => this.detach(timedOut(`No part of the upload arrived for ${timeouts.idleMs / 1000} s.`)),
      timeouts.idleMs,
    );
    this.totalTimer = setTimeout(
      () => this.detach(timedOut(`The upload did not arrive within ${timeouts.totalMs / 1000} s.`)),
      timeouts.totalMs,
    );
    request.on('data', this.count);
    request.on('error', this.fail);
    request.on('close', this.requestClosed);
    request.pipe(this);
  }

  /** Stops reading the request; whatever multer still waits for ends now. */
  detach(error?: Error): void {
    clearTimeout(this.idleTimer);
    clearTimeout(this.totalTimer);
    this.request.unpipe(this);
    this.request.off('data', this.count);
    this.request.off('error', this.fail);
    this.request.off('close', this.requestClosed);
    if (!this.destroyed) this.destroy(error);
  }

  private readonly count = (chunk: Buffer): void => {
    this.idleTimer.refresh();
    this.received += chunk.length;
    if (this.received > this.cap) this.detach(tooLarge(this.limit));
  };

  private readonly fail = (error: Error): void => this.detach(error);

  private readonly requestClosed = (): void => {
    if (!this.request.complete) this.detach(new Error('The client closed the request before its end.'));
  };
}

const parseUpload = (limit: number) =>
  multer({
    storage: multer.memoryStorage(),
    limits: { fileSize: limit, files: 1, fields: 20, fieldSize: 4096, parts: 21, headerPairs: 50 },
    // multer unpipes the body when it is done, successful or not: then the stand-in ends too.
    streamHandler: (body: UploadBody, busboy: NodeJS.WritableStream) => {
      busboy.once('unpipe', () => body.detach());
      body.pipe(busboy);
    },
  } as multer.Options).single('file');

/**
 * Reads the one file part named `file` of a multipart request with multer, holding at most
 * `limit` bytes: the file is refused at `limit + 1` bytes with 413 and the rest of the request is
 * not read. Text fields are ignored.
 */
export async function readSingleFile(request: Request, response: Response, limit: number, timeouts: UploadTimeouts): Promise<Buffer> {
  const body = new UploadBody(request, limit + FRAMING_ALLOWANCE, limit, timeouts);
  const parse = parseUpload(limit);
  const stand = body as unknown as Request;
  try {
    await new Promise<void>((resolve, reject) =>
      // multer reports its failures as Error objects (MulterError and the stream's own).
      parse(stand, response, (error?: unknown) =>
        error ? reject(error instanceof Error ? error : new Error('upload parse failed')) : resolve(),
      ),
    );
  } catch (e) {
    body.detach();
    throw toDomainError(e, limit);
  }
  // Anything after the closing boundary (an epilogue) is discarded, so the connection can be reused.
  if (!request.complete) request.resume();
  if (!stand.file) throw fieldError('required', 'The upload has no file part named "file".');
  return stand.file.buffer;
}

/** multer's and busboy's errors in the contract's words. */
function toDomainError(e: unknown, limit: number): DomainError {
  if (e instanceof DomainError) return e;
  if (!(e instanceof MulterError)) return new DomainError(ErrorCode.BadRequest, 'The multipart body is malformed.');
  switch (e.code) {
    case 'LIMIT_FILE_SIZE':
      return tooLarge(limit);
    case 'LIMIT_FILE_COUNT':
      return fieldError('too_many_files', 'Send exactly one file.');
    case 'LIMIT_UNEXPECTED_FILE':
      return e.field === 'file'
        ? fieldError('too_many_files', 'Send exactly one file.')
        : fieldError('unknown_field', `Unexpected file part "${String(e.field).slice(0, 64)}"; the image goes in a part named "file".`);
    case 'LIMIT_PART_COUNT':
    case 'LIMIT_FIELD_COUNT':
      return fieldError('too_many_parts', 'The upload has too many parts.');
    case 'LIMIT_FIELD_KEY':
    case 'LIMIT_FIELD_VALUE':
      return fieldError('too_long', 'A text part of the upload is too long (names up to 100, values up to 4096 bytes).');
    default:
      return new DomainError(ErrorCode.BadRequest, 'The multipart body is malformed.');
  }
}
