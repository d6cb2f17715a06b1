import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { createScene } from '../factories/scene.factory';
import { expectProblem } from '../support/problems';
import { setUpSuite } from '../support/suite';
import { stored } from '../support/stored';

/**
 * POST /v1/operations/{id}:cancel through the api. No worker runs here, so operations stay
 * processing until cancelled; what a running provider job does on cancel is in faults.e2e-spec
 * and the service tier.
 */
describe('POST /v1/operations/{operationId}:cancel', () => {
  const suite = setUpSuite();
  const db = () => suite.api.app.get(DataSource);
  const cancel = (id: string) => suite.api.http().post(`/v1/operations/${id}:cancel`).set(suite.org.auth);

  it('a processing operation shows its progress and stage while it waits for a worker', async () => {
    const created = await createScene(suite.api, suite.org, { prompt: 'queued for a while' });
    const op = await suite.api.http().get(`/v1/operations/${created.body.operationId}`).set(suite.org.auth);
    expect(op.body).toEqual({
      operationId: created.body.operationId,
      kind: 'scene.create',
      externalRef: null,
      status: 'processing',
      progress: 0,
      stage: 'queued',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
  });

  it('ends a processing creation as failed `cancelled` at once, releases its scene and its externalRef', async () => {
    const created = await createScene(suite.api, suite.org, { prompt: 'never mind', externalRef: 'cancel-me' });
    const id = created.body.operationId;
    const res = await cancel(id);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['retry-after']).toBeUndefined();
    expect(res.body).toEqual({
      operationId: id,
      // The released creation keeps the externalRef it was created with, though it is free again.
      kind: 'scene.create',
      externalRef: 'cancel-me',
      status: 'failed',
      error: { code: 'cancelled', message: 'The operation was cancelled.', retryable: true },
      createdAt: created.body.createdAt,
      updatedAt: expect.any(String),
      completedAt: expect.any(String),
    });
    // GET shows the same thing; the scene is gone and its externalRef free again.
    const after = await suite.api.http().get(`/v1/operations/${id}`).set(suite.org.auth);
    expect(after.body).toEqual(res.body);
    expectProblem(await suite.api.http().get('/v1/scenes').query({ externalRef: 'cancel-me' }).set(suite.org.auth), 404, 'not_found');
    const { sceneId } = await stored(db()).operation(id);
    expectProblem(await suite.api.http().get(`/v1/scenes/${sceneId}`).set(suite.org.auth), 404, 'not_found');
    expect((await createScene(suite.api, suite.org, { prompt: 'a new take', externalRef: 'cancel-me' })).status).toBe(202);
  });

  it('is idempotent: cancelling a finished operation returns it unchanged', async () => {
    const created = await createScene(suite.api, suite.org, { prompt: 'cancelled twice' });
    const first = await cancel(created.body.operationId);
    const second = await cancel(created.body.operationId);
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
  });

  it('replays of the creating request after the cancel still answer the same operation', async () => {
    const key = randomUUID();
    const created = await createScene(suite.api, suite.org, { prompt: 'replayed after cancel' }, key);
    await cancel(created.body.operationId);
    const replay = await createScene(suite.api, suite.org, { prompt: 'replayed after cancel' }, key);
    expect(replay.status).toBe(202);
    expect(replay.body.operationId).toBe(created.body.operationId);
    expect(replay.headers['idempotent-replayed']).toBe('true');
  });

  it.each([
    ['an unknown id', 'op_01JD3Z8Q4W6K2M9T5X7B1C0VHE', 404, 'not_found'],
    ['a malformed id', 'op_nope', 400, 'invalid_id'],
    ['an id of another kind', 'scn_01JD3Z8Q4W6K2M9T5X7B1C0VHE', 400, 'invalid_id'],
  ] as const)('%s → %d %s', async (_, id, status, code) => {
    expectProblem(await cancel(id), status, code);
  });

  it('needs a key like every route', async () => {
    const created = await createScene(suite.api, suite.org, { prompt: 'anonymous cancel' });
    const res = await suite.api.http().post(`/v1/operations/${created.body.operationId}:cancel`);
    expectProblem(res, 401, 'unauthenticated');
    expect((await suite.api.http().get(`/v1/operations/${created.body.operationId}`).set(suite.org.auth)).body.status).toBe('processing');
  });
});
