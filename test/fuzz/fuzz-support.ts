import { ErrorCode } from '@app/core';
import http from 'node:http';

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
 * problem of the contract (problem+json, a known code, the same request id), nothing internal
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
  const codes = new Set<string>(Object.values(ErrorCode));
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
