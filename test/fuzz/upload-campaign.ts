import { API_ERROR_TABLE } from '@apps/api/api-errors';
import { connect, Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Expectation, UploadCase } from './multipart-cases';

/** Statuses the upload route may answer; anything else (a 5xx above all) is a failure. */
const ALLOWED = new Set([201, 400, 401, 408, 413, 415, 422]);
const CODES = new Set<string>(API_ERROR_TABLE.codes());
const INTERNALS = /\bat \w+ \(|node_modules|SELECT |INSERT |QueryFailedError|DomainError|MulterError/;

interface Outcome {
  status: number | null;
  headers: Record<string, string>;
  body: string;
  /** Why no answer was read, when none was. */
  error: string | null;
}

export interface CampaignFigures {
  requests: number;
  statuses: Record<string, number>;
  /** Cases whose answer broke a rule, with what broke it. */
  failures: string[];
  elapsedMs: number;
}

/**
 * Writes one case to a fresh connection on `port` (its writes, pauses and ending) and reads the
 * first answer, if any comes, within `deadlineMs`. The client side never throws: a reset or a
 * refused write is part of the experiment.
 */
function send(port: number, c: UploadCase, deadlineMs: number): Promise<Outcome> {
  return new Promise((resolve) => {
    const socket: Socket = connect(port, '127.0.0.1');
    let buffered = Buffer.alloc(0);
    let settled = false;
    const finish = (outcome: Outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      socket.destroy();
      resolve(outcome);
    };
    const deadline = setTimeout(
      () => finish({ status: null, headers: {}, body: '', error: `no answer within ${deadlineMs} ms` }),
      deadlineMs,
    );
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      const parsed = parseResponse(buffered);
      if (parsed) finish({ ...parsed, error: null });
    });
    socket.on('error', () => undefined);
    socket.on('close', () => finish({ status: null, headers: {}, body: '', error: 'the server closed the connection without an answer' }));
    socket.once('connect', () => {
      void (async () => {
        for (const w of c.writes) {
          if (settled || socket.destroyed) return;
          await new Promise<void>((done) => socket.write(w.bytes, () => done()));
          if (w.pauseMs > 0) await sleep(w.pauseMs);
        }
        if (settled) return;
        if (c.end === 'reset') {
          socket.resetAndDestroy();
          finish({ status: null, headers: {}, body: '', error: 'reset by the client' });
        } else if (c.end === 'close') {
          finish({ status: null, headers: {}, body: '', error: 'closed by the client' });
        } else if (c.end === 'half-close') socket.end();
      })();
    });
  });
}

/** The first complete HTTP/1.1 response in `data` (our servers always send Content-Length). */
function parseResponse(data: Buffer): Omit<Outcome, 'error'> | null {
  const end = data.indexOf('\r\n\r\n');
  if (end === -1) return null;
  const [statusLine, ...lines] = data.subarray(0, end).toString('latin1').split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = Number(headers['content-length'] ?? 0);
  if (data.length < end + 4 + length) return null;
  return { status: Number(statusLine.split(' ')[1]), headers, body: data.subarray(end + 4, end + 4 + length).toString('utf8') };
}

/** What is wrong with an outcome, by docs/api.md and by the case's expectation; null when nothing. */
function judge(c: UploadCase, o: Outcome, secrets: string[]): string | null {
  if (o.status === null) return c.expect.kind === 'none' || c.expect.kind === 'optional' ? null : o.error;
  if (!ALLOWED.has(o.status)) return `status ${o.status}: ${o.body.slice(0, 200)}`;
  if (!o.headers['x-request-id']) return `status ${o.status} without X-Request-Id`;
  if (INTERNALS.test(o.body) || secrets.some((s) => o.body.includes(s))) return `leaks internals: ${o.body.slice(0, 200)}`;
  if (o.status === 201) {
    if (!/"imageAssetId":"img_[0-9A-HJKMNP-TV-Z]{26}"/.test(o.body)) return `201 without an asset: ${o.body.slice(0, 200)}`;
  } else {
    let problem: { code?: string; requestId?: string } = {};
    try {
      problem = JSON.parse(o.body) as typeof problem;
    } catch {
      return `status ${o.status}, not JSON: ${o.body.slice(0, 100)}`;
    }
    if (!(o.headers['content-type'] ?? '').startsWith('application/problem+json'))
      return `status ${o.status}, content-type ${o.headers['content-type']}`;
    if (!problem.code || !CODES.has(problem.code)) return `status ${o.status}, code ${problem.code}`;
    if (problem.requestId !== o.headers['x-request-id']) return `status ${o.status}: requestId differs from X-Request-Id`;
  }
  return mismatch(c.expect, o.status, o.body);
}

function mismatch(expect: Expectation, status: number, body: string): string | null {
  switch (expect.kind) {
    case 'status':
      if (status !== expect.status) return `expected ${expect.status}, got ${status}: ${body.slice(0, 200)}`;
      return !expect.code || body.includes(`"code":"${expect.code}"`) ? null : `expected code ${expect.code}: ${body.slice(0, 200)}`;
    case 'problem':
      return status >= 400 ? null : `expected a refusal, got ${status}`;
    case 'optional':
      return mismatch(expect.then, status, body);
    default:
      return null;
  }
}

/**
 * Sends `cases` to the api on `port`, `concurrency` connections at a time, and judges every
 * answer: allowed statuses only (never a 5xx), every refusal a documented problem with its
 * request id, nothing internal or secret in a body, and the answer the case requires. `label`
 * prefixes failures (the seed, to replay them).
 */
export async function runUploadCampaign(
  port: number,
  cases: UploadCase[],
  opts: { concurrency: number; deadlineMs: number; secrets: string[]; label: string },
): Promise<CampaignFigures> {
  const started = performance.now();
  const statuses: Record<string, number> = {};
  const failures: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < cases.length) {
      const index = next++;
      const c = cases[index];
      const outcome = await send(port, c, opts.deadlineMs);
      const key = outcome.status === null ? 'none' : String(outcome.status);
      statuses[key] = (statuses[key] ?? 0) + 1;
      const wrong = judge(c, outcome, opts.secrets);
      if (wrong) failures.push(`${opts.label} case ${index} [${c.label}]: ${wrong}`);
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, worker));
  return { requests: cases.length, statuses, failures, elapsedMs: performance.now() - started };
}
