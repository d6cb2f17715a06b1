import { API_ERROR_TABLE } from '@apps/api/api-errors';
import fc from 'fast-check';
import http from 'node:http';
import { moveDocument, takeDocument, viewDocument } from '../factories/camera-path.factory';

/** One generated request, sent as is (no client-side normalisation of the path or headers). */
export interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** Text that has broken parsers and databases before. */
export const HOSTILE_TEXT = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udc00y',
  '\u202Eevil',
  '\u2066isolated',
  '🌲'.repeat(300),
  'a'.repeat(5000),
  `${'a'.repeat(30_000)}@${'a'.repeat(30_000)}`,
  'jane@example.com',
  "'; DROP TABLE scenes; --",
  '<script>alert(1)</script>',
  '../../etc/passwd',
  '%00%ff%E0%A4%A',
  '{"__proto__":{"admin":true}}',
  'null',
  '\r\nX-Injected: 1',
];

/** Every place in a JSON value where something can be put: each object member and array item. */
function slots(value: unknown, out: Array<[Record<string, unknown> | unknown[], string | number]> = []) {
  if (Array.isArray(value)) {
    value.forEach((item, i) => {
      out.push([value, i]);
      slots(item, out);
    });
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      out.push([value as Record<string, unknown>, key]);
      slots(item, out);
    }
  }
  return out;
}

/**
 * Camera path bodies (docs/camera-paths.md): a valid view, take or authored move, as is (a third
 * of them) or of any kind, named with hostile text, with up to three of its values, anywhere in
 * it, replaced by junk or removed, or unknown members added; sometimes a number spelled 1e999
 * (Infinity once parsed, which JSON.stringify cannot write). As JSON text.
 */
export function cameraPathBodyTexts(): fc.Arbitrary<string> {
  const junk = fc.oneof(
    fc.jsonValue({ maxDepth: 2 }),
    fc.constantFrom(...HOSTILE_TEXT),
    fc.constantFrom(1e308, -1, 0, 0.5, 2 ** 53, 3_600_001, -181, [0, 0, 0, 0], [1, 2], 'NaN', null, undefined),
  );
  const documents = [
    { kind: 'view', make: () => viewDocument() },
    { kind: 'path', make: () => takeDocument(6) },
    { kind: 'path', make: () => moveDocument(3) },
  ];
  const valid = fc.nat(2).map((which) => JSON.stringify({ kind: documents[which].kind, name: 'Fuzz', document: documents[which].make() }));
  const change = fc.tuple(fc.nat(), junk, fc.boolean());
  const mangled = fc
    .tuple(
      fc.nat(2),
      fc.constantFrom('view', 'path', 'take'),
      fc.constantFrom(...HOSTILE_TEXT),
      fc.array(change, { maxLength: 3 }),
      fc.nat(9),
    )
    .map(([which, kind, name, changes, infinity]) => {
      const body: Record<string, unknown> = { kind, name, document: documents[which].make() };
      for (const [pick, value, addMember] of changes) {
        const all = slots(body);
        const [parent, key] = all[pick % all.length];
        if (addMember && !Array.isArray(parent)) parent[`extra${pick % 3}`] = value;
        else if (value === undefined && !Array.isArray(parent)) delete parent[key as string];
        else (parent as Record<string | number, unknown>)[key] = value;
      }
      const text = JSON.stringify(body);
      return infinity === 0 ? text.replace(/:35\b/, ':1e999') : text;
    });
  return fc.oneof({ arbitrary: valid, weight: 1 }, { arbitrary: mangled, weight: 2 });
}

/** Percent-encodes every UTF-8 byte (encodeURIComponent throws on a lone surrogate). */
export const pct = (s: string): string => [...Buffer.from(s, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');

function send(port: number, agent: http.Agent, r: FuzzRequest): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: r.method,
        path: r.path,
        agent,
        headers: { ...r.headers, ...(r.body ? { 'content-length': r.body.length } : {}) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    req.setTimeout(30_000, () => req.destroy(new Error(`${r.method} ${r.path} timed out`)));
    req.end(r.body);
  });
}

/**
 * Sends `requests` to the server at `url`, `concurrency` at a time on keep-alive connections, and
 * checks every answer: never a 5xx or a stalled request, always an `X-Request-Id`, every error a
 * problem as docs/api.md defines it (problem+json, a known code, the same request id), nothing internal
 * (stacks, SQL, driver errors) and none of `secrets` in a body. Returns what broke those rules
 * and how many answers of each status came back.
 */
export async function fire(
  url: string,
  requests: FuzzRequest[],
  concurrency: number,
  secrets: string[],
  /** Paths whose errors are HTML pages by design (the studio's ended-session page). */
  htmlPaths?: RegExp,
): Promise<{ failures: string[]; statuses: Record<number, number> }> {
  const port = Number(new URL(url).port);
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const codes = new Set<string>(API_ERROR_TABLE.codes());
  const failures: string[] = [];
  const statuses: Record<number, number> = {};
  let next = 0;
  const worker = async () => {
    while (next < requests.length) {
      const r = requests[next++];
      let a: Answer;
      try {
        a = await send(port, agent, r);
      } catch (e) {
        failures.push(`${r.method} ${r.path.slice(0, 120)}: ${(e as Error).message}`);
        continue;
      }
      statuses[a.status] = (statuses[a.status] ?? 0) + 1;
      const where = `${r.method} ${r.path.slice(0, 120)} → ${a.status}`;
      if (a.status >= 500) failures.push(`${where}: ${a.text.slice(0, 300)}`);
      if (!a.headers['x-request-id']) failures.push(`${where}: no X-Request-Id`);
      const isPage = htmlPaths?.test(r.path) === true && (a.headers['content-type'] ?? '').startsWith('text/html');
      if (a.status >= 400 && r.method !== 'HEAD' && !isPage) {
        let body: { code?: string; requestId?: string } = {};
        try {
          body = JSON.parse(a.text);
        } catch {
          failures.push(`${where}: not JSON: ${a.text.slice(0, 100)}`);
        }
        if (a.headers['content-type'] !== 'application/problem+json; charset=utf-8')
          failures.push(`${where}: content-type ${a.headers['content-type']}`);
        if (!body.code || !codes.has(body.code)) failures.push(`${where}: code ${body.code}`);
        if (body.requestId !== a.headers['x-request-id']) failures.push(`${where}: requestId differs from X-Request-Id`);
      }
      if (/\bat \w+ \(|node_modules|SELECT |INSERT |QueryFailedError/.test(a.text) || secrets.some((s) => a.text.includes(s))) {
        failures.push(`${where}: leaks internals: ${a.text.slice(0, 200)}`);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  agent.destroy();
  return { failures, statuses };
}
