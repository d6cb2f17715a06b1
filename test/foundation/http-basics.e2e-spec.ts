import { ProblemBody } from '@app/core';
import { expectProblem } from '../support/problems';
import { setUpSuite } from '../support/suite';

describe('HTTP basics of the partner API', () => {
  const suite = setUpSuite();

  describe('unknown routes', () => {
    it.each(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'])('%s /v1/… answers 404 not_found problem+json', async (method) => {
      const res = await suite.api
        .http()
        [method.toLowerCase() as 'get'](`/v1/does-not-exist/${method}`)
        .set(suite.org.auth);
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
    it('has every member of the contract and nothing internal', async () => {
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

    it.each(['has space', 'quote"d', '<script>', 'semi;colon', 'slash/ed', 'ünïcode'])(
      'replaces an unsafe id (%s)',
      async (bad) => {
        const res = await suite.api.http().get('/healthz').set('X-Request-Id', encodeURI(bad) === bad ? bad : bad);
        expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      },
    );
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

    it('reads a JSON body of exactly 64 KiB (the route then answers for itself)', async () => {
      const body = JSON.stringify({ pad: 'x'.repeat(64 * 1024 - 10) });
      expect(Buffer.byteLength(body)).toBe(64 * 1024);
      expectProblem(await post(body), 404, 'not_found');
    });
  });

  describe('malformed URLs', () => {
    it('a broken percent-encoding is 400 bad_request problem+json', async () => {
      expectProblem(await suite.api.http().get('/v1/scenes/%E0%A4%A').set(suite.org.auth), 400, 'bad_request');
    });

    it('an over-long path identifier is 400 invalid_id problem+json', async () => {
      expectProblem(await suite.api.http().get(`/v1/scenes/scn_${'A'.repeat(3000)}`).set(suite.org.auth), 400, 'invalid_id');
    });
  });

  describe('health and metrics', () => {
    it('healthz and readyz answer without a key', async () => {
      expect((await suite.api.http().get('/healthz')).body).toEqual({ status: 'ok' });
      const ready = await suite.api.http().get('/readyz');
      expect(ready.status).toBe(200);
      expect(ready.body).toEqual({ status: 'ready', checks: { database: 'up', redis: 'up' } });
    });

    it('exposes the request duration histogram by route template and status', async () => {
      await suite.api.http().get('/v1/does-not-exist').set(suite.org.auth);
      await suite.api.http().get('/healthz');
      const res = await suite.api.http().get('/metrics');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/plain/);
      expect(res.text).toMatch(/http_request_duration_seconds_count\{method="GET",route="\/healthz",status_code="200"\} \d+/);
      expect(res.text).toMatch(/http_request_duration_seconds_count\{method="GET",route="\(unmatched\)",status_code="404"\} \d+/);
      expect(res.text).not.toContain('does-not-exist');
    });
  });
});
