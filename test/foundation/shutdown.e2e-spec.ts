import { DataSource } from 'typeorm';
import { createEmbedSession, parseEmbedUrl } from '../factories/embed.factory';
import { createScene } from '../factories/scene.factory';
import { startApi, startStudio } from '../support/apps';
import { RawConnection, rawUpload, tryConnect } from '../support/raw-http';
import { SseClient } from '../support/sse';
import { setUpSuite } from '../support/suite';
import { stored } from '../support/stored';

/** A complete single-file upload: its head and body in one buffer. */
async function upload(auth: string) {
  const { head, body } = await rawUpload(auth);
  return Buffer.concat([Buffer.from(head), body]);
}

describe('graceful shutdown of an HTTP process', () => {
  const suite = setUpSuite();

  /** No worker runs here: the operation stays processing, its scene generating. */
  async function sceneOf(operationId: string): Promise<string> {
    return (await stored(suite.api.app.get(DataSource)).operation(operationId)).sceneId;
  }

  it('closes idle connections, refuses new ones, answers 503 to late requests and lets in-flight ones finish', async () => {
    const api = await startApi(suite.env);
    const port = Number(new URL(api.url).port);

    // An idle keep-alive connection that has served one request.
    const idle = await RawConnection.open(port);
    await idle.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n');
    expect((await idle.response()).status).toBe(200);
    // A request in flight: an upload whose body is half sent.
    const request = await upload(suite.org.auth.Authorization);
    const inFlight = await RawConnection.open(port);
    await inFlight.write(request.subarray(0, request.length >> 1));
    // A request whose headers have begun but not ended.
    const late = await RawConnection.open(port);
    await late.write('GET /v1/operations/op_01JD3Z8Q4W6K2M9T5X7B1C0VHE HTTP/1.1\r\nHost: localhost\r\n');

    const closed = api.close();

    await idle.closedPromise;
    expect(await tryConnect(port)).toBe('ECONNREFUSED');

    await late.write(`Authorization: ${suite.org.auth.Authorization}\r\n\r\n`);
    const refusedLate = await late.response();
    expect(refusedLate.status).toBe(503);
    expect(refusedLate.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(refusedLate.headers['connection']).toBe('close');
    expect(refusedLate.headers['retry-after']).toBe('5');
    expect(refusedLate.json()).toMatchObject({ code: 'unavailable', requestId: refusedLate.headers['x-request-id'] });

    await inFlight.write(request.subarray(request.length >> 1));
    const finished = await inFlight.response();
    expect(finished.status).toBe(201);
    expect(finished.headers['connection']).toBe('close');
    await inFlight.closedPromise;

    await closed;
  });

  it('a connection that never finishes its request head holds the shutdown for the header timeout, not the drain deadline', async () => {
    // Node stops its header-timeout checks when the server closes, and does not count a
    // half-sent head as idle: before the adapter dropped it, this close took the whole 25 s.
    const api = await startApi(suite.env, { config: { HTTP_HEADERS_TIMEOUT_SECONDS: '1', SHUTDOWN_TIMEOUT_SECONDS: '25' } });
    const port = Number(new URL(api.url).port);
    const trickling = await RawConnection.open(port);
    await trickling.write('GET /healthz HTTP/1.1\r\nHost: loc');

    const startedAt = performance.now();
    await api.close();
    await trickling.closedPromise;
    expect(performance.now() - startedAt).toBeLessThan(10_000);
  });

  it('the studio ends its open event streams (they never drain) and stops the same way', async () => {
    const studio = await startStudio(suite.env);
    const port = Number(new URL(studio.url).port);
    const created = await createScene(suite.api, suite.org, { prompt: 'A lighthouse on a cliff' });
    const session = await createEmbedSession(suite.api, suite.org, {
      sceneId: await sceneOf(created.body.operationId),
      origin: 'http://localhost:5173',
      mode: 'perform',
    });
    expect(session.status).toBe(201);
    const secret = parseEmbedUrl(session.body.url).secret;
    const stream = await SseClient.open(`${studio.url}/studio-api/v1/events`, { Authorization: `Bearer ${secret}` });
    expect(stream.status).toBe(200);
    await stream.next('scene.status');

    await studio.close();
    await stream.done;
    expect(await tryConnect(port)).toBe('ECONNREFUSED');
  });
});
