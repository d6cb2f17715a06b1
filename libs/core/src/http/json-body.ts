import { parse as parseContentType } from 'content-type';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import getRawBody from 'raw-body';
import secureJson from 'secure-json-parse';
import { DomainError, ErrorCode } from '../errors';

/** JSON bodies are small by contract; uploads are streamed by their own route with their own cap. */
export const JSON_BODY_LIMIT = 64 * 1024;

/**
 * A larger JSON body than the default, for one request: set by an app's middleware that runs
 * before the body is read, for a route that needs it and a caller it has authenticated (the
 * studio's camera paths: a recorded take is megabytes). Never for an anonymous request.
 */
export interface JsonBodyAllowance {
  limitBytes: number;
  timeoutMs: number;
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      jsonBodyAllowance?: JsonBodyAllowance;
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
  if (depthExceeds(value, MAX_JSON_DEPTH)) {
    throw new DomainError(ErrorCode.InvalidJson, `The request body nests deeper than ${MAX_JSON_DEPTH} levels.`);
  }
  const repeated = firstRepeatedKey(text);
  if (repeated !== null) {
    throw new DomainError(ErrorCode.InvalidJson, `The request body repeats the key "${repeated.slice(0, 64)}" within one object.`);
  }
  return value as Record<string, unknown>;
}

/** Whether a parsed JSON value nests deeper than `max`, checked without recursion. */
function depthExceeds(root: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[root, 1]];
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!;
    if (value === null || typeof value !== 'object') continue;
    if (depth > max) return true;
    for (const child of Object.values(value)) stack.push([child, depth + 1]);
  }
  return false;
}

/**
 * `JSON.parse` silently keeps the last of two equal keys; this finds the first key repeated within
 * one object. Called only on text that already parsed, so it scans tokens without checking the
 * grammar: one pass, a set of keys per open object, a key decoded only when it holds an escape
 * (`"a\u0062"` and `"ab"` are the same key). Linear, so a camera path's megabytes cost
 * milliseconds (a syntax tree of them cost the best part of a second).
 */
export function firstRepeatedKey(text: string): string | null {
  // One entry per open container: an object's keys so far, or null for an array.
  const open: (Set<string> | null)[] = [];
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
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
      if (expectKey && keys) {
        const key = escaped ? (JSON.parse(text.slice(i, end + 1)) as string) : text.slice(i + 1, end);
        if (keys.has(key)) return key;
        keys.add(key);
        expectKey = false;
      }
      i = end;
    } else if (c === OPEN_BRACE) {
      open.push(new Set());
      expectKey = true;
    } else if (c === OPEN_BRACKET) {
      open.push(null);
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      open.pop();
      expectKey = false;
    } else if (c === COMMA) {
      expectKey = open.length > 0 && open[open.length - 1] !== null;
    }
  }
  return null;
}

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
 * then parsed with the rules above. A body over the limit is refused as soon as its declared length or its bytes pass
 * 64 KiB, and the rest is not read (body-parser would read it all first; its engine, raw-body,
 * stops). Other content types are left unread: routes that take JSON refuse them
 * (`JsonBodyGuard`), the upload route streams its own. A request's `jsonBodyAllowance`, when an
 * earlier middleware set one, replaces the limit and the timeout.
 */
export function jsonBodyParser(timeoutMs: number): RequestHandler {
  return (req: Request, _res: Response, next: NextFunction) => {
    if (req.headers['content-type'] === undefined || !req.is('application/json')) return next();
    const encoding = req.headers['content-encoding'];
    if (encoding !== undefined && encoding.toLowerCase() !== 'identity') {
      return next(new DomainError(ErrorCode.UnsupportedMediaType, 'Compressed request bodies (Content-Encoding) are not accepted.'));
    }
    if (!isUtf8(req)) {
      return next(new DomainError(ErrorCode.UnsupportedMediaType, 'JSON bodies must be UTF-8.'));
    }
    const limit = req.jsonBodyAllowance?.limitBytes ?? JSON_BODY_LIMIT;
    const timeout = req.jsonBodyAllowance?.timeoutMs ?? timeoutMs;
    // A body that has not arrived in time is answered 408; whatever raw-body says later is moot.
    let settled = false;
    const settle = (error?: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      next(error);
    };
    const timer = setTimeout(
      () => settle(new DomainError(ErrorCode.RequestTimeout, `The request body did not arrive within ${timeout / 1000} s.`)),
      timeout,
    );
    getRawBody(req, { length: req.headers['content-length'], limit, encoding: 'utf-8' }).then(
      (text) => {
        if (settled) return;
        try {
          req.body = parseJsonObject(text);
        } catch (e) {
          return settle(e);
        }
        settle();
      },
      (error: unknown) => settle(isTooLarge(error) ? new DomainError(ErrorCode.PayloadTooLarge, jsonTooLargeDetail(limit)) : error),
    );
  };
}

const isTooLarge = (error: unknown): boolean => (error as { type?: unknown } | null)?.type === 'entity.too.large';

/** The detail of every JSON 413: the limit passed, and whether it was a route's own. */
export function jsonTooLargeDetail(limit: number): string {
  const size = limit % (1024 * 1024) === 0 ? `${limit / (1024 * 1024)} MiB` : `${Math.floor(limit / 1024)} KiB`;
  return `The request body exceeds the ${size} limit for JSON${limit === JSON_BODY_LIMIT ? '' : ' on this route'}.`;
}
