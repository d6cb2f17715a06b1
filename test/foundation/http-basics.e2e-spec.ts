import { ProblemBody } from '@app/core';
import { startOps, startStudio } from '../support/apps';
import { expectProblem } from '../support/problems';
import { RawConnection } from '../support/raw-http';
import { setUpSuite } from '../support/suite';

describe('HTTP basics of the partner API', () => {
  const suite = setUpSuite();

  describe('unknown routes', () => {
    it.each(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'])('%s /v1/… answers 404 not_found problem+json', async (method) => {
      const res = await suite.api.http()[method.toLowerCase() as 'get'](`/v1/does-not-exist/${method}`).set(suite.org.auth);
      expectProblem(res, 404, 'not_found');
    });

    it('answers 404 for a path outside /v1 too', async () => {
      expectProblem(await suite.api.http().get('/nothing-here').set(suite.org.auth), 404, 'not_found');
    });

    it('answers 401, not 404, to the same request without a key', async () => {
      expectProblem(await suite.api.http().get('/v1/does-not-exist'), 401, 'unauthenticated');
    });
  });

  describe('problem details', () => {
    it('has every documented member and nothing internal', async () => {
      const res = await suite.api.http().get('/v1/does-not-exist').set(suite.org.auth);
      const body = res.body as ProblemBody;
      expect(res.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(Object.keys(body).sort()).toEqual(['code', 'detail', 'requestId', 'status', 'title', 'type']);
      expect(body.type).toBe('http://localhost:3000/problems/not_found');
      expect(body.status).toBe(404);
      expect(body.requestId).toBe(res.headers['x-request-id']);
      expect(JSON.stringify(body)).not.toMatch(/stack|at \w+ \(|node_modules|SELECT /i);
    });
  });

  describe('X-Request-Id', () => {
    it('generates one when none is sent', async () => {
      const res = await suite.api.http().get('/healthz');
      expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    });

    it('echoes a sane incoming id on success and on errors', async () => {
      const id = 'partner-req_01.abc:def~9';
      expect((await suite.api.http().get('/healthz').set('X-Request-Id', id)).headers['x-request-id']).toBe(id);
      const res = await suite.api.http().get('/v1/x').set('X-Request-Id', id);
      expect(res.status).toBe(401);
      expect(res.headers['x-request-id']).toBe(id);
      expect(res.body.requestId).toBe(id);
    });

    it('accepts 128 characters and replaces 129', async () => {
      const ok = 'a'.repeat(128);
      expect((await suite.api.http().get('/healthz').set('X-Request-Id', ok)).headers['x-request-id']).toBe(ok);
      const tooLong = 'a'.repeat(129);
      const res = await suite.api.http().get('/healthz').set('X-Request-Id', tooLong);
      expect(res.headers['x-request-id']).not.toBe(tooLong);
      expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    });

    it.each(['has space', 'quote"d', '<script>', 'semi;colon', 'slash/ed', 'ünïcode'])('replaces an unsafe id (%s)', async (bad) => {
      const res = await suite.api
        .http()
        .get('/healthz')
        .set('X-Request-Id', encodeURI(bad) === bad ? bad : bad);
      expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    });
  });

  describe('JSON bodies', () => {
    const post = (body: string, type = 'application/json') =>
      suite.api.http().post('/v1/does-not-exist').set(suite.org.auth).set('Content-Type', type).send(body);

    it.each([
      ['malformed', '{"prompt": '],
      ['an array', '[1,2]'],
      ['a string', '"text"'],
      ['a number', '42'],
      ['null', 'null'],
      ['trailing garbage', '{"a":1} x'],
    ])('refuses %s with 400 invalid_json', async (_, body) => {
      expectProblem(await post(body), 400, 'invalid_json');
    });

    it('refuses a body nested deeper than 32 levels with 400 invalid_json', async () => {
      const deep = `{"a":${'['.repeat(5000)}${']'.repeat(5000)}}`;
      const res = await post(deep);
      expectProblem(res, 400, 'invalid_json');
      expect(res.body.detail).toContain('32 levels');
      expectProblem(await post(`{"a":${'['.repeat(30)}${']'.repeat(30)}}`), 404, 'not_found');
    });

    it('refuses a JSON body over 64 KiB with 413 payload_too_large', async () => {
      const body = JSON.stringify({ pad: 'x'.repeat(64 * 1024 - 9) });
      expect(Buffer.byteLength(body)).toBe(64 * 1024 + 1);
      expectProblem(await post(body), 413, 'payload_too_large');
    });

    it('refuses a chunked JSON body once it passes 64 KiB with 413 payload_too_large', async () => {
      const conn = await RawConnection.open(Number(new URL(suite.api.url).port));
      const chunk = `{"prompt": "${'x'.repeat(70 * 1024)}"}`;
      await conn.write(
        `POST /v1/scenes HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${suite.org.auth.Authorization}\r\n` +
          `Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${chunk.length.toString(16)}\r\n${chunk}\r\n`,
      );
      const res = await conn.response();
      expect(res.status).toBe(413);
      expect(res.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(res.json()).toMatchObject({ code: 'payload_too_large', requestId: res.headers['x-request-id'] });
      conn.destroy();
    });

    it.each([
      ['at the top', '{"prompt": "a", "prompt": "b"}', 'prompt'],
      ['in a nested object', '{"theme": {"accentColor": "#000000", "accentColor": "#ffffff"}}', 'accentColor'],
      ['inside an array', '{"list": [{"x": 1, "x": 2}]}', 'x'],
    ])('refuses a key repeated %s with 400 invalid_json naming it', async (_, body, key) => {
      const res = await post(body);
      expectProblem(res, 400, 'invalid_json');
      expect(res.body.detail).toContain(`"${key}"`);
    });

    it.each([
      ['__proto__', '{"prompt": "a", "__proto__": {"admin": true}}'],
      ['constructor.prototype', '{"prompt": "a", "constructor": {"prototype": {"admin": true}}}'],
    ])('refuses the prototype key %s with 400 invalid_json', async (_, body) => {
      const res = await post(body);
      expectProblem(res, 400, 'invalid_json');
      expect(res.body.detail).toContain('reserved key');
      expect(({} as Record<string, unknown>).admin).toBeUndefined();
    });

    it('keeps a plain "constructor" field (the route then answers for itself)', async () => {
      expectProblem(await post('{"constructor": "x"}'), 404, 'not_found');
    });

    it.each([
      ['a compressed body', { 'Content-Encoding': 'gzip' }],
      ['a charset other than UTF-8', { 'Content-Type': 'application/json; charset=iso-8859-1' }],
      ['text/plain', { 'Content-Type': 'text/plain' }],
      ['a form', { 'Content-Type': 'application/x-www-form-urlencoded' }],
    ])('refuses %s on a JSON route with 415 unsupported_media_type', async (_, headers) => {
      const res = await suite.api
        .http()
        .post('/v1/embed-sessions')
        .set(suite.org.auth)
        .set('Content-Type', 'application/json')
        .set(headers)
        .send('{"sceneId": "scn_01JD3Z8Q4W6K2M9T5X7B1C0VHE"}');
      expectProblem(res, 415, 'unsupported_media_type');
    });

    it('reads a JSON body of exactly 64 KiB (the route then answers for itself)', async () => {
      const body = JSON.stringify({ pad: 'x'.repeat(64 * 1024 - 10) });
      expect(Buffer.byteLength(body)).toBe(64 * 1024);
      expectProblem(await post(body), 404, 'not_found');
    });
  });

  describe('routing', () => {
    const id = 'op_01JD3Z8Q4W6K2M9T5X7B1C0VHE';

    it.each([
      ['another letter case', `/V1/operations/${id}`],
      ['a trailing slash', `/v1/operations/${id}/`],
      ['a doubled slash', `/v1//operations/${id}`],
    ])('matches paths exactly: %s is an unknown route (404 not_found)', async (_, path) => {
      const res = await suite.api.http().get(path).set(suite.org.auth);
      expectProblem(res, 404, 'not_found');
      expect(res.body.detail).not.toContain('Cannot GET');
    });

    it('answers OPTIONS like any unknown route, not with an Allow list', async () => {
      expectProblem(await suite.api.http().options('/v1/scenes').set(suite.org.auth), 404, 'not_found');
    });

    it('sends no framework fingerprint and no ETag', async () => {
      const res = await suite.api.http().get(`/v1/operations/${id}`).set(suite.org.auth);
      expect(res.headers['x-powered-by']).toBeUndefined();
      expect(res.headers['etag']).toBeUndefined();
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['cache-control']).toBe('no-store');
    });
  });

  describe("errors of Node's HTTP parser, as problem details with a request id", () => {
    const rawProblem = async (request: string | Buffer) => {
      const conn = await RawConnection.open(Number(new URL(suite.api.url).port));
      await conn.write(request);
      const res = await conn.response();
      await conn.closedPromise;
      expect(res.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      expect(res.headers['connection']).toBe('close');
      const body = res.json();
      expect(body.requestId).toBe(res.headers['x-request-id']);
      return { status: res.status, code: body.code };
    };

    it.each([
      ['a malformed request line', 'GET /v1/x HTTQ/1.1\r\n\r\n'],
      ['a header without a colon', 'GET /v1/x HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n'],
      [
        'both Content-Length and Transfer-Encoding',
        'POST /v1/x HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      ],
      ['a broken chunk size', 'POST /v1/x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n'],
    ])('%s → 400 bad_request', async (_, request) => {
      expect(await rawProblem(request)).toEqual({ status: 400, code: 'bad_request' });
    });

    // RFC 9112 §9.6: a server that closes while the client still sends makes its kernel answer the
    // next segment with a reset, and a reset can make the client drop the answer unread (the hostile
    // upload campaign saw it once in thousands of cases). So the rest is read and dropped first.
    it('reads on after refusing the framing, so a client still sending gets a clean close', async () => {
      const conn = await RawConnection.open(Number(new URL(suite.api.url).port), { allowHalfOpen: true });
      const clientErrors: string[] = [];
      conn.socket.on('error', (e: NodeJS.ErrnoException) => clientErrors.push(e.code ?? e.message));
      await conn.write('POST /v1/image-assets HTTP/1.1\r\nHost: x\r\nContent-Length: 900000\r\nTransfer-Encoding: chunked\r\n\r\n');
      const res = await conn.response();
      expect(res.status).toBe(400);
      // The server has answered and ended its side: keep sending, as a client streaming an upload does.
      const chunk = Buffer.alloc(16 * 1024, 0x61);
      for (let sent = 0; sent < 512 * 1024; sent += chunk.length) {
        await conn.write(chunk).catch((e: NodeJS.ErrnoException) => clientErrors.push(e.code ?? e.message));
        await new Promise((resolve) => setImmediate(resolve));
      }
      conn.socket.end();
      await conn.closedPromise;
      expect(clientErrors).toEqual([]);
    });

    it('cuts an answered connection whose client sends on past the lingering budget', async () => {
      const conn = await RawConnection.open(Number(new URL(suite.api.url).port), { allowHalfOpen: true });
      await conn.write('POST /v1/image-assets HTTP/1.1\r\nHost: x\r\nContent-Length: 9\r\nTransfer-Encoding: chunked\r\n\r\n');
      expect((await conn.response()).status).toBe(400);
      const chunk = Buffer.alloc(64 * 1024, 0x61);
      // Past 2 MiB (LINGER_BYTES) the server stops reading and closes; loopback would carry far
      // more than 16 MiB within the 2 s lingering time, so the byte budget is what ended it.
      let sent = 0;
      while (sent < 256 * 1024 * 1024 && !conn.socket.destroyed) {
        await conn.write(chunk).catch(() => undefined);
        sent += chunk.length;
      }
      await conn.closedPromise;
      expect(sent).toBeLessThan(16 * 1024 * 1024);
    });

    it.each([
      ['kept alive', ''],
      ['to be closed', 'Connection: close\r\n'],
    ])(
      'reads a refused body on up to its declared length, so a client sending 8 MiB reads the answer (connection %s)',
      async (_, extra) => {
        // An anonymous upload is answered before its body is read; an honest client sends all it
        // declared before it looks at the answer. Cut at 2 MiB, or closed as soon as the answer was
        // written (Node's own handling of `Connection: close`), it would meet a reset instead.
        const conn = await RawConnection.open(Number(new URL(suite.api.url).port), { allowHalfOpen: true });
        const clientErrors: string[] = [];
        conn.socket.on('error', (e: NodeJS.ErrnoException) => clientErrors.push(e.code ?? e.message));
        const declared = 8 * 1024 * 1024;
        await conn.write(
          `POST /v1/image-assets HTTP/1.1\r\nHost: x\r\n${extra}Content-Type: multipart/form-data; boundary=b\r\nContent-Length: ${declared}\r\n\r\n`,
        );
        const chunk = Buffer.alloc(64 * 1024, 0x61);
        for (let sent = 0; sent < declared; sent += chunk.length) {
          await conn.write(chunk).catch((e: NodeJS.ErrnoException) => clientErrors.push(e.code ?? e.message));
        }
        expect((await conn.response()).status).toBe(401);
        expect(clientErrors).toEqual([]);
        conn.socket.end();
        await conn.closedPromise;
        expect(clientErrors).toEqual([]);
      },
    );

    it('reads a refused body declared longer than 16 MiB only up to the 2 MiB budget', async () => {
      const conn = await RawConnection.open(Number(new URL(suite.api.url).port), { allowHalfOpen: true });
      await conn.write(
        'POST /v1/image-assets HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: 268435456\r\n\r\n',
      );
      const chunk = Buffer.alloc(64 * 1024, 0x61);
      let sent = 0;
      while (sent < 256 * 1024 * 1024 && !conn.socket.destroyed) {
        await conn.write(chunk).catch(() => undefined);
        sent += chunk.length;
      }
      await conn.closedPromise;
      expect(sent).toBeLessThan(16 * 1024 * 1024);
    });

    it('headers over 16 KiB → 431 headers_too_large', async () => {
      expect(await rawProblem(`GET /v1/x HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20 * 1024)}\r\n\r\n`)).toEqual({
        status: 431,
        code: 'headers_too_large',
      });
    });

    it('an Expect other than 100-continue → 417 expectation_failed', async () => {
      const request = `POST /v1/scenes HTTP/1.1\r\nHost: x\r\nAuthorization: ${suite.org.auth.Authorization}\r\nExpect: something-else\r\nContent-Length: 2\r\n\r\n{}`;
      expect(await rawProblem(request)).toEqual({ status: 417, code: 'expectation_failed' });
    });
  });

  describe('the Host header (RFC 9112, section 3.2), on every server of ours', () => {
    const servers: Record<string, { port: number; close: () => Promise<void> }> = {};

    beforeAll(async () => {
      const ops = await startOps(suite.api.app);
      const studio = await startStudio(suite.env);
      servers['api'] = { port: Number(new URL(suite.api.url).port), close: async () => undefined };
      servers['api ops'] = { port: Number(new URL(ops.url).port), close: ops.close };
      servers['studio'] = { port: Number(new URL(studio.url).port), close: studio.close };
    });

    afterAll(async () => {
      for (const server of Object.values(servers)) await server.close();
    });

    const send = async (server: string, request: string) => {
      const conn = await RawConnection.open(servers[server].port);
      await conn.write(request);
      const res = await conn.response();
      return { res, conn };
    };

    describe.each(['api', 'api ops', 'studio'])('%s', (server) => {
      it.each([
        ['an HTTP/1.1 request without Host', 'GET /healthz HTTP/1.1\r\nX-Request-Id: no-host-1\r\n\r\n', /Host header/],
        ['two Host headers', 'GET /healthz HTTP/1.1\r\nHost: a.example\r\nHost: b.example\r\nX-Request-Id: no-host-1\r\n\r\n', /one Host/],
      ])('%s → 400 bad_request problem+json with the request id, and the connection closes', async (_, request, detail) => {
        const { res, conn } = await send(server, request);
        expect(res.status).toBe(400);
        expect(res.headers['content-type']).toBe('application/problem+json; charset=utf-8');
        expect(res.headers['x-request-id']).toBe('no-host-1');
        expect(res.headers['connection']).toBe('close');
        expect(res.json()).toMatchObject({
          status: 400,
          code: 'bad_request',
          detail: expect.stringMatching(detail),
          requestId: 'no-host-1',
        });
        await conn.closedPromise;
      });

      it('an HTTP/1.0 request may go without Host', async () => {
        const { res, conn } = await send(server, 'GET /healthz HTTP/1.0\r\n\r\n');
        expect(res.status).toBe(200);
        expect(res.json()).toEqual({ status: 'ok' });
        conn.destroy();
      });
    });
  });

  describe('malformed URLs', () => {
    it('a broken percent-encoding is 400 bad_request problem+json', async () => {
      expectProblem(await suite.api.http().get('/v1/scenes/%E0%A4%A').set(suite.org.auth), 400, 'bad_request');
    });

    it('an over-long path identifier is 400 invalid_id problem+json', async () => {
      expectProblem(
        await suite.api
          .http()
          .get(`/v1/scenes/scn_${'A'.repeat(3000)}`)
          .set(suite.org.auth),
        400,
        'invalid_id',
      );
    });
  });

  describe('health and metrics', () => {
    it('healthz and readyz answer without a key', async () => {
      expect((await suite.api.http().get('/healthz')).body).toEqual({ status: 'ok' });
      const ready = await suite.api.http().get('/readyz');
      expect(ready.status).toBe(200);
      expect(ready.body).toEqual({ status: 'ready', checks: { database: 'up', redis: 'up' } });
    });

    it('exposes the request duration histogram by route template and status on the ops port', async () => {
      await suite.api.http().get('/v1/does-not-exist').set(suite.org.auth);
      await suite.api.http().get('/healthz');
      const ops = await startOps(suite.api.app);
      try {
        const res = await ops.http().get('/metrics');
        expect(res.status).toBe(200);
        expect(res.headers['content-type']).toMatch(/^text\/plain/);
        expect(res.headers['cache-control']).toBe('no-store');
        expect(res.text).toMatch(/http_request_duration_seconds_count\{method="GET",route="\/healthz",status_code="200"\} \d+/);
        expect(res.text).toMatch(/http_request_duration_seconds_count\{method="GET",route="\(unmatched\)",status_code="404"\} \d+/);
        expect(res.text).not.toContain('does-not-exist');
        expect((await ops.http().get('/readyz')).body).toEqual({ status: 'ready', checks: { database: 'up', redis: 'up' } });
      } finally {
        await ops.close();
      }
    });

    it('does not serve /metrics on the partner port: 401 without a key, 404 with one', async () => {
      expectProblem(await suite.api.http().get('/metrics'), 401, 'unauthenticated');
      const res = await suite.api.http().get('/metrics').set(suite.org.auth);
      expectProblem(res, 404, 'not_found');
      expect(res.text).not.toContain('http_request_duration_seconds');
    });
  });
});
