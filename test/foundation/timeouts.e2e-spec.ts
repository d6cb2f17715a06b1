import { RawConnection, RawResponse } from '../support/raw-http';
import { setUpSuite } from '../support/suite';

describe('timeouts of a request, answered 408 request_timeout problem details', () => {
  const suite = setUpSuite({ api: { config: { HTTP_HEADERS_TIMEOUT_SECONDS: '1', JSON_BODY_TIMEOUT_SECONDS: '1' } } });

  async function stall(bytes: string): Promise<{ res: RawResponse; ms: number }> {
    const conn = await RawConnection.open(Number(new URL(suite.api.url).port));
    const started = Date.now();
    await conn.write(bytes);
    const res = await conn.response();
    const ms = Date.now() - started;
    await conn.closedPromise;
    return { res, ms };
  }

  it('headers that stop arriving', async () => {
    const { res, ms } = await stall('GET /v1/scenes HTTP/1.1\r\nHost: localhost\r\nX-Partial: ');
    expect(res.status).toBe(408);
    expect(res.json()).toMatchObject({ code: 'request_timeout', requestId: res.headers['x-request-id'] });
    expect(ms).toBeLessThan(5000);
  });

  it('a JSON body that stops arriving', async () => {
    const { res, ms } = await stall(
      `POST /v1/scenes HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${suite.org.auth.Authorization}\r\n` +
        'Idempotency-Key: 1f0e8c1a-5d2b-4c3e-9f4a-7b6c5d4e3f2a\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"prompt": "a lake',
    );
    expect(res.status).toBe(408);
    expect(res.json()).toMatchObject({ code: 'request_timeout', requestId: res.headers['x-request-id'] });
    expect(ms).toBeLessThan(5000);
  });

  it('a request that keeps its body coming in time is served', async () => {
    const res = await suite.api
      .http()
      .post('/v1/scenes')
      .set(suite.org.auth)
      .set('Idempotency-Key', '2f0e8c1a-5d2b-4c3e-9f4a-7b6c5d4e3f2a')
      .send({ prompt: 'a lake' });
    expect(res.status).toBe(202);
  });
});
