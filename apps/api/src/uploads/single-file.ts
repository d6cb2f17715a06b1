import { discardUnreadBody, DomainError, ErrorCode } from '@app/core';
import { format as formatContentType, parse as parseContentType } from 'content-type';
import type { Request, Response } from 'express';
import multer, { MulterError } from 'multer';
import type { IncomingHttpHeaders } from 'node:http';
import { PassThrough } from 'node:stream';

/** Room for the multipart framing around the file; anything beyond is refused before reading. */
const FRAMING_ALLOWANCE = 64 * 1024;

/** RFC 2046's boundary: 1 to 70 of its characters, not ending in a space. */
const BOUNDARY = /^[0-9A-Za-z'()+_,\-./:=? ]{0,69}[0-9A-Za-z'()+_,\-./:=?]$/;

const tooLarge = (limit: number) =>
  new DomainError(ErrorCode.PayloadTooLarge, `The file exceeds the ${limit / (1024 * 1024)} MiB limit (${limit} bytes).`);

const timedOut = (detail: string) => new DomainError(ErrorCode.RequestTimeout, detail);

const malformed = () => new DomainError(ErrorCode.BadRequest, 'The multipart body is malformed.');

export const clientGone = () => new DomainError(ErrorCode.BadRequest, 'The client closed the request before its end.');

/** How long an upload's body may pause, and take in all, once it has a slot. */
export interface UploadTimeouts {
  idleMs: number;
  totalMs: number;
}

/** An upload request that passed `checkUploadRequest`: its Content-Type in one canonical spelling. */
export interface UploadRequest {
  contentType: string;
}

const fieldError = (code: string, message: string, field = 'file') =>
  DomainError.validation([{ field, code, message }], 'The upload must contain exactly one file part named "file".');

/**
 * What an upload must look like before it may wait for a slot: multipart/form-data with a
 * Content-Type that parses (RFC 9110) and a boundary of RFC 2046's shape, not declared larger
 * than the file limit plus framing (refused without reading a byte of it).
 *
 * The Content-Type is checked strictly and handed on canonical because three parsers read it:
 * Express's, multer's (an older type-is, which skips a body whose header it cannot parse and then
 * reports success without a file) and busboy's. One spelling that all three read alike leaves no
 * header that one of them accepts and another ignores.
 */
export function checkUploadRequest(request: Request, limit: number): UploadRequest {
  if (!request.is('multipart/form-data')) {
    throw new DomainError(ErrorCode.UnsupportedMediaType, 'Send the image as multipart/form-data with a part named "file".');
  }
  let boundary: string | undefined;
  try {
    boundary = parseContentType(request.headers['content-type'] ?? '').parameters.boundary;
  } catch {
    boundary = undefined;
  }
  if (boundary === undefined || !BOUNDARY.test(boundary)) {
    throw new DomainError(
      ErrorCode.BadRequest,
      'The Content-Type must be multipart/form-data; boundary=<1 to 70 characters of RFC 2046>, with well-formed parameters.',
    );
  }
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit + FRAMING_ALLOWANCE) throw tooLarge(limit);
  return { contentType: formatContentType({ type: 'multipart/form-data', parameters: { boundary } }) };
}

/**
 * What multer reads instead of the request: the same headers (the Content-Type canonical), the
 * same bytes up to `cap`. multer reads a failed request to its very end before it reports the
 * error, which an endless chunked body turns into a stalled slot; this stand-in ends the moment
 * multer gives up or the body passes the cap, and leaves the rest of the request unread.
 *
 * Its life is `readSingleFile`'s: `detach` runs in that function's `finally` whichever way the
 * parse ends, so its timers and its listeners on the request never outlive the call.
 */
class UploadBody extends PassThrough {
  readonly headers: IncomingHttpHeaders;
  private received = 0;
  private readonly idleTimer: NodeJS.Timeout;
  private readonly totalTimer: NodeJS.Timeout;

  constructor(
    private readonly request: Request,
    contentType: string,
    private readonly cap: number,
    private readonly limit: number,
    timeouts: UploadTimeouts,
  ) {
    super();
    this.headers = { ...request.headers, 'content-type': contentType };
    // Its errors (a timeout, the cap, the client gone) reach multer through multer's own listener
    // while multer parses. An error after that, or when multer never started, has no one else to
    // hear it, and an 'error' event nobody hears ends the process: this listener is always there.
    // Nothing is lost by it: readSingleFile reports the outcome multer saw.
    this.on('error', () => undefined);
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
    // The client may have gone while the upload waited for its slot: its 'close' is past.
    if (request.destroyed) this.requestClosed();
  }

  /** Stops reading the request; whatever multer still waits for ends now. Safe to call again. */
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
    if (!this.request.complete) this.detach(clientGone());
  };
}

/** Reads `body` with multer; resolves to whether multer read it at all (it skips what it does not take for multipart). */
function parseWithMulter(body: UploadBody, response: Response, limit: number): Promise<boolean> {
  let started = false;
  const parse = multer({
    storage: multer.memoryStorage(),
    limits: { fileSize: limit, files: 1, fields: 20, fieldSize: 4096, parts: 21, headerPairs: 50 },
    // multer unpipes the body when it is done, successful or not: then the stand-in ends too.
    streamHandler: (stand: UploadBody, busboy: NodeJS.WritableStream) => {
      started = true;
      busboy.once('unpipe', () => stand.detach());
      stand.pipe(busboy);
    },
  } as multer.Options).single('file');
  return new Promise<boolean>((resolve, reject) =>
    // multer reports its failures as Error objects (MulterError and the stream's own).
    parse(body as unknown as Request, response, (error?: unknown) =>
      error ? reject(error instanceof Error ? error : new Error('upload parse failed')) : resolve(started),
    ),
  );
}

/**
 * Reads the one file part named `file` of a multipart request with multer, holding at most
 * `limit` bytes: the file is refused at `limit + 1` bytes with 413 and the rest of the request is
 * not read. Text fields are ignored.
 */
export async function readSingleFile(
  request: Request,
  response: Response,
  upload: UploadRequest,
  limit: number,
  timeouts: UploadTimeouts,
): Promise<Buffer> {
  const body = new UploadBody(request, upload.contentType, limit + FRAMING_ALLOWANCE, limit, timeouts);
  let read: boolean;
  try {
    read = await parseWithMulter(body, response, limit);
  } catch (e) {
    throw toDomainError(e, limit);
  } finally {
    body.detach();
  }
  if (!read) throw malformed();
  // Anything after the closing boundary (an epilogue) is read and dropped, within bounds, so the
  // connection can be reused.
  discardUnreadBody(request);
  const file = (body as unknown as Request).file;
  if (!file) throw fieldError('required', 'The upload has no file part named "file".');
  return file.buffer;
}

/** multer's and busboy's errors as our codes (docs/api.md, `POST /v1/image-assets`). */
function toDomainError(e: unknown, limit: number): DomainError {
  if (e instanceof DomainError) return e;
  if (!(e instanceof MulterError)) return malformed();
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
      return malformed();
  }
}
