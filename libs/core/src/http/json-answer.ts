import type { Response } from 'express';

/** Items of a long array serialised between two turns of the event loop: a few milliseconds' work. */
const SLICE_ITEMS = 500;

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * `JSON.stringify` of a plain JSON value (no `toJSON` but Date's, no cycles) for answers of
 * megabytes, such as a saved camera path echoing a take of 20 000 samples: arrays longer than
 * SLICE_ITEMS are written a slice at a time with the event loop let run between slices, so one
 * answer does not hold every other request for the best part of 100 ms. Same text as
 * `JSON.stringify(value)`.
 */
export async function stringifyYielding(value: unknown): Promise<string> {
  if (Array.isArray(value)) {
    if (value.length <= SLICE_ITEMS) return JSON.stringify(value);
    const parts: string[] = [];
    for (let i = 0; i < value.length; i += SLICE_ITEMS) {
      parts.push(JSON.stringify(value.slice(i, i + SLICE_ITEMS)).slice(1, -1));
      await yieldToEventLoop();
    }
    return `[${parts.join(',')}]`;
  }
  if (value === null || typeof value !== 'object' || typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    return JSON.stringify(value);
  }
  const members: string[] = [];
  for (const [key, member] of Object.entries(value)) {
    if (member === undefined || typeof member === 'function' || typeof member === 'symbol') continue;
    members.push(`${JSON.stringify(key)}:${await stringifyYielding(member)}`);
  }
  return `{${members.join(',')}}`;
}

/** Answers `body` as JSON, serialised with `stringifyYielding`. */
export async function sendJsonYielding(res: Response, status: number, body: unknown): Promise<void> {
  const json = await stringifyYielding(body);
  if (res.destroyed) return;
  res.statusCode = status;
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.setHeader('content-length', Buffer.byteLength(json));
  res.end(json);
}
