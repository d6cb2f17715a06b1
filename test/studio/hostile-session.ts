import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';

/** An answer read off a raw connection; `status` 0: the connection ended before an answer. */
export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/**
 * A request on its own connection with node:http, which hands over the answer as soon as its
 * head arrives, also while the body is still being sent: what a refusal before the body needs (the
 * server answers, reads a little more, then closes). Errors after the answer are the server's
 * lingering close, not failures.
 */
export function rawRequest(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: Buffer,
  /**
   * `abortAfterBytes`: send that much of the body, then drop the connection. `readBytes`: drop it
   * once that much of the answer arrived, after holding it unread for `holdMs` (back-pressure on
   * the server meanwhile).
   */
  options: { abortAfterBytes?: number; readBytes?: number; holdMs?: number } = {},
): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const u = new URL(url);
    let answer: RawAnswer | null = null;
    let settled = false;
    const done = () => {
      if (settled) return;
      settled = true;
      resolve(answer ?? { status: 0, headers: {}, body: Buffer.alloc(0) });
    };
    const req = request(
      { host: u.hostname, port: u.port, path: u.pathname, method, headers: { ...headers, connection: 'close' } },
      (res) => {
        answer = { status: res.statusCode ?? 0, headers: res.headers, body: Buffer.alloc(0) };
        const chunks: Buffer[] = [];
        let received = 0;
        res.on('data', (chunk: Buffer) => {
          received += chunk.length;
          // Downloads are hashed as they come, not kept: what matters is that they arrive whole.
          if (res.headers['content-type']?.includes('json')) chunks.push(chunk);
          else hashOf(answer!).update(chunk);
          if (options.readBytes !== undefined && received >= options.readBytes && !res.isPaused()) {
            res.pause();
            setTimeout(() => {
              req.destroy();
              done();
            }, options.holdMs ?? 0);
          }
        });
        res.on('end', () => {
          answer!.body = Buffer.concat(chunks);
          done();
        });
        res.on('error', done);
        res.on('close', done);
      },
    );
    req.on('error', done);
    req.on('close', () => setImmediate(done));
    if (!body) {
      req.end();
      return;
    }
    const cut = options.abortAfterBytes;
    if (cut !== undefined) {
      req.write(body.subarray(0, cut), () => {
        req.destroy();
        done();
      });
      return;
    }
    req.end(body);
  });
}

const hashes = new WeakMap<RawAnswer, ReturnType<typeof createHash>>();
function hashOf(answer: RawAnswer) {
  let h = hashes.get(answer);
  if (!h) hashes.set(answer, (h = createHash('sha256')));
  return h;
}

/** The SHA-256 of a download read by `rawRequest`. */
export function downloadDigest(answer: RawAnswer): string {
  return hashOf(answer).digest('hex');
}

/** The problem body of a JSON answer. */
export function problemOf(answer: RawAnswer): { code?: string; status?: number } {
  try {
    return JSON.parse(answer.body.toString('utf8')) as { code?: string; status?: number };
  } catch {
    return {};
  }
}

/** Resident memory of a process now and at its peak (VmRSS, VmHWM), in bytes, read from /proc. */
export function residentMemory(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1] ?? Number.NaN) * 1024;
  return { rss: kib('VmRSS'), peak: kib('VmHWM') };
}

/**
 * A camera-path take of 20 000 samples (the format's most) with every number at full precision
 * and 1 000 markers, written out with an indentation that brings the body just under 8 MiB: the
 * largest valid write there is, costly to parse and check.
 */
export function largestTakeBody(): Buffer {
  const lens = {
    focalLengthMm: 35.123456789012345,
    focusDistanceM: 8.123456789012345,
    fNumber: 2.8123456789012345,
    rollDeg: 0.123456789012345,
  };
  const pose = (i: number) => {
    const a = i / 500;
    return {
      position: [Math.sin(a) * 12.345678901234567, 1.6 + Math.cos(a) / 3, 8 - a / 7],
      quaternion: [0, Math.sin(a / 2), 0, Math.cos(a / 2)],
    };
  };
  const samples = Array.from({ length: 20_000 }, (_, i) => ({
    t: i * 16.666666666666668,
    ...pose(i),
    ...lens,
    verticalFovDeg: 37.849283829121,
  }));
  const markers = Array.from({ length: 1000 }, (_, i) => ({ t: i * 333.3, label: `Marker ${i}`.padEnd(60, '.'), ...pose(i) }));
  const document = {
    format: 'scene-studio.camera-path',
    formatVersion: 1,
    sceneVersion: 1,
    recordedAt: '2026-11-26T10:00:00.000Z',
    durationMs: 333_334,
    video: { mimeType: 'video/webm;codecs=vp9', aspect: 1.777778 },
    coordinateSystem: 'gltf',
    sensor: { widthMm: 36, heightMm: 24, filmGaugeMm: 36 },
    samples,
    markers,
  };
  const body = { kind: 'path', name: 'The longest take', document };
  const limit = 8 * 1024 * 1024;
  for (const indent of [2, 1, 0]) {
    const text = Buffer.from(JSON.stringify(body, null, indent));
    if (text.length <= limit) return text;
  }
  throw new Error('the take does not fit in 8 MiB');
}

/** A seeded generator (mulberry32): the same seed, the same campaign. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Metrics of a process's ops port that tell whether it holds anything. */
export interface HeldMetrics {
  writeSlots: number;
  readSlots: number;
  connections: number;
  poolTotal: number;
  poolIdle: number;
  poolWaiting: number;
  timers: number;
  heapUsed: number;
  lagP99: number;
  lagMax: number;
}

/** Reads them; note that a scrape also restarts the event-loop delay histogram (prom-client resets it). */
export async function heldMetrics(opsUrl: string): Promise<HeldMetrics> {
  const text = await (await fetch(`${opsUrl}/metrics`, { headers: { connection: 'close' } })).text();
  const value = (pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? Number.NaN);
  return {
    writeSlots: value(/^studio_write_slots_in_use (\d+)$/m),
    readSlots: value(/^studio_read_slots_in_use (\d+)$/m),
    connections: value(/^http_open_connections (\d+)$/m),
    poolTotal: value(/^database_pool_connections\{state="total"\} (\d+)$/m),
    poolIdle: value(/^database_pool_connections\{state="idle"\} (\d+)$/m),
    poolWaiting: value(/^database_pool_connections\{state="waiting"\} (\d+)$/m),
    timers: value(/^nodejs_active_resources\{type="Timeout"\} (\d+)$/m),
    heapUsed: value(/^nodejs_heap_size_used_bytes (\d+)$/m),
    lagP99: value(/^nodejs_eventloop_lag_p99_seconds ([\d.e-]+)$/m),
    lagMax: value(/^nodejs_eventloop_lag_max_seconds ([\d.e-]+)$/m),
  };
}
