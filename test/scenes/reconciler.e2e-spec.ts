import { CoreJob, ManualClock, QueueService } from '@app/core';
import { OperationsReconciler, SceneJobScheduler, SCENES_QUEUE } from '@app/operations';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { awaitOperation, createScene } from '../factories/scene.factory';
import { startWorker } from '../support/apps';
import { pollUntil } from '../support/poll';
import { setUpSuite } from '../support/suite';
import { stored } from '../support/stored';

describe('no accepted operation is lost', () => {
  const suite = setUpSuite({ worker: { config: { RECONCILE_INTERVAL_MS: '200', RECONCILE_GRACE_MS: '300' } } });

  const db = () => suite.api.app.get(DataSource);
  const enqueuedAt = async (id: string) => (await stored(db()).operation(id)).enqueuedAt;

  /** Makes `jobs` lose its enqueues (as a worker killed between admitting and enqueueing would) until the returned function restores it. */
  const loseEnqueues = (...all: SceneJobScheduler[]) => {
    const originals = all.map((jobs) => jobs.enqueue.bind(jobs));
    for (const jobs of all) jobs.enqueue = () => Promise.reject(new Error('the process died before its enqueue'));
    return () => all.forEach((jobs, i) => (jobs.enqueue = originals[i]));
  };
  const admittedAt = async (id: string) => (await stored(db()).operation(id)).admittedAt;

  it('the worker died between admitting an operation and enqueueing it: the reconciler enqueues it', async () => {
    const restore = loseEnqueues(suite.worker.get(SceneJobScheduler));
    let id: string;
    try {
      const created = await createScene(suite.api, suite.org, { prompt: 'orphaned by a crash' });
      expect(created.status).toBe(202);
      id = created.body.operationId;
      await pollUntil(
        () => admittedAt(id),
        (at) => at !== null,
        { what: 'the operation to be admitted' },
      );
      expect(await enqueuedAt(id)).toBeNull();
    } finally {
      restore();
    }
    const done = await awaitOperation(suite.api, suite.org, id);
    expect(done.body).toMatchObject({ status: 'succeeded', version: 1 });
    expect(await enqueuedAt(id)).not.toBeNull();
  });

  it('the job vanished from Redis (a restart without persistence): the reconciler enqueues it again', async () => {
    const queue = suite.worker.get(QueueService).queue(SCENES_QUEUE);
    await queue.pause();
    try {
      const created = await createScene(suite.api, suite.org, { prompt: 'lost in a redis restart' });
      const id = created.body.operationId;
      await pollUntil(
        () => queue.getJob(id),
        (job) => !!job,
        { what: 'the job to be enqueued' },
      );
      await queue.remove(id);
      expect(await queue.getJob(id)).toBeUndefined();
      await queue.resume();
      const done = await awaitOperation(suite.api, suite.org, id);
      expect(done.body).toMatchObject({ status: 'succeeded', version: 1 });
    } finally {
      await queue.resume();
    }
  });

  it('a job that ended without recording its result: the operation is settled as failed', async () => {
    const created = await createScene(suite.api, suite.org, { prompt: 'settled' });
    const id = created.body.operationId;
    await awaitOperation(suite.api, suite.org, id);
    // Rewind the operation as if the handler had died after BullMQ recorded completion (and its
    // organization's counts with it: it would still be running).
    await db().query(
      `UPDATE operations SET status = 'processing', version = NULL, completed_at = NULL, updated_at = now() - interval '1 hour' WHERE id = $1`,
      [id],
    );
    await db().query(`UPDATE organization_backlogs SET running = running + 1 WHERE organization_id = $1`, [suite.org.organizationId]);
    await suite.worker.get(OperationsReconciler).reconcile();
    const res = await suite.api.http().get(`/v1/operations/${id}`).set(suite.org.auth);
    expect(res.body).toMatchObject({ status: 'failed', error: { code: 'generation_failed', retryable: true } });
  });

  it('only one replica reconciles at a time', async () => {
    const second = await startWorker(suite.env, { config: { RECONCILE_INTERVAL_MS: '600000' } });
    const restore = loseEnqueues(suite.worker.get(SceneJobScheduler), second.get(SceneJobScheduler));
    const runner = db().createQueryRunner();
    await runner.connect();
    try {
      await runner.query(`SELECT pg_advisory_lock(731903118)`);
      const created = await createScene(suite.api, suite.org, { prompt: 'waits for the lock' });
      const id = created.body.operationId;
      await pollUntil(
        () => admittedAt(id),
        (at) => at !== null,
        { what: 'the operation to be admitted' },
      );
      await db().query(`UPDATE operations SET updated_at = now() - interval '1 hour' WHERE id = $1`, [id]);
      restore();
      // Another replica holds the reconciler lock: this one does nothing, and neither does the first.
      expect(await second.get(OperationsReconciler).reconcile()).toBe(0);
      expect(await enqueuedAt(id)).toBeNull();
      await runner.query(`SELECT pg_advisory_unlock(731903118)`);
      expect((await awaitOperation(suite.api, suite.org, id)).body).toMatchObject({ status: 'succeeded' });
    } finally {
      restore();
      await runner.query(`SELECT pg_advisory_unlock_all()`);
      await runner.release();
      await second.close();
    }
  });
});

describe('idempotency records expire after 24 hours', () => {
  const clock = new ManualClock(Date.parse('2026-07-01T08:00:00.000Z'));
  const suite = setUpSuite({ api: { clock }, worker: { clock } });

  it('replays within the window, and the purge job frees the key after it', async () => {
    const key = randomUUID();
    const first = await createScene(suite.api, suite.org, { prompt: 'window' }, key);
    clock.advance(24 * 3600 * 1000 - 1);
    const replay = await createScene(suite.api, suite.org, { prompt: 'window' }, key);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.operationId).toBe(first.body.operationId);

    clock.advance(1);
    const count = async () =>
      Number((await suite.api.app.get(DataSource).query(`SELECT count(*) AS n FROM idempotency_keys WHERE key = $1`, [key]))[0].n);
    expect(await count()).toBe(1);
    await suite.worker.get(QueueService).add(CoreJob.IdempotencyPurgeExpired, {});
    await pollUntil(count, (n) => n === 0, { what: 'the purge job' });

    const fresh = await createScene(suite.api, suite.org, { prompt: 'window' }, key);
    expect(fresh.status).toBe(202);
    expect(fresh.headers['idempotent-replayed']).toBeUndefined();
    expect(fresh.body.operationId).not.toBe(first.body.operationId);
  });

  it('an expired record is not replayed even before the purge runs', async () => {
    const key = randomUUID();
    const first = await createScene(suite.api, suite.org, { prompt: 'lazy' }, key);
    clock.advance(24 * 3600 * 1000);
    const again = await createScene(suite.api, suite.org, { prompt: 'something else entirely' }, key);
    expect(again.status).toBe(202);
    expect(again.body.operationId).not.toBe(first.body.operationId);
  });
});
