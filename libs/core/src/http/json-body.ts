import { parse as parseContentType } from 'content-type';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import getRawBody from 'raw-body';
import secureJson from 'secure-json-parse';
import { DomainError, ErrorCode } from '../errors';

/** JSON bodies are small (64 KiB: docs/api.md, Conventions, "Bodies"); uploads are streamed by their own route with their own cap. */
export const JSON_BODY_LIMIT = 64 * 1024;

/** How much of a JSON body is read, and for how long. */
export interface JsonBodyLimits {
  limitBytes: number;
  timeoutMs: number;
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /**
       * Set by an app's middleware before the body parser runs: this request's body is left
       * unread there, and its route reads it with `readJsonBody` once its guards admitted it (the
       * studio's camera paths: megabytes, read only after the session's budget and a slot).
       */
      jsonBodyDeferred?: boolean;
    }
  }
}

/**
 * Nothing we accept nests deeper than a few levels; a deep body would exhaust the stack of the
 * recursive validation and transformation that follow.
 */
export const MAX_JSON_DEPTH = 32;

const notAnObject = () => new DomainError(ErrorCode.InvalidJson, 'The request body must be a JSON object.');

/**
 * Parses a request body that must be one JSON object. Refused with `invalid_json`: anything
 * else, nesting deeper than 32 levels, a key repeated within one object (parsers disagree on
 * which value wins, so the request is ambiguous) and the prototype keys `__proto__` and
 * `constructor.prototype` (never part of a request, and a classic pollution vector).
 * An empty body is `undefined`: the route's validation answers `invalid_json` if it needs one.
 */
export function parseJsonObject(text: string): Record<string, unknown> | undefined {
  const value = parseText(text);
  if (value === undefined) return undefined;
  const scan = scanJson(text);
  let step = scan.next();
  while (!step.done) step = scan.next();
  return checked(value, step.value);
}

/**
 * The same, for bodies of megabytes: `JSON.parse` runs at once (V8's parser cannot be paused),
 * but the pass over the text that follows (depth, repeated keys) gives the event loop back every
 * `SCAN_SLICE_CHARS` characters, so other requests are served meanwhile.
 */
export async function parseJsonObjectYielding(text: string): Promise<Record<string, unknown> | undefined> {
  const value = parseText(text);
  if (value === undefined) return undefined;
  const scan = scanJson(text);
  let step = scan.next();
  while (!step.done) {
    await yieldToEventLoop();
    step = scan.next();
  }
  return checked(value, step.value);
}

/** Characters of JSON text scanned between two turns of the event loop: a few milliseconds' work. */
const SCAN_SLICE_CHARS = 256 * 1024;

/** Bodies at least this long are parsed with `parseJsonObjectYielding`. */
const YIELDING_PARSE_CHARS = 1024 * 1024;

function parseText(text: string): Record<string, unknown> | undefined {
  if (text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch (e) {
    if (e instanceof SyntaxError && /prototype/.test(e.message)) {
      throw new DomainError(ErrorCode.InvalidJson, 'The request body uses a reserved key (__proto__ or constructor.prototype).');
    }
    throw notAnObject();
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw notAnObject();
  return value as Record<string, unknown>;
}

function checked(value: Record<string, unknown>, shape: JsonShape): Record<string, unknown> {
  if (shape.tooDeep) {
    throw new DomainError(ErrorCode.InvalidJson, `The request body nests deeper than ${MAX_JSON_DEPTH} levels.`);
  }
  if (shape.repeatedKey !== null) {
    throw new DomainError(ErrorCode.InvalidJson, `The request body repeats the key "${shape.repeatedKey.slice(0, 64)}" within one object.`);
  }
  return value;
}

/** What the scan of a parsed JSON text found. */
interface JsonShape {
  /** Containers nest deeper than MAX_JSON_DEPTH. */
  tooDeep: boolean;
  /** The first key repeated within one object, or null. */
  repeatedKey: string | null;
}

/**
 * `JSON.parse` silently keeps the last of two equal keys; this finds the first key repeated within
 * one object. Called only on text that already parsed.
 */
export function firstRepeatedKey(text: string): string | null {
  const scan = scanJson(text);
  let step = scan.next();
  while (!step.done) step = scan.next();
  return step.value.repeatedKey;
}

/**
 * One pass over text that already parsed, without checking the grammar: how deep containers nest,
 * and the first key repeated within one object (a set of keys per open object; a key decoded only
 * when it holds an escape: `"a\u0062"` and `"ab"` are the same key). Linear, so a camera path's
 * megabytes cost milliseconds (a syntax tree of them cost the best part of a second; a walk of the
 * parsed value for its depth, as before, cost as much as this whole pass). Yields every
 * SCAN_SLICE_CHARS characters, so a caller may let the event loop run between slices.
 */
function* scanJson(text: string): Generator<void, JsonShape, void> {
  // One entry per open container: an object's keys so far, or null for an array.
  const open: (Set<string> | null)[] = [];
  let expectKey = false;
  let repeatedKey: string | null = null;
  let sliceEnd = SCAN_SLICE_CHARS;
  for (let i = 0; i < text.length; i++) {
    if (i >= sliceEnd) {
      sliceEnd = i + SCAN_SLICE_CHARS;
      yield;
    }
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      let end = i + 1;
      let escaped = false;
      for (; end < text.length; end++) {
        const d = text.charCodeAt(end);
        if (d === BACKSLASH) {
          escaped = true;
          end++;
        } else if (d === QUOTE) break;
      }
      const keys = open[open.length - 1];
      if (expectKey && keys && repeatedKey === null) {
        const key = escaped ? (JSON.parse(text.slice(i, end + 1)) as string) : text.slice(i + 1, end);
        if (keys.has(key)) repeatedKey = key;
        keys.add(key);
      }
      expectKey = false;
      i = end;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      open.push(c === OPEN_BRACE ? new Set() : null);
      if (open.length > MAX_JSON_DEPTH) return { tooDeep: true, repeatedKey };
      expectKey = c === OPEN_BRACE;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      open.pop();
      expectKey = false;
    } else if (c === COMMA) {
      expectKey = open.length > 0 && open[open.length - 1] !== null;
    }
  }
  return { tooDeep: false, repeatedKey };
}

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;

/** No charset parameter means UTF-8, as RFC 8259 says. */
function isUtf8(req: Request): boolean {
  try {
    const charset = parseContentType(req).parameters.charset?.toLowerCase();
    return charset === undefined || charset === 'utf-8' || charset === 'utf8';
  } catch {
    return false;
  }
}

/**
 * Reads `application/json` bodies: at most 64 KiB, UTF-8, never compressed, within `timeoutMs`,
 * then parsed with the rules above. A body over the limit is refused as soon as its declared
 * length or its bytes pass 64 KiB, and the rest is not read (body-parser would read it all first;
 * its engine, raw-body, stops). Other content types are left unread: routes that take JSON refuse
 * them (`JsonBodyGuard`), the upload route streams its own. A request marked `jsonBodyDeferred`
 * is left unread too: its route reads it (`readJsonBody`) after its guards.
 */
export function jsonBodyParser(timeoutMs: number): RequestHandler {
  const limits: JsonBodyLimits = { limitBytes: JSON_BODY_LIMIT, timeoutMs };
  return (req: Request, _res: Response, next: NextFunction) => {
    if (req.jsonBodyDeferred) return next();
    readJsonBody(req, limits).then((body) => {
      req.body = body;
      next();
    }, next);
  };
}

/**
 * Reads and parses a JSON body as the parser above does, with the caller's limits: `undefined`
 * (nothing read) for a request with no JSON content type. Refused: compressed bodies and other
 * charsets (`415`), a body over `limitBytes` (`413`, the rest unread), one that has not arrived
 * within `timeoutMs` (`408`), and JSON the rules above refuse (`400 invalid_json`). A body of a
 * megabyte or more is checked in slices that let the event loop run between them.
 */
export function readJsonBody(req: Request, { limitBytes, timeoutMs }: JsonBodyLimits): Promise<Record<string, unknown> | undefined> {
  if (req.headers['content-type'] === undefined || !req.is('application/json')) return Promise.resolve(undefined);
  const encoding = req.headers['content-encoding'];
  if (encoding !== undefined && encoding.toLowerCase() !== 'identity') {
    return Promise.reject(
      new DomainError(ErrorCode.UnsupportedMediaType, 'Compressed request bodies (Content-Encoding) are not accepted.'),
    );
  }
  if (!isUtf8(req)) return Promise.reject(new DomainError(ErrorCode.UnsupportedMediaType, 'JSON bodies must be UTF-8.'));
  return new Promise((resolve, reject) => {
    // A body that has not arrived in time is answered 408; whatever raw-body says later is moot.
    let settled = false;
    const settle = (error: unknown, body?: Record<string, unknown>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) reject(error instanceof Error ? error : new Error('the request body could not be read'));
      else resolve(body);
    };
    const timer = setTimeout(
      () => settle(new DomainError(ErrorCode.RequestTimeout, `The request body did not arrive within ${timeoutMs / 1000} s.`)),
      timeoutMs,
    );
    getRawBody(req, { length: req.headers['content-length'], limit: limitBytes, encoding: 'utf-8' }).then(
      (text) => {
        if (settled) return;
        // The timer stops here: what is left is our own work, not the client's slowness.
        clearTimeout(timer);
        if (text.length < YIELDING_PARSE_CHARS) {
          try {
            settle(null, parseJsonObject(text));
          } catch (e) {
            settle(e);
          }
          return;
        }
        parseJsonObjectYielding(text).then(
          (body) => settle(null, body),
          (e: unknown) => settle(e),
        );
      },
      (error: unknown) => settle(isTooLarge(error) ? new DomainError(ErrorCode.PayloadTooLarge, jsonTooLargeDetail(limitBytes)) : error),
    );
  });
}

const isTooLarge = (error: unknown): boolean => (error as { type?: unknown } | null)?.type === 'entity.too.large';

/** The detail of every JSON 413: the limit passed, and whether it was a route's own. */
export function jsonTooLargeDetail(limit: number): string {
  const size = limit % (1024 * 1024) === 0 ? `${limit / (1024 * 1024)} MiB` : `${Math.floor(limit / 1024)} KiB`;
  return `The request body exceeds the ${size} limit for JSON${limit === JSON_BODY_LIMIT ? '' : ' on this route'}.`;
}
