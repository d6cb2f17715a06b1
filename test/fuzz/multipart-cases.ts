import { lingerBudget } from '@app/core';
import fc from 'fast-check';

/**
 * Hostile uploads for `POST /v1/image-assets`, as fast-check arbitraries: whole HTTP requests
 * written byte by byte to a socket, so nothing on the client side tidies them up. Each case is
 * built from a shape (who asks, the Content-Type, the multipart body, its framing, how it is
 * delivered and how the client ends) and carries what docs/api.md says the answer must be, as
 * far as the shape decides it.
 */

/** What the answer must be. */
export type Expectation =
  /** Exactly this status (and, for a refusal, this problem code when one is given). */
  | { kind: 'status'; status: number; code?: string }
  /** A refusal: some documented 4xx problem. */
  | { kind: 'problem' }
  /** 201 or a 4xx problem: which one depends on timing (a stall while the upload waits unread for a slot) or on what a mutation hit. */
  | { kind: 'answered' }
  /** The client reset or closed the connection before its end: nothing to read, the server just must not suffer. */
  | { kind: 'none' }
  /**
   * The client half-closed (FIN) after its whole request: Node aborts a request whose client
   * ends its side before the answer (its http server does not allow half-open connections), so
   * an answer may not come; one that does obeys `then`. Aborting destroys the request with
   * whatever of its body the route had not read yet (an upload parsing slower than it arrives,
   * on a busy machine): a body the route reads is then refused (400) rather than stored.
   */
  | { kind: 'optional'; then: Expectation };

export interface UploadCase {
  /** What was generated, for failure messages. */
  label: string;
  /** The request's bytes, written in this order, each followed by its pause. */
  writes: Array<{ bytes: Buffer; pauseMs: number }>;
  /** After the last write: wait for the answer, half-close (FIN) and wait, or go away. */
  end: 'wait' | 'half-close' | 'reset' | 'close';
  expect: Expectation;
}

export interface CaseContext {
  apiKey: string;
  /** Small valid PNG, JPEG and WebP files. */
  images: Buffer[];
  /**
   * Files crafted to smuggle bytes past the metadata walkers or to break them
   * (test/factories/crafted-images.ts), each with the status its upload must get: 201 (stored
   * without what was planted) or 422 `image_corrupt`.
   */
  crafted: { bytes: Buffer; status: 201 | 422 }[];
  /** A pause longer than the api's UPLOAD_IDLE_TIMEOUT_SECONDS. */
  stallMs: number;
}

const CRLF = '\r\n';
const TSPECIALS = /[()<>@,;:\\"/[\]?=\s]/;
const BOUNDARY_CHARS = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'()+_,-./:=?".split('');

type Auth = 'valid' | 'missing' | 'unknown-key' | 'not-bearer';
type ContentTypeShape =
  | { kind: 'ok'; spelling: 'plain' | 'quoted' | 'charset-first' | 'upper-case' | 'spaces' }
  | { kind: 'bad-boundary'; variant: 'trailing-semicolon' | 'none' | 'too-long' | 'illegal-char' | 'empty' | 'unquoted-special' }
  | { kind: 'json' }
  | { kind: 'other'; value: string };
type Framing =
  'length' | 'chunked' | 'length-short' | 'length-long' | 'chunked-bad-size' | 'chunked-unterminated' | 'both' | 'huge-declared';
type Ending = 'complete-wait' | 'complete-half-close' | 'complete-reset' | 'cut-wait' | 'cut-half-close' | 'cut-reset' | 'cut-close';

interface PartShape {
  name: 'file' | 'other-file' | 'text' | 'no-name' | 'no-disposition' | 'garbage-disposition' | 'weird-name';
  content: 'image' | 'crafted' | 'random' | 'json' | 'nested' | 'boundary-inside' | 'empty';
  contentType: 'image' | 'octet' | 'none' | 'nested-multipart' | 'garbage';
  extraHeaders: number;
  hugeHeader: boolean;
  imageIndex: number;
  random: Uint8Array;
  text: string;
}

interface BodyShape {
  parts: PartShape[];
  preamble: string;
  epilogue: string;
  closing: 'ok' | 'missing' | 'no-crlf' | 'wrong-boundary' | 'dashes-only';
  delimiter: 'same' | 'mismatch' | 'padded';
  lineEnding: 'crlf' | 'lf';
  mutation: null | { at: number; kind: 'flip' | 'insert' | 'delete'; byte: number };
}

interface Shape {
  auth: Auth;
  contentType: ContentTypeShape;
  boundary: string;
  body: BodyShape;
  framing: Framing;
  splits: number[];
  pauses: number[];
  stallAt: number | null;
  ending: Ending;
  cutAt: number;
}

const boundaryArb = fc.oneof(
  // Long enough never to occur inside an image by chance.
  { arbitrary: fc.string({ unit: fc.constantFrom(...BOUNDARY_CHARS), minLength: 12, maxLength: 60 }).map((s) => `fz${s}`), weight: 8 },
  { arbitrary: fc.constantFrom('----WebKitFormBoundary7MA4YWxkTrZu0gW', '------------------------d74496d66958873e', 'a b c'), weight: 2 },
  { arbitrary: fc.string({ unit: fc.constantFrom(...BOUNDARY_CHARS), minLength: 1, maxLength: 3 }), weight: 1 },
);

const partArb: fc.Arbitrary<PartShape> = fc.record({
  name: fc.oneof(
    { arbitrary: fc.constant('file' as const), weight: 6 },
    {
      arbitrary: fc.constantFrom('other-file', 'text', 'no-name', 'no-disposition', 'garbage-disposition', 'weird-name' as const),
      weight: 3,
    },
  ),
  content: fc.oneof(
    { arbitrary: fc.constant('image' as const), weight: 6 },
    { arbitrary: fc.constant('crafted' as const), weight: 2 },
    { arbitrary: fc.constantFrom('random', 'json', 'nested', 'boundary-inside', 'empty' as const), weight: 3 },
  ),
  contentType: fc.constantFrom('image', 'octet', 'none', 'nested-multipart', 'garbage' as const),
  extraHeaders: fc.oneof({ arbitrary: fc.integer({ min: 0, max: 3 }), weight: 9 }, { arbitrary: fc.constant(60), weight: 1 }),
  hugeHeader: fc.oneof({ arbitrary: fc.constant(false), weight: 19 }, { arbitrary: fc.constant(true), weight: 1 }),
  imageIndex: fc.nat(),
  random: fc.uint8Array({ maxLength: 600 }),
  text: fc.oneof(
    fc.string({ maxLength: 40 }),
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.constantFrom('a'.repeat(5000), '\u0000', '%0D%0A', '"', 'a[999999999]'),
  ),
}) as fc.Arbitrary<PartShape>;

const bodyArb: fc.Arbitrary<BodyShape> = fc.record({
  parts: fc.oneof(
    { arbitrary: fc.tuple(partArb).map(([p]) => [p]), weight: 5 },
    { arbitrary: fc.array(partArb, { minLength: 0, maxLength: 4 }), weight: 3 },
    { arbitrary: fc.array(partArb, { minLength: 22, maxLength: 24 }), weight: 1 },
  ),
  preamble: fc.oneof({ arbitrary: fc.constant(''), weight: 4 }, { arbitrary: fc.constantFrom('preamble\r\n', 'x'), weight: 1 }),
  epilogue: fc.oneof(
    { arbitrary: fc.constant(''), weight: 4 },
    { arbitrary: fc.constantFrom('\r\nepilogue', 'tail bytes after the end'), weight: 1 },
  ),
  closing: fc.oneof(
    { arbitrary: fc.constant('ok' as const), weight: 8 },
    { arbitrary: fc.constantFrom('missing', 'no-crlf', 'wrong-boundary', 'dashes-only' as const), weight: 2 },
  ),
  delimiter: fc.oneof(
    { arbitrary: fc.constant('same' as const), weight: 8 },
    { arbitrary: fc.constantFrom('mismatch', 'padded' as const), weight: 2 },
  ),
  lineEnding: fc.oneof({ arbitrary: fc.constant('crlf' as const), weight: 9 }, { arbitrary: fc.constant('lf' as const), weight: 1 }),
  mutation: fc.oneof(
    { arbitrary: fc.constant(null), weight: 8 },
    {
      arbitrary: fc.record({
        at: fc.nat(),
        kind: fc.constantFrom('flip', 'insert', 'delete' as const),
        byte: fc.integer({ min: 0, max: 255 }),
      }),
      weight: 1,
    },
  ),
});

const contentTypeArb: fc.Arbitrary<ContentTypeShape> = fc.oneof(
  {
    arbitrary: fc.record({
      kind: fc.constant('ok' as const),
      spelling: fc.constantFrom('plain', 'quoted', 'charset-first', 'upper-case', 'spaces' as const),
    }),
    weight: 12,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('bad-boundary' as const),
      variant: fc.constantFrom('trailing-semicolon', 'none', 'too-long', 'illegal-char', 'empty', 'unquoted-special' as const),
    }),
    weight: 3,
  },
  { arbitrary: fc.constant({ kind: 'json' as const }), weight: 1 },
  {
    arbitrary: fc.record({
      kind: fc.constant('other' as const),
      value: fc.constantFrom(
        '',
        'text/plain',
        'image/png',
        'multipart/mixed; boundary=x',
        'multipart/form-data-ish; boundary=x',
        'form-data',
      ),
    }),
    weight: 1,
  },
);

const anyShapeArb: fc.Arbitrary<Shape> = fc.record({
  auth: fc.oneof(
    { arbitrary: fc.constant('valid' as const), weight: 12 },
    { arbitrary: fc.constantFrom('missing', 'unknown-key', 'not-bearer' as const), weight: 1 },
  ),
  contentType: contentTypeArb,
  boundary: boundaryArb,
  body: bodyArb,
  framing: fc.oneof(
    { arbitrary: fc.constantFrom('length', 'chunked' as const), weight: 10 },
    {
      arbitrary: fc.constantFrom(
        'length-short',
        'length-long',
        'chunked-bad-size',
        'chunked-unterminated',
        'both',
        'huge-declared' as const,
      ),
      weight: 2,
    },
  ),
  splits: fc.array(fc.integer({ min: 0, max: 1000 }), { maxLength: 12 }),
  pauses: fc.array(fc.integer({ min: 0, max: 25 }), { maxLength: 4 }),
  stallAt: fc.oneof({ arbitrary: fc.constant(null), weight: 15 }, { arbitrary: fc.integer({ min: 0, max: 1000 }), weight: 1 }),
  ending: fc.oneof(
    { arbitrary: fc.constantFrom('complete-wait', 'complete-half-close' as const), weight: 10 },
    { arbitrary: fc.constantFrom('complete-reset', 'cut-wait', 'cut-half-close', 'cut-reset', 'cut-close' as const), weight: 3 },
  ),
  cutAt: fc.integer({ min: 0, max: 1000 }),
});

function contentTypeHeader(shape: ContentTypeShape, boundary: string): string | null {
  const quoted = `"${boundary.replace(/(["\\])/g, '\\$1')}"`;
  const param = TSPECIALS.test(boundary) ? quoted : boundary;
  switch (shape.kind) {
    case 'ok':
      switch (shape.spelling) {
        case 'plain':
          return `multipart/form-data; boundary=${param}`;
        case 'quoted':
          return `multipart/form-data; boundary=${quoted}`;
        case 'charset-first':
          return `multipart/form-data; charset=utf-8; boundary=${param}`;
        case 'upper-case':
          return `Multipart/Form-Data; Boundary=${param}`;
        case 'spaces':
          return `multipart/form-data ;  boundary=${param}`;
      }
      break;
    case 'bad-boundary':
      switch (shape.variant) {
        case 'trailing-semicolon':
          return `multipart/form-data;boundary=${param};`;
        case 'none':
          return 'multipart/form-data';
        case 'too-long':
          return `multipart/form-data; boundary=${'b'.repeat(71)}`;
        case 'illegal-char':
          return `multipart/form-data; boundary="${boundary}<>"`;
        case 'empty':
          return 'multipart/form-data; boundary=""';
        case 'unquoted-special':
          return `multipart/form-data; boundary=${boundary}/x?y`;
      }
      break;
    case 'json':
      return 'application/json';
    case 'other':
      return shape.value === '' ? null : shape.value;
  }
  return null;
}

/** Whether our Content-Type check lets this header through (RFC 9110 parameters, RFC 2046 boundary). */
function contentTypeAccepted(shape: ContentTypeShape, boundary: string): boolean {
  if (shape.kind !== 'ok') return false;
  // A space may sit inside a quoted boundary, never at its end; RFC 2046 allows 1 to 70 characters.
  return boundary.length <= 70 && !boundary.endsWith(' ') && /^[0-9A-Za-z'()+_,\-./:=? ]+$/.test(boundary);
}

/** How multer and busboy take a part: the one file, a text field, skipped, refused, or not decidable from its shape. */
type PartVerdict = 'file' | 'field' | 'skipped' | 'refused' | 'unsure';

/** A part's bytes, how multer takes it, and the status its file must get when the request is otherwise valid. */
function partBytes(
  part: PartShape,
  boundary: string,
  ctx: CaseContext,
  eol: string,
): { bytes: Buffer; verdict: PartVerdict; fileStatus: 201 | 422 } {
  const headers: string[] = [];
  switch (part.name) {
    case 'file':
      headers.push('Content-Disposition: form-data; name="file"; filename="photo.png"');
      break;
    case 'other-file':
      headers.push('Content-Disposition: form-data; name="image"; filename="photo.png"');
      break;
    case 'text':
      headers.push('Content-Disposition: form-data; name="note"');
      break;
    case 'no-name':
      headers.push('Content-Disposition: form-data; filename="x.png"');
      break;
    case 'no-disposition':
      break;
    case 'garbage-disposition':
      headers.push(`Content-Disposition: ${part.text.replace(/[\r\n]/g, ' ')}`);
      break;
    case 'weird-name':
      headers.push(`Content-Disposition: form-data; name="x${part.text.replace(/[\r\n"]/g, '_')}"; filename*=UTF-8''%E2%82%AC.png`);
      break;
  }
  const nestedBoundary = 'inner-boundary-0001';
  switch (part.contentType) {
    case 'image':
      headers.push('Content-Type: image/png');
      break;
    case 'octet':
      headers.push('Content-Type: application/octet-stream');
      break;
    case 'nested-multipart':
      headers.push(`Content-Type: multipart/mixed; boundary=${nestedBoundary}`);
      break;
    case 'garbage':
      headers.push(`Content-Type: ${part.text.replace(/[\r\n]/g, ' ')}`);
      break;
    case 'none':
      break;
  }
  for (let i = 0; i < part.extraHeaders; i++) headers.push(`X-Extra-${i}: ${i}`);
  if (part.hugeHeader) headers.push(`X-Huge: ${'h'.repeat(20_000)}`);
  let content: Buffer;
  let fileStatus: 201 | 422 = 201;
  const image = ctx.images[part.imageIndex % ctx.images.length];
  switch (part.content) {
    case 'image':
      content = image;
      break;
    case 'crafted': {
      const crafted = ctx.crafted[part.imageIndex % ctx.crafted.length];
      content = crafted.bytes;
      fileStatus = crafted.status;
      break;
    }
    case 'random':
      content = Buffer.from(part.random);
      break;
    case 'json':
      content = Buffer.from(JSON.stringify({ file: part.text }));
      break;
    case 'nested':
      content = Buffer.from(
        `--${nestedBoundary}${CRLF}Content-Disposition: form-data; name="file"; filename="inner.png"${CRLF}${CRLF}` +
          `${image.toString('latin1')}${CRLF}--${nestedBoundary}--${CRLF}`,
        'latin1',
      );
      break;
    case 'boundary-inside':
      content = Buffer.concat([image.subarray(0, 20), Buffer.from(`${CRLF}--${boundary}${CRLF}`), image.subarray(20)]);
      break;
    case 'empty':
      content = Buffer.alloc(0);
      break;
  }
  const bytes = Buffer.concat([Buffer.from(headers.join(eol) + eol + eol, 'utf8'), content]);
  return { bytes, verdict: partVerdict(part, content), fileStatus };
}

function partVerdict(part: PartShape, content: Buffer): PartVerdict {
  // busboy's own header rules decide past its limits (50 pairs here, 16 KiB), for bytes a header
  // may not hold, and where a delimiter sits inside the content.
  if (part.extraHeaders > 3 || part.hugeHeader || part.content === 'boundary-inside' || part.contentType === 'garbage') return 'unsure';
  // busboy takes an octet-stream part for a file even without a file name (and counts it as one).
  if (part.contentType === 'octet' && part.name !== 'file') return 'unsure';
  switch (part.name) {
    case 'file':
      return part.content === 'image' || part.content === 'crafted' ? 'file' : 'refused';
    case 'other-file':
    case 'no-name':
      return 'refused';
    case 'text':
      return content.length <= 4096 ? 'field' : 'refused';
    case 'no-disposition':
      return 'skipped';
    case 'garbage-disposition':
    case 'weird-name':
      return 'unsure';
  }
}

type BodyVerdict = 'valid' | 'refused' | 'unsure';

function bodyBytes(shape: Shape, ctx: CaseContext): { bytes: Buffer; verdict: BodyVerdict; fileStatus: 201 | 422 } {
  const { body, boundary } = shape;
  const eol = body.lineEnding === 'crlf' ? CRLF : '\n';
  // A boundary that no delimiter of the real one can be taken for.
  const delimiterBoundary = body.delimiter === 'mismatch' ? `Q${boundary}` : boundary;
  const padding = body.delimiter === 'padded' ? '  \t' : '';
  const chunks: Buffer[] = [Buffer.from(body.preamble)];
  const parts = body.parts.map((part) => partBytes(part, boundary, ctx, eol));
  parts.forEach((p, i) => {
    chunks.push(Buffer.from(`${i === 0 && body.preamble === '' ? '' : eol}--${delimiterBoundary}${padding}${eol}`));
    chunks.push(p.bytes);
  });
  switch (body.closing) {
    case 'ok':
      chunks.push(Buffer.from(`${eol}--${delimiterBoundary}--${eol}`));
      break;
    case 'no-crlf':
      chunks.push(Buffer.from(`${eol}--${delimiterBoundary}--`));
      break;
    case 'wrong-boundary':
      chunks.push(Buffer.from(`${eol}--${delimiterBoundary}Z--${eol}`));
      break;
    case 'dashes-only':
      chunks.push(Buffer.from(`${eol}----${eol}`));
      break;
    case 'missing':
      break;
  }
  chunks.push(Buffer.from(body.epilogue));
  let bytes = Buffer.concat(chunks);
  if (body.mutation && bytes.length > 0) {
    const at = body.mutation.at % bytes.length;
    const b = Buffer.from([body.mutation.byte]);
    if (body.mutation.kind === 'flip') (bytes = Buffer.from(bytes))[at] ^= body.mutation.byte || 1;
    else if (body.mutation.kind === 'insert') bytes = Buffer.concat([bytes.subarray(0, at), b, bytes.subarray(at)]);
    else bytes = Buffer.concat([bytes.subarray(0, at), bytes.subarray(at + 1)]);
  }
  const file = parts.find((p) => p.verdict === 'file');
  return { bytes, verdict: bodyVerdict(shape, parts), fileStatus: file?.fileStatus ?? 201 };
}

function bodyVerdict(shape: Shape, parts: Array<{ bytes: Buffer; verdict: PartVerdict }>): BodyVerdict {
  const { body, boundary } = shape;
  const collides = parts.some((p) => p.bytes.includes(`--${boundary}`));
  const unsure =
    body.mutation !== null ||
    collides ||
    body.lineEnding === 'lf' ||
    body.delimiter === 'padded' ||
    body.closing === 'wrong-boundary' ||
    parts.some((p) => p.verdict === 'unsure');
  if (parts.length > 21) return 'refused';
  if (unsure) return 'unsure';
  const files = parts.filter((p) => p.verdict === 'file').length;
  const closed = body.closing === 'ok' || body.closing === 'no-crlf';
  const valid = files === 1 && closed && body.delimiter === 'same' && parts.every((p) => p.verdict !== 'refused');
  return valid ? 'valid' : 'refused';
}

/** The body on the wire, and whether the server can read it to its declared end. */
function framed(framing: Framing, body: Buffer, splits: number[]): { headers: string[]; wire: Buffer; wellFramed: boolean | 'unsure' } {
  switch (framing) {
    case 'length':
      return { headers: [`Content-Length: ${body.length}`], wire: body, wellFramed: true };
    case 'length-short':
      // Seven bytes short: whether the closing delimiter survives depends on the epilogue.
      return { headers: [`Content-Length: ${Math.max(0, body.length - 7)}`], wire: body, wellFramed: 'unsure' };
    case 'length-long':
      // busboy may finish at the closing delimiter before the server misses the rest.
      return { headers: [`Content-Length: ${body.length + 100}`], wire: body, wellFramed: 'unsure' };
    case 'huge-declared':
      return { headers: [`Content-Length: ${200 * 1024 * 1024}`], wire: body, wellFramed: false };
    case 'both':
      return {
        headers: [`Content-Length: ${body.length}`, 'Transfer-Encoding: chunked'],
        wire: chunked(body, splits, true),
        wellFramed: false,
      };
    case 'chunked':
    case 'chunked-bad-size':
    case 'chunked-unterminated': {
      let wire = chunked(body, splits, framing !== 'chunked-unterminated');
      if (framing === 'chunked-bad-size') wire = Buffer.concat([Buffer.from(`zz${CRLF}`), wire]);
      return {
        headers: ['Transfer-Encoding: chunked'],
        wire,
        wellFramed: framing === 'chunked' ? true : framing === 'chunked-unterminated' ? 'unsure' : false,
      };
    }
  }
}

function chunked(body: Buffer, splits: number[], terminated: boolean): Buffer {
  const cuts = [...new Set(splits.map((s) => Math.floor((s / 1000) * body.length)))]
    .filter((c) => c > 0 && c < body.length)
    .sort((a, b) => a - b);
  const pieces: Buffer[] = [];
  let from = 0;
  for (const to of [...cuts, body.length]) {
    const piece = body.subarray(from, to);
    if (piece.length > 0) pieces.push(Buffer.from(`${piece.length.toString(16)}${CRLF}`), piece, Buffer.from(CRLF));
    from = to;
  }
  if (terminated) pieces.push(Buffer.from(`0${CRLF}${CRLF}`));
  return Buffer.concat(pieces);
}

/** The data of as many chunks as arrived, whole or not (a tolerant reader of what `chunked` wrote). */
function dechunk(wire: Buffer): Buffer {
  const data: Buffer[] = [];
  let at = 0;
  while (at < wire.length) {
    const lineEnd = wire.indexOf(CRLF, at);
    if (lineEnd === -1) break;
    const size = parseInt(wire.subarray(at, lineEnd).toString('latin1'), 16);
    if (!Number.isFinite(size) || size === 0) break;
    data.push(wire.subarray(lineEnd + 2, Math.min(wire.length, lineEnd + 2 + size)));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(data);
}

function authHeader(auth: Auth, apiKey: string): string | null {
  switch (auth) {
    case 'valid':
      return `Authorization: Bearer ${apiKey}`;
    case 'missing':
      return null;
    case 'unknown-key':
      return `Authorization: Bearer sk_test_${'A'.repeat(43)}`;
    case 'not-bearer':
      return `Authorization: Basic ${Buffer.from('a:b').toString('base64')}`;
  }
}

/** How much of the request the server got. */
type Received = 'nothing' | 'head-cut' | 'body-cut' | 'cut-after-close' | 'whole';

/**
 * The answer docs/api.md requires for a shape. `received` says how much of the request the
 * server got: its head cut short, the body cut before its closing delimiter, cut after it (busboy
 * may have finished: timing decides), or whole.
 */
function expectationOf(
  shape: Shape,
  body: BodyVerdict,
  fileStatus: 201 | 422,
  wellFramed: boolean | 'unsure',
  received: Received,
  overLingerBudget: boolean,
): Expectation {
  if (shape.ending.endsWith('reset') || shape.ending === 'cut-close') return { kind: 'none' };
  const base = baseExpectation(shape, body, fileStatus, wellFramed, received);
  if (shape.ending.endsWith('half-close') && received === 'whole')
    return {
      kind: 'optional',
      then: base.kind === 'status' && (base.status === 201 || base.code === 'image_corrupt') ? { kind: 'answered' } : base,
    };
  // Answered from the head, the server reads and drops at most its lingering budget of the body
  // (docs/api.md) and then closes; a client still sending gets a reset, and whether its kernel
  // hands it the answer first is a race (a busy client loses it).
  if (overLingerBudget && earlyRefusal(shape) !== null) return { kind: 'optional', then: base };
  return base;
}

function baseExpectation(
  shape: Shape,
  body: BodyVerdict,
  fileStatus: 201 | 422,
  wellFramed: boolean | 'unsure',
  received: Received,
): Expectation {
  // Nothing sent: nothing to answer (Node closes an empty connection quietly, or after its headers timeout with 408).
  if (received === 'nothing') return { kind: 'optional', then: { kind: 'problem' } };
  // A head cut short: Node's parser refuses the EOF (400) or its headers timeout passes (408).
  if (received === 'head-cut') return { kind: 'problem' };
  // Refused by Node's parser as soon as it reads the head (RFC 9112: both framings at once).
  if (shape.framing === 'both') return { kind: 'status', status: 400 };
  const early = earlyRefusal(shape);
  if (early !== null) {
    // Node's parser may refuse the framing (400) before the route's asynchronous checks answer
    // (a key lookup). So does a half-close before the end the server expects (EOF mid-body), and
    // the bytes sent past a short Content-Length, which the parser reads as the next request.
    const endsShort = received !== 'whole' || ['length-long', 'chunked-unterminated', 'huge-declared'].includes(shape.framing);
    const parserRefuses =
      shape.framing === 'chunked-bad-size' || shape.framing === 'length-short' || (shape.ending.endsWith('half-close') && endsShort);
    return parserRefuses ? { kind: 'problem' } : early;
  }
  if (body === 'refused' || wellFramed === false || received === 'body-cut') return { kind: 'problem' };
  if (body === 'unsure' || wellFramed === 'unsure' || received === 'cut-after-close') return { kind: 'answered' };
  // A stall while the upload waits unread for a slot is no stall to the server.
  if (shape.stallAt !== null) return { kind: 'answered' };
  return fileStatus === 201 ? { kind: 'status', status: 201 } : { kind: 'status', status: fileStatus, code: 'image_corrupt' };
}

/** What the api answers from the head alone, before it reads the body; null when it reads on. */
function earlyRefusal(shape: Shape): Expectation | null {
  if (shape.auth !== 'valid') return { kind: 'status', status: 401 };
  // The JSON parser reads the body and refuses it (400, 408 or 413, depending on what arrives).
  if (shape.contentType.kind === 'json') return { kind: 'problem' };
  if (shape.contentType.kind === 'other') return { kind: 'status', status: 415 };
  if (!contentTypeAccepted(shape.contentType, shape.boundary)) return { kind: 'status', status: 400 };
  if (shape.framing === 'huge-declared') return { kind: 'status', status: 413 };
  return null;
}

/** Splits `bytes` into writes at the shape's points, with its pauses and, if any, one stall. */
function writesOf(bytes: Buffer, shape: Shape, stallMs: number): UploadCase['writes'] {
  const cuts = [...new Set(shape.splits.map((s) => Math.floor((s / 1000) * bytes.length)))].filter((c) => c > 0 && c < bytes.length);
  const stall = shape.stallAt === null ? null : Math.max(1, Math.floor((shape.stallAt / 1000) * bytes.length));
  if (stall !== null && stall < bytes.length) cuts.push(stall);
  const points = [...new Set(cuts)].sort((a, b) => a - b);
  const writes: UploadCase['writes'] = [];
  let from = 0;
  points.forEach((to, i) => {
    writes.push({
      bytes: bytes.subarray(from, to),
      pauseMs: to === stall ? stallMs : (shape.pauses[i % Math.max(1, shape.pauses.length)] ?? 0),
    });
    from = to;
  });
  writes.push({ bytes: bytes.subarray(from), pauseMs: 0 });
  return writes.filter((w) => w.bytes.length > 0);
}

function caseOf(shape: Shape, ctx: CaseContext): UploadCase {
  const body = bodyBytes(shape, ctx);
  const frame = framed(shape.framing, body.bytes, shape.splits);
  const headLines = ['POST /v1/image-assets HTTP/1.1', 'Host: 127.0.0.1'];
  const auth = authHeader(shape.auth, ctx.apiKey);
  if (auth) headLines.push(auth);
  const contentType = contentTypeHeader(shape.contentType, shape.boundary);
  if (contentType !== null) headLines.push(`Content-Type: ${contentType}`);
  headLines.push(...frame.headers);
  const head = Buffer.from(headLines.join(CRLF) + CRLF + CRLF, 'latin1');
  let request = Buffer.concat([head, frame.wire]);
  const whole = request.length;
  const cut = shape.ending.startsWith('cut');
  if (cut) request = request.subarray(0, Math.floor((shape.cutAt / 1000) * request.length));
  const bodyReceived = request.subarray(head.length);
  const decoded = frame.headers.includes('Transfer-Encoding: chunked') ? dechunk(bodyReceived) : bodyReceived;
  const received: Received =
    request.length === 0
      ? 'nothing'
      : request.length < head.length
        ? 'head-cut'
        : request.length === whole
          ? 'whole'
          : decoded.includes(`--${shape.boundary}--`)
            ? 'cut-after-close'
            : 'body-cut';
  const declared = /^Content-Length: (\d+)$/m.exec(frame.headers.join('\n'))?.[1];
  const overLingerBudget = decoded.length > lingerBudget({ headers: { 'content-length': declared } });
  const label = [
    `auth=${shape.auth}`,
    `ct=${JSON.stringify(contentType)}`,
    `framing=${shape.framing}`,
    `parts=${shape.body.parts.map((p) => `${p.name}/${p.content}/${p.contentType}${p.extraHeaders > 3 ? '/many-headers' : ''}${p.hugeHeader ? '/huge-header' : ''}`).join(',')}`,
    `closing=${shape.body.closing}`,
    `delimiter=${shape.body.delimiter}`,
    `eol=${shape.body.lineEnding}`,
    shape.body.mutation ? `mutation=${shape.body.mutation.kind}@${shape.body.mutation.at}` : '',
    shape.stallAt !== null ? 'stall' : '',
    overLingerBudget ? 'over-linger-budget' : '',
    `ending=${shape.ending}${cut ? `@${request.length}/${whole}` : ''}`,
  ]
    .filter(Boolean)
    .join(' ');
  return {
    label,
    writes: writesOf(request, shape, ctx.stallMs),
    end: shape.ending.endsWith('reset')
      ? 'reset'
      : shape.ending === 'cut-close'
        ? 'close'
        : shape.ending.endsWith('half-close')
          ? 'half-close'
          : 'wait',
    expect: expectationOf(shape, body.verdict, body.fileStatus, frame.wellFramed, received, overLingerBudget),
  };
}

/** A text field multer takes: short, plain headers. */
const fieldArb: fc.Arbitrary<PartShape> = partArb.map((p) => ({
  ...p,
  name: 'text' as const,
  content: p.content === 'empty' ? ('empty' as const) : ('json' as const),
  contentType: 'none' as const,
  extraHeaders: Math.min(p.extraHeaders, 3),
  hugeHeader: false,
  text: p.text.slice(0, 100),
}));

/**
 * An upload the API must accept (201; a crafted file gets its own status), varied only in what must not matter: the spelling of
 * the Content-Type, the boundary, text fields around the file, the file part's own headers, a
 * preamble or epilogue, chunked or not, split anywhere, with short pauses.
 */
const validShapeArb: fc.Arbitrary<Shape> = fc
  .record({
    base: anyShapeArb,
    spelling: fc.constantFrom('plain', 'quoted', 'charset-first', 'upper-case', 'spaces' as const),
    boundary: fc.string({ unit: fc.constantFrom(...BOUNDARY_CHARS), minLength: 12, maxLength: 60 }).map((b) => `fz${b}`),
    file: partArb.map((p) => ({
      ...p,
      name: 'file' as const,
      content: p.content === 'crafted' ? ('crafted' as const) : ('image' as const),
      extraHeaders: Math.min(p.extraHeaders, 3),
      hugeHeader: false,
    })),
    fields: fc.array(fieldArb, { maxLength: 3 }),
    at: fc.nat(3),
    closing: fc.constantFrom('ok', 'no-crlf' as const),
    framing: fc.constantFrom('length', 'chunked' as const),
    ending: fc.oneof(
      { arbitrary: fc.constant('complete-wait' as const), weight: 4 },
      { arbitrary: fc.constant('complete-half-close' as const), weight: 1 },
    ),
  })
  .map(({ base, spelling, boundary, file, fields, at, closing, framing, ending }) => ({
    ...base,
    auth: 'valid' as const,
    contentType: { kind: 'ok' as const, spelling },
    boundary,
    body: {
      ...base.body,
      parts: [...fields.slice(0, at), file, ...fields.slice(at)],
      closing,
      delimiter: 'same' as const,
      lineEnding: 'crlf' as const,
      mutation: null,
    },
    framing,
    stallAt: null,
    ending,
  }));

/** A third of the cases are uploads that must succeed, the rest anything at all. */
const shapeArb = fc.oneof({ arbitrary: validShapeArb, weight: 1 }, { arbitrary: anyShapeArb, weight: 2 });

/** `count` cases, the same for the same seed. */
export function uploadCases(seed: number, count: number, ctx: CaseContext): UploadCase[] {
  return fc.sample(shapeArb, { seed, numRuns: count }).map((shape) => caseOf(shape, ctx));
}
