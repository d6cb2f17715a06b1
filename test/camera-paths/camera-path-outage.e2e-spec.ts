import { TcpProxy } from '@app/core/testing';
import { takeDocument } from '../factories/camera-path.factory';
import { createEmbedSession, parseEmbedUrl, readyScene } from '../factories/embed.factory';
import { RunningHttpApp, startStudio } from '../support/apps';
import { expectProblem } from '../support/problems';
import { setUpSuite } from '../support/suite';
import { postgresPort } from '../support/server-ports';

const PG_PORT = postgresPort();

/**
 * A take's body is read only once its session is known, which needs the database: with the
 * database away, the studio says so (503, Retry-After) before reading it, rather than anything
 * final, so the studio page retries the save rather than giving the take up.
 */
describe('a camera-path write during a database outage', () => {
  const suite = setUpSuite({ api: {}, worker: {}, org: { test: true } });
  const proxy = new TcpProxy('127.0.0.1', PG_PORT);
  let studio: RunningHttpApp;
  let bearer: { Authorization: string };

  beforeAll(async () => {
    const url = new URL(suite.env.databaseUrl);
    url.port = String(await proxy.start());
    studio = await startStudio(suite.env, { config: { DATABASE_URL: url.toString() } });
    const sceneId = await readyScene(suite.api, suite.org);
    const session = await createEmbedSession(suite.api, suite.org, { sceneId, origin: 'http://localhost:5173', mode: 'perform' });
    expect(session.status).toBe(201);
    bearer = { Authorization: `Bearer ${parseEmbedUrl(session.body.url).secret}` };
  });

  afterAll(async () => {
    await proxy.cut();
    await studio?.close();
  });

  it('answers 503 unavailable with Retry-After for a take over 64 KiB, not 413, and saves it once the database is back', async () => {
    const take = { kind: 'path', name: 'Take 1', document: takeDocument(2000) };
    expect(Buffer.byteLength(JSON.stringify(take))).toBeGreaterThan(64 * 1024);

    await proxy.cut();
    const during = await studio.http().post('/studio-api/v1/camera-paths').set(bearer).send(take);
    expectProblem(during, 503, 'unavailable');
    expect(during.headers['retry-after']).toBe('5');
    expect(JSON.stringify(during.body)).not.toMatch(/ECONN|terminat|postgres/i);

    await proxy.restore();
    const after = await studio.http().post('/studio-api/v1/camera-paths').set(bearer).send(take);
    expect(after.status).toBe(201);
  });
});
