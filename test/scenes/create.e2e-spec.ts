import { fingerprint, ManualClock, QueueService } from '@app/core';
import { pollUntil } from '../support/poll';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { createOrganization } from '../factories/organization.factory';
import { createScene, uploadImage } from '../factories/scene.factory';
import { expectProblem } from '../support/problems';
import { setUpSuite } from '../support/suite';
import { stored } from '../support/stored';

describe('POST /v1/scenes', () => {
  const clock = new ManualClock(Date.parse('2026-05-01T12:00:00.000Z'));
  const suite = setUpSuite({ api: { clock } });
  const db = () => suite.api.app.get(DataSource);
  const countOperations = (organizationId: string) => stored(db()).operationCount({ organizationId });

  it('answers 202 with the operation and its Location', async () => {
    const res = await createScene(suite.api, suite.org, { prompt: 'A snowy mountain village at night', externalRef: 'order-1' });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({
      operationId: expect.stringMatching(/^op_[0-9A-HJKMNP-TV-Z]{26}$/),
      status: 'processing',
      createdAt: clock.now().toISOString(),
    });
    expect(res.headers['location']).toBe(`/v1/operations/${res.body.operationId}`);
    expect(res.headers['idempotent-replayed']).toBeUndefined();
    const op = await suite.api.http().get(res.headers['location']).set(suite.org.auth);
    expect(op.status).toBe(200);
    expect(op.body).toEqual({
      operationId: res.body.operationId,
      kind: 'scene.create',
      externalRef: 'order-1',
      status: 'processing',
      progress: 0,
      stage: 'queued',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    // No worker runs in this file: the operation stays processing, so Retry-After is always there.
    expect(op.headers['retry-after']).toMatch(/^([1-9]|10)$/);
    expect(op.headers['cache-control']).toBe('no-store');
  });

  describe('body validation (422 validation_failed, with the field)', () => {
    const long = (n: number, ch = 'a') => ch.repeat(n);
    it.each<[string, Record<string, unknown>, string, string]>([
      ['prompt missing', {}, 'prompt', 'required'],
      ['prompt empty', { prompt: '' }, 'prompt', 'too_short'],
      ['prompt blank', { prompt: '   ' }, 'prompt', 'blank'],
      ['prompt not a string', { prompt: 42 }, 'prompt', 'invalid_type'],
      ['prompt of 4001 characters', { prompt: long(4001) }, 'prompt', 'too_long'],
      ['prompt of 4001 emoji', { prompt: long(4001, '🌲') }, 'prompt', 'too_long'],
      ['prompt with a NUL', { prompt: 'a\u0000b' }, 'prompt', 'invalid_characters'],
      ['prompt with an unpaired surrogate', { prompt: 'a\ud800b' }, 'prompt', 'invalid_characters'],
      ['prompt with a bidirectional override', { prompt: 'a forest \u202Eby a lake' }, 'prompt', 'invalid_characters'],
      ['externalRef with an unpaired surrogate', { prompt: 'x', externalRef: 'ref-\udc00' }, 'externalRef', 'invalid_characters'],
      [
        'externalRef of 60 000 characters, an e-mail shape without a dot',
        { prompt: 'x', externalRef: `${long(30_000)}@${long(29_999)}` },
        'externalRef',
        'too_long',
      ],
      ['externalRef empty', { prompt: 'x', externalRef: '' }, 'externalRef', 'too_short'],
      ['externalRef of 201 characters', { prompt: 'x', externalRef: long(201) }, 'externalRef', 'too_long'],
      ['externalRef an e-mail address', { prompt: 'x', externalRef: 'jane.doe@example.com' }, 'externalRef', 'looks_like_email'],
      [
        'externalRef containing an e-mail address',
        { prompt: 'x', externalRef: 'user:jane@corp.example' },
        'externalRef',
        'looks_like_email',
      ],
      ['externalRef not a string', { prompt: 'x', externalRef: 12 }, 'externalRef', 'invalid_type'],
      ['sourceAssetId malformed', { prompt: 'x', sourceAssetId: 'img_nope' }, 'sourceAssetId', 'invalid_format'],
      ['an unknown field', { prompt: 'x', style: 'noir' }, 'style', 'unknown_field'],
    ])('%s', async (_, body, field, code) => {
      const res = await createScene(suite.api, suite.org, body);
      expectProblem(res, 422, 'validation_failed');
      expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field, code, message: expect.any(String) })]));
    });

    it('lists every broken field in one problem, each with its own code', async () => {
      const res = await createScene(suite.api, suite.org, { prompt: '', externalRef: 'jane.doe@example.com', style: 'noir' });
      expectProblem(res, 422, 'validation_failed');
      const errors = res.body.errors as Array<{ field: string; code: string; message: string }>;
      expect(errors).toEqual(
        expect.arrayContaining([
          { field: 'prompt', code: 'too_short', message: expect.any(String) },
          { field: 'externalRef', code: 'looks_like_email', message: expect.any(String) },
          { field: 'style', code: 'unknown_field', message: expect.any(String) },
        ]),
      );
      expect([...new Set(errors.map((e) => e.field))].sort()).toEqual(['externalRef', 'prompt', 'style']);
    });

    it('counts prompt length in code points: 4000 emoji are accepted', async () => {
      expect((await createScene(suite.api, suite.org, { prompt: long(4000, '🌲') })).status).toBe(202);
    });

    it('accepts externalRef of 200 characters', async () => {
      expect((await createScene(suite.api, suite.org, { prompt: 'x', externalRef: long(200, 'r') })).status).toBe(202);
    });
  });

  describe('the body itself', () => {
    it.each([
      ['no body', undefined, 'application/json', 400, 'invalid_json'],
      ['an array', '[{"prompt":"x"}]', 'application/json', 400, 'invalid_json'],
      ['malformed JSON', '{"prompt":', 'application/json', 400, 'invalid_json'],
      ['text/plain', 'prompt=x', 'text/plain', 415, 'unsupported_media_type'],
      ['form-encoded', 'prompt=x', 'application/x-www-form-urlencoded', 415, 'unsupported_media_type'],
    ] as const)('%s → %d %s', async (_, body, type, status, code) => {
      let req = suite.api.http().post('/v1/scenes').set(suite.org.auth).set('Idempotency-Key', randomUUID()).set('Content-Type', type);
      if (body !== undefined) req = req.send(body);
      expectProblem(await req, status, code);
    });

    it('multipart → 415 unsupported_media_type', async () => {
      const res = await suite.api.http().post('/v1/scenes').set(suite.org.auth).set('Idempotency-Key', randomUUID()).field('prompt', 'x');
      expectProblem(res, 415, 'unsupported_media_type');
    });

    it('over 64 KiB → 413 payload_too_large', async () => {
      expectProblem(await createScene(suite.api, suite.org, { prompt: 'x', pad: 'y'.repeat(70_000) }), 413, 'payload_too_large');
    });
  });

  describe('Idempotency-Key', () => {
    it('missing → 400 idempotency_key_missing', async () => {
      expectProblem(await suite.api.http().post('/v1/scenes').set(suite.org.auth).send({ prompt: 'x' }), 400, 'idempotency_key_missing');
    });

    it.each([
      ['not a UUID', 'abc'],
      ['upper case', randomUUID().toUpperCase()],
      ['a UUID v1', 'c232ab00-9414-11ec-b3c8-9f6bdeced846'],
      ['without dashes', randomUUID().replace(/-/g, '')],
      ['with braces', `{${randomUUID()}}`],
    ])('%s → 400 idempotency_key_invalid', async (_, key) => {
      expectProblem(await createScene(suite.api, suite.org, { prompt: 'x' }, key), 400, 'idempotency_key_invalid');
    });

    it('the same key and body replay the first response with Idempotent-Replayed: true', async () => {
      const key = randomUUID();
      const body = { prompt: 'A desert at dawn', externalRef: 'replay-1' };
      const first = await createScene(suite.api, suite.org, body, key);
      clock.advance(1000);
      const again = await createScene(suite.api, suite.org, { externalRef: 'replay-1', prompt: 'A desert at dawn' }, key);
      expect(again.status).toBe(first.status);
      expect(again.body).toEqual(first.body);
      expect(again.headers['location']).toBe(first.headers['location']);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(first.headers['idempotent-replayed']).toBeUndefined();
    });

    it('a record stored under the route\'s scope "POST /v1/scenes" (as before results were kept) replays', async () => {
      // Records fingerprinted before the scope came from the route template must keep replaying
      // within their window: the scope the api computes has to be exactly this string.
      const key = randomUUID();
      const body = { prompt: 'A stored record', externalRef: 'stored-1' };
      const result = { operationId: 'op_01JD3Z8Q4W6K2M9T5X7B1C0VHE', status: 'processing', createdAt: clock.now().toISOString() };
      await db().query(
        `INSERT INTO idempotency_keys (organization_id, key, fingerprint, result, created_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6)`,
        [
          suite.org.organizationId,
          key,
          fingerprint('POST /v1/scenes', body),
          JSON.stringify(result),
          clock.now(),
          new Date(clock.now().getTime() + 60_000),
        ],
      );
      const res = await createScene(suite.api, suite.org, body, key);
      expect(res.status).toBe(202);
      expect(res.body).toEqual(result);
      expect(res.headers['location']).toBe(`/v1/operations/${result.operationId}`);
      expect(res.headers['idempotent-replayed']).toBe('true');
    });

    it('the same key with another body → 422 idempotency_key_reused', async () => {
      const key = randomUUID();
      expect((await createScene(suite.api, suite.org, { prompt: 'one' }, key)).status).toBe(202);
      expectProblem(await createScene(suite.api, suite.org, { prompt: 'two' }, key), 422, 'idempotency_key_reused');
      expectProblem(await createScene(suite.api, suite.org, { prompt: 'one', externalRef: 'extra' }, key), 422, 'idempotency_key_reused');
    });

    it('a request that failed validation does not use up its key', async () => {
      const key = randomUUID();
      expectProblem(await createScene(suite.api, suite.org, { prompt: '' }, key), 422, 'validation_failed');
      expectProblem(
        await createScene(suite.api, suite.org, { prompt: 'x', sourceAssetId: 'img_01JD3Z8Q4W6K2M9T5X7B1C0VHE' }, key),
        422,
        'source_asset_not_found',
      );
      expect((await createScene(suite.api, suite.org, { prompt: 'now valid' }, key)).status).toBe(202);
    });

    it('keys are per organization', async () => {
      const other = await createOrganization(suite.api.app);
      const key = randomUUID();
      const a = await createScene(suite.api, suite.org, { prompt: 'shared key' }, key);
      const b = await createScene(suite.api, other, { prompt: 'shared key' }, key);
      expect(a.status).toBe(202);
      expect(b.status).toBe(202);
      expect(b.headers['idempotent-replayed']).toBeUndefined();
      expect(b.body.operationId).not.toBe(a.body.operationId);
    });

    it('while the first request with a key is running → 409 idempotency_request_in_progress', async () => {
      const key = randomUUID();
      // Hold the key's lock the way an in-flight request does.
      const runner = db().createQueryRunner();
      await runner.connect();
      await runner.startTransaction();
      try {
        await runner.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 7))`, [`${suite.org.organizationId}:${key}`]);
        const res = await createScene(suite.api, suite.org, { prompt: 'x' }, key);
        expectProblem(res, 409, 'idempotency_request_in_progress');
        expect(res.headers['retry-after']).toBe('1');
      } finally {
        await runner.rollbackTransaction();
        await runner.release();
      }
      expect((await createScene(suite.api, suite.org, { prompt: 'x' }, key)).status).toBe(202);
    });

    it('50 concurrent requests with one key create exactly one operation', async () => {
      const other = await createOrganization(suite.api.app);
      const key = randomUUID();
      const results = await Promise.all(Array.from({ length: 50 }, () => createScene(suite.api, other, { prompt: 'race' }, key)));
      const statuses = new Set(results.map((r) => r.status));
      expect([...statuses].every((s) => s === 202 || s === 409)).toBe(true);
      const accepted = results.filter((r) => r.status === 202);
      expect(accepted.length).toBeGreaterThanOrEqual(1);
      expect(new Set(accepted.map((r) => r.body.operationId)).size).toBe(1);
      expect(await countOperations(other.organizationId)).toBe(1);
      const after = await createScene(suite.api, other, { prompt: 'race' }, key);
      expect(after.status).toBe(202);
      expect(after.body.operationId).toBe(accepted[0].body.operationId);
    });
  });

  describe('externalRef', () => {
    it('is unique among active scenes: 409 external_ref_conflict', async () => {
      expect((await createScene(suite.api, suite.org, { prompt: 'a', externalRef: 'dup-1' })).status).toBe(202);
      expectProblem(await createScene(suite.api, suite.org, { prompt: 'b', externalRef: 'dup-1' }), 409, 'external_ref_conflict');
    });

    it('is per organization', async () => {
      const other = await createOrganization(suite.api.app);
      expect((await createScene(suite.api, suite.org, { prompt: 'a', externalRef: 'per-org' })).status).toBe(202);
      expect((await createScene(suite.api, other, { prompt: 'a', externalRef: 'per-org' })).status).toBe(202);
    });

    it('is free again once the scene is deleted', async () => {
      const created = await createScene(suite.api, suite.org, { prompt: 'a', externalRef: 'reuse-after-delete' });
      const found = await suite.api.http().get('/v1/scenes').query({ externalRef: 'reuse-after-delete' }).set(suite.org.auth);
      expect(found.status).toBe(200);
      expect(found.body.operationId).toBe(created.body.operationId);
      expect((await suite.api.http().delete(`/v1/scenes/${found.body.sceneId}`).set(suite.org.auth)).status).toBe(204);
      expect((await createScene(suite.api, suite.org, { prompt: 'b', externalRef: 'reuse-after-delete' })).status).toBe(202);
    });
  });

  describe('source images', () => {
    it('attaches a usable asset, which is then kept', async () => {
      const assetId = await uploadImage(suite.api, suite.org, 1920, 1080);
      expect((await createScene(suite.api, suite.org, { prompt: 'from a photo', sourceAssetId: assetId })).status).toBe(202);
      const asset = await suite.api.http().get(`/v1/image-assets/${assetId}`).set(suite.org.auth);
      expect(asset.body).toMatchObject({ status: 'attached', expiresAt: null });
      clock.advance(48 * 3600 * 1000);
      expect((await suite.api.http().get(`/v1/image-assets/${assetId}`).set(suite.org.auth)).status).toBe(200);
      // An attached asset can serve another scene.
      expect((await createScene(suite.api, suite.org, { prompt: 'again', sourceAssetId: assetId })).status).toBe(202);
    });

    it("unknown, another organization's and expired assets → 422 source_asset_not_found", async () => {
      const other = await createOrganization(suite.api.app);
      const foreign = await uploadImage(suite.api, other);
      const expired = await uploadImage(suite.api, suite.org);
      clock.advance(24 * 3600 * 1000);
      const bodies: Array<Record<string, unknown>> = [];
      for (const id of ['img_01JD3Z8Q4W6K2M9T5X7B1C0VHE', foreign, expired]) {
        const res = await createScene(suite.api, suite.org, { prompt: 'x', sourceAssetId: id });
        expectProblem(res, 422, 'source_asset_not_found');
        bodies.push({ ...res.body, requestId: undefined });
      }
      expect(bodies[1]).toEqual(bodies[0]);
      expect(bodies[2]).toEqual(bodies[0]);
    });

    it.each([
      [1279, 720, 'source_image_too_small'],
      [1280, 719, 'source_image_too_small'],
      [1920, 1200, 'source_image_aspect_ratio'],
      [1440, 1080, 'source_image_aspect_ratio'],
      [1920, 1060, 'source_image_aspect_ratio'],
    ] as const)('%d×%d → 422 %s, and the asset stays unattached', async (w, h, code) => {
      const assetId = await uploadImage(suite.api, suite.org, w, h);
      const res = await createScene(suite.api, suite.org, { prompt: 'x', sourceAssetId: assetId });
      expectProblem(res, 422, code);
      expect(res.body.errors).toEqual([{ field: 'sourceAssetId', code, message: expect.stringContaining(`${w}×${h}`) }]);
      expect((await suite.api.http().get(`/v1/image-assets/${assetId}`).set(suite.org.auth)).body.status).toBe('unattached');
    });

    it('an image too small and not 16:9 → 422 source_image_too_small, with both rules in errors', async () => {
      const assetId = await uploadImage(suite.api, suite.org, 1000, 1000);
      const res = await createScene(suite.api, suite.org, { prompt: 'x', sourceAssetId: assetId });
      expectProblem(res, 422, 'source_image_too_small');
      expect(res.body.errors).toEqual([
        { field: 'sourceAssetId', code: 'source_image_too_small', message: expect.stringContaining('at least 1280×720') },
        { field: 'sourceAssetId', code: 'source_image_aspect_ratio', message: expect.stringContaining('16:9') },
      ]);
      // The upload said so in advance, in the same words.
      const asset = await suite.api.http().get(`/v1/image-assets/${assetId}`).set(suite.org.auth);
      expect(asset.body).toMatchObject({
        usableAsSceneSource: false,
        unusableReasons: (res.body.errors as Array<{ code: string; message: string }>).map(({ code, message }) => ({ code, message })),
      });
    });

    it.each([
      [1920, 1080],
      [1280, 720],
      [1920, 1070], // 16:9 within 1%: |1.7944 - 1.7778| / 1.7778 = 0.0094
    ])('%d×%d is accepted', async (w, h) => {
      const assetId = await uploadImage(suite.api, suite.org, w, h);
      expect((await createScene(suite.api, suite.org, { prompt: 'x', sourceAssetId: assetId })).status).toBe(202);
    });
  });

  it('nothing is half-written when creation is refused', async () => {
    const other = await createOrganization(suite.api.app);
    const assetId = await uploadImage(suite.api, other, 1920, 1080);
    expect((await createScene(suite.api, other, { prompt: 'a', externalRef: 'taken' })).status).toBe(202);
    expectProblem(
      await createScene(suite.api, other, { prompt: 'b', externalRef: 'taken', sourceAssetId: assetId }),
      409,
      'external_ref_conflict',
    );
    expect(await countOperations(other.organizationId)).toBe(1);
    expect((await suite.api.http().get(`/v1/image-assets/${assetId}`).set(other.auth)).body.status).toBe('unattached');
  });

  it('Retry-After follows the queue: it grows as operations of the organization wait (no worker runs here)', async () => {
    const created = await createScene(suite.api, suite.org, { prompt: 'at the back of the queue' });
    // Nothing admits them without a worker: they all wait for their turn in PostgreSQL.
    const waiting = () => stored(db()).operationCount({ organizationId: suite.org.organizationId, status: 'processing', admittedAt: null });
    // WORKER_CONCURRENCY 4: one more second per 8 operations waiting, from 1 up to 10.
    const expected = Math.min(10, 1 + Math.floor((await waiting()) / 8));
    expect(expected).toBeGreaterThan(1);
    const res = await pollUntil(
      () => suite.api.http().get(`/v1/operations/${created.body.operationId}`).set(suite.org.auth),
      (r) => r.headers['retry-after'] === String(expected),
      { what: 'the queue depth to be read (cached for a second)' },
    );
    expect(res.body.status).toBe('processing');
  });
});
