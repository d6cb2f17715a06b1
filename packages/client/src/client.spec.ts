import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SceneStudioClient } from './client';
import { OperationTimeoutError, SceneStudioError } from './errors';

/**
 * The client's retry and polling rules against a scripted fetch (the api's answers as
 * docs/api.md writes them); test/client/client.e2e-spec.ts runs the same helpers against the real api.
 */
type Answer = { status: number; body?: unknown; headers?: Record<string, string> } | Error;

function scripted(answers: Answer[]) {
  const requests: Request[] = [];
  const fetch = async (input: Request) => {
    requests.push(input.clone());
    const next = answers.shift();
    if (!next) throw new Error('no scripted answer left');
    if (next instanceof Error) throw next;
    const problem = next.status >= 400;
    return new Response(next.body === undefined ? null : JSON.stringify(next.body), {
      status: next.status,
      headers: { 'content-type': problem ? 'application/problem+json' : 'application/json', ...next.headers },
    });
  };
  const waits: number[] = [];
  const sut = new SceneStudioClient({
    apiKey: 'sk_test_abc',
    baseUrl: 'http://api.invalid/',
    fetch: fetch as typeof globalThis.fetch,
    sleep: async (ms) => void waits.push(ms),
    retry: { baseDelayMs: 100 },
  });
  return { sut, requests, waits, answers };
}

const problem = (status: number, code: string) => ({ type: `x/${code}`, title: code, status, code, detail: code, requestId: 'req_1' });
const OP = 'op_01JD3Z8Q4W6K2M9T5X7B1C0VHE';
const accepted = { operationId: OP, status: 'processing', createdAt: '2026-11-25T03:00:00.000Z' };
const processing = (progress: number, stage: string) => ({ ...accepted, progress, stage, updatedAt: accepted.createdAt });
const succeeded = {
  ...accepted,
  status: 'succeeded',
  sceneId: 'scn_01JD3Z8Q4W6K2M9T5X7B1C0VHE',
  version: 1,
  updatedAt: 'x',
  completedAt: 'x',
};

describe(SceneStudioClient.name, () => {
  describe('createScene', () => {
    it('sends one Idempotency-Key on every attempt, waiting Retry-After between them', async () => {
      const { sut, requests, waits } = scripted([
        new TypeError('fetch failed'),
        { status: 503, body: problem(503, 'unavailable'), headers: { 'retry-after': '2' } },
        { status: 409, body: problem(409, 'idempotency_request_in_progress'), headers: { 'retry-after': '1' } },
        { status: 202, body: accepted, headers: { 'idempotent-replayed': 'true' } },
      ]);
      const created = await sut.createScene({ prompt: 'A lighthouse' });
      expect(created).toEqual({ ...accepted, idempotencyKey: expect.stringMatching(/^[0-9a-f-]{36}$/), replayed: true });
      const keys = requests.map((r) => r.headers.get('idempotency-key'));
      expect(keys).toEqual([created.idempotencyKey, created.idempotencyKey, created.idempotencyKey, created.idempotencyKey]);
      expect(requests.every((r) => r.headers.get('authorization') === 'Bearer sk_test_abc')).toBe(true);
      expect(requests[0].url).toBe('http://api.invalid/v1/scenes');
      expect(await requests[0].json()).toEqual({ prompt: 'A lighthouse' });
      expect(waits.slice(1)).toEqual([2000, 1000]);
      expect(waits[0]).toBeLessThanOrEqual(100);
    });

    it('abandons an attempt the server does not answer in time and resends it with the same key', async () => {
      // A real server this time: the first request is left hanging, the second answered.
      const seen: Array<string | undefined> = [];
      const hanging: ServerResponse[] = [];
      const server = createServer((req: IncomingMessage, res: ServerResponse) => {
        seen.push(req.headers['idempotency-key'] as string | undefined);
        if (seen.length === 1) return void hanging.push(res);
        res.writeHead(202, { 'content-type': 'application/json' }).end(JSON.stringify(accepted));
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      try {
        const sut = new SceneStudioClient({
          apiKey: 'sk_test_abc',
          baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
          requestTimeoutMs: 300,
          retry: { baseDelayMs: 10 },
        });
        const created = await sut.createScene({ prompt: 'A lighthouse' });
        expect(created.operationId).toBe(OP);
        expect(seen).toEqual([created.idempotencyKey, created.idempotencyKey]);
      } finally {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        await new Promise((r) => server.close(r));
      }
    });

    it('uses the caller’s stored key, and a fresh v4 UUID per call otherwise', async () => {
      const { sut, requests } = scripted([
        { status: 202, body: accepted },
        { status: 202, body: accepted },
        { status: 202, body: accepted },
      ]);
      const key = '0b5c4f5e-9d2a-4c1b-8e3f-2a7d6c5b4a39';
      expect((await sut.createScene({ prompt: 'p', idempotencyKey: key })).idempotencyKey).toBe(key);
      await sut.createScene({ prompt: 'p' });
      await sut.createScene({ prompt: 'p' });
      const [, a, b] = requests.map((r) => r.headers.get('idempotency-key'));
      expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(a).not.toBe(b);
      expect(requests[0].headers.get('idempotency-key')).toBe(key);
    });

    it('throws the problem of a decided refusal at once, and the last one when attempts run out', async () => {
      const { sut, requests } = scripted([
        { status: 422, body: { ...problem(422, 'validation_failed'), errors: [{ field: 'prompt', code: 'too_long', message: 'm' }] } },
      ]);
      const e = await sut.createScene({ prompt: 'x' }).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(SceneStudioError);
      expect(e).toMatchObject({ status: 422, code: 'validation_failed', requestId: 'req_1', errors: [{ field: 'prompt' }] });
      expect(requests).toHaveLength(1);

      const five = Array.from({ length: 5 }, () => ({ status: 429, body: problem(429, 'rate_limited'), headers: { 'retry-after': '1' } }));
      const limited = scripted(five);
      await expect(limited.sut.createScene({ prompt: 'x' })).rejects.toMatchObject({ code: 'rate_limited', retryAfterSeconds: 1 });
      expect(limited.requests).toHaveLength(5);
    });

    it('makes a problem of an answer that is not problem+json', async () => {
      const { sut } = scripted([{ status: 500, body: 'oops', headers: { 'x-request-id': 'req_9' } }]);
      await expect(sut.createScene({ prompt: 'x' })).rejects.toMatchObject({ status: 500, code: 'internal_error', requestId: 'req_9' });
    });
  });

  describe('waitForOperation', () => {
    it('polls at the pace of Retry-After and reports progress that never goes back', async () => {
      const { sut, waits } = scripted([
        { status: 200, body: processing(0, 'queued'), headers: { 'retry-after': '1' } },
        { status: 200, body: processing(0.5, 'generating'), headers: { 'retry-after': '3' } },
        { status: 200, body: processing(0.4, 'generating'), headers: { 'retry-after': '2' } },
        { status: 503, body: problem(503, 'unavailable'), headers: { 'retry-after': '4' } },
        { status: 200, body: processing(0.9, 'storing') },
        { status: 200, body: succeeded },
      ]);
      const seen: Array<[number, string | null]> = [];
      const done = await sut.waitForOperation(OP, { onProgress: ({ progress, stage }) => seen.push([progress, stage]) });
      expect(done).toEqual(succeeded);
      expect(seen).toEqual([
        [0, 'queued'],
        [0.5, 'generating'],
        [0.9, 'storing'],
      ]);
      // 1, 3, 2 from Retry-After; 4 for the 503 retry; 1 s when a processing answer has none.
      expect(waits).toEqual([1000, 3000, 2000, 4000, 1000]);
    });

    it('returns a failed operation instead of throwing, and caps a long Retry-After', async () => {
      const failed = { ...accepted, status: 'failed', error: { code: 'cancelled', message: 'm', retryable: true } };
      const { sut, waits } = scripted([
        { status: 200, body: processing(0.1, 'queued'), headers: { 'retry-after': '60' } },
        { status: 200, body: failed },
      ]);
      expect(await sut.waitForOperation(OP, { maxPollIntervalMs: 5000 })).toEqual(failed);
      expect(waits).toEqual([5000]);
    });

    it('stops waiting at once when its signal aborts', async () => {
      const answers = [{ status: 200, body: processing(0.1, 'queued'), headers: { 'retry-after': '30' } }];
      const fetch = async () =>
        new Response(JSON.stringify(answers[0].body), {
          status: 200,
          headers: { 'content-type': 'application/json', ...answers[0].headers },
        });
      // The real timer this time: the abort must cut a 30-second wait short.
      const sut = new SceneStudioClient({ apiKey: 'sk_test_abc', baseUrl: 'http://api.invalid', fetch: fetch as typeof globalThis.fetch });
      const controller = new AbortController();
      const started = Date.now();
      const waiting = sut.waitForOperation(OP, { signal: controller.signal });
      setTimeout(() => controller.abort(), 50);
      await expect(waiting).rejects.toMatchObject({ name: 'AbortError' });
      expect(Date.now() - started).toBeLessThan(10_000);
    });

    it('gives up with OperationTimeoutError after its deadline', async () => {
      const forever = Array.from({ length: 50 }, () => ({ status: 200, body: processing(0.1, 'queued'), headers: { 'retry-after': '1' } }));
      const { sut } = scripted(forever);
      await expect(sut.waitForOperation(OP, { timeoutMs: 0 })).rejects.toBeInstanceOf(OperationTimeoutError);
    });
  });

  describe('createEmbedSession', () => {
    it('does not resend after a lost connection (a session is not idempotent) but does after 429', async () => {
      const lost = scripted([new TypeError('fetch failed')]);
      const input = { sceneId: succeeded.sceneId, origin: 'https://app.example', mode: 'edit' as const };
      await expect(lost.sut.createEmbedSession(input)).rejects.toThrow('fetch failed');
      expect(lost.requests).toHaveLength(1);

      const limited = scripted([
        { status: 429, body: problem(429, 'rate_limited'), headers: { 'retry-after': '1' } },
        { status: 201, body: { embedSessionId: 'es_1', url: 'u' } },
      ]);
      expect(await limited.sut.createEmbedSession(input)).toEqual({ embedSessionId: 'es_1', url: 'u' });
      expect(limited.waits).toEqual([1000]);
    });
  });

  describe('findSceneByExternalRef', () => {
    it('is null for 404 and encodes the reference in the query', async () => {
      const { sut, requests } = scripted([{ status: 404, body: problem(404, 'not_found') }]);
      expect(await sut.findSceneByExternalRef('order 42/a&b')).toBeNull();
      expect(new URL(requests[0].url).searchParams.get('externalRef')).toBe('order 42/a&b');
    });
  });
});
