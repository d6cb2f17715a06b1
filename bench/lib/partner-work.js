'use strict';
// The durable work of the partner API's two measured routes, done without the api's code, for the
// bench's two floors: bench/baseline-server.js (plain node:http) and bench/nest-peer.js (a bare
// Nest 11 + Express 5 app). Both call these functions, so they do exactly the same work and differ
// only in their HTTP layer. What the work is, and what it leaves to the api, is listed in
// bench/baseline-server.js's header. Transport-neutral: each function takes what a request
// carries (headers, the parsed body) and returns { status, body, headers }.
//
// Environment, read like the api reads it (unset or empty means the api's default): DATABASE_URL,
// DATABASE_POOL_SIZE, REDIS_URL, QUEUE_PREFIX, API_KEY_CACHE_TTL_SECONDS, WORKER_CONCURRENCY.

const { createHash } = require('node:crypto');
const { Queue } = require('bullmq');
const Redis = require('ioredis');
const { LRUCache } = require('lru-cache');
const { Pool } = require('pg');
const { monotonicFactory } = require('ulid');

// The api's defaults (libs/core/src/config/config.schema.ts, ENV_DEFAULTS), for a standalone run.
const env = (name, fallback) => (process.env[name] === undefined || process.env[name] === '' ? fallback : process.env[name]);

const BEARER = /^Bearer[ \t]+([^\s]+)[ \t]*$/i;
const KEY_FORMAT = /^sk_(test|live)_[A-Za-z0-9_-]{43}$/;
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;
/** The api's default waiting cap (libs/tenancy, DEFAULT_MAX_WAITING_GENERATIONS). */
const DEFAULT_MAX_WAITING_GENERATIONS = 1000;

/** One party's work: its pool, Redis connections, caches. `name` labels its connections. */
function partnerWork(name) {
  const config = {
    databaseUrl: env('DATABASE_URL', 'postgres://postgres@127.0.0.1:5432/scene_studio'),
    poolSize: Number(env('DATABASE_POOL_SIZE', '10')),
    redisUrl: env('REDIS_URL', 'redis://127.0.0.1:6379'),
    queuePrefix: env('QUEUE_PREFIX', 'scene-studio'),
    apiKeyCacheTtlMs: Number(env('API_KEY_CACHE_TTL_SECONDS', '5')) * 1000,
    workerConcurrency: Number(env('WORKER_CONCURRENCY', '4')),
  };
  const pool = new Pool({
    connectionString: config.databaseUrl,
    // The api's DATABASE_POOL_SIZE, so every side gets the same number of backends.
    max: config.poolSize,
    application_name: `scene-studio-bench-${name}`,
  });
  const ulid = monotonicFactory();
  const warn = (message) => process.stderr.write(`${name}: ${message}\n`);

  // -------------------------------------------------------------------------------------------
  // Redis and the queue, with the api's connection options (libs/core/src/redis/redis.ts) and job
  // defaults (libs/core/src/queue/queue.service.ts), so BullMQ does the same work on every side.

  const REDIS_BASE = { connectTimeout: 2000, retryStrategy: (times) => Math.min(times * 200, 2000), lazyConnect: false };
  function createRedis(purpose, label) {
    const options =
      purpose === 'commands'
        ? { ...REDIS_BASE, maxRetriesPerRequest: 1, commandTimeout: 1500, enableOfflineQueue: true }
        : { ...REDIS_BASE, maxRetriesPerRequest: null, enableOfflineQueue: true };
    const client = new Redis(config.redisUrl, { ...options, connectionName: `scene-studio-bench-${name}:${label}` });
    client.on('error', () => undefined);
    return client;
  }
  const DEFAULT_JOB_OPTIONS = {
    attempts: 3,
    backoff: { type: 'exponential', delay: 1000 },
    removeOnComplete: { age: 3600, count: 1000 },
    removeOnFail: { age: 7 * 24 * 3600, count: 5000 },
  };
  const producer = createRedis('commands', 'queue-producer');
  const scenesQueue = new Queue('scenes', {
    connection: producer,
    prefix: config.queuePrefix,
    defaultJobOptions: DEFAULT_JOB_OPTIONS,
    skipWaitingForReady: true,
  });
  let lastQueueWarning = 0;
  scenesQueue.on('error', (e) => {
    if (Date.now() - lastQueueWarning < 10_000) return;
    lastQueueWarning = Date.now();
    warn(`queue connection error: ${e.message}`);
  });

  // -------------------------------------------------------------------------------------------
  // API keys: ApiKeyAuthenticator's cache (libs/organizations/src/api-key-authenticator.ts).

  const KEY_SQL = `SELECT k.id AS key_id, k.organization_id, o.is_test
    FROM api_keys k JOIN organizations o ON o.id = k.organization_id
   WHERE k.key_hash = $1 AND k.revoked_at IS NULL`;
  const MISS = Symbol('miss');
  const keyCache = config.apiKeyCacheTtlMs > 0 ? new LRUCache({ max: 50_000, ttl: config.apiKeyCacheTtlMs, ttlAutopurge: false }) : null;
  const revocationChannel = `${config.queuePrefix}:api-keys:revoked`;
  let subscriber = null;

  function evictKey(keyId) {
    if (!keyCache) return;
    for (const [hash, { entry }] of keyCache.entries()) {
      if (entry !== MISS && entry.keyId === keyId) keyCache.delete(hash);
    }
  }

  /** Lazily, like the api: the first key lookup subscribes. */
  function listenForRevocations() {
    if (subscriber || !keyCache) return;
    subscriber = createRedis('subscriber', 'api-key-revocations');
    subscriber.on('message', (_channel, keyId) => evictKey(keyId));
    subscriber.subscribe(revocationChannel).catch((e) => warn(`cannot subscribe to revocations: ${e.message}`));
  }

  async function authenticate(header) {
    const m = typeof header === 'string' ? BEARER.exec(header) : null;
    if (!m || !KEY_FORMAT.test(m[1])) return null;
    const hash = createHash('sha256').update(m[1]).digest('hex');
    const cached = keyCache?.get(hash);
    if (cached) return cached.entry === MISS ? null : cached.entry;
    listenForRevocations();
    const { rows } = await pool.query(KEY_SQL, [hash]);
    const found = rows.length === 0 ? null : { keyId: rows[0].key_id, organizationId: rows[0].organization_id, isTest: rows[0].is_test };
    keyCache?.set(hash, { entry: found ?? MISS });
    return found;
  }

  // -------------------------------------------------------------------------------------------
  // Polling

  // OperationsRepository.findVisible's statement, columns included (what a partner sees, no more).
  const OPERATION_SQL = `SELECT o.id, o.kind, o.scene_id, o.status, o.version, o.error_code, o.error_message, o.error_retryable,
         o.progress, o.stage, o.created_at, o.updated_at, o.completed_at, s.external_ref
    FROM operations o JOIN scenes s ON s.id = o.scene_id
   WHERE o.id = $1 AND o.organization_id = $2 AND s.deleted_at IS NULL`;

  // SceneJobScheduler.suggestedPollDelaySeconds: the queue depth, fetched at most once a second, and the
  // organization's operations waiting for their turn (its backlog count), at most once a second
  // per organization; callers meanwhile use the last figures (0 before the first answer), exactly
  // as the api does.
  const depth = { at: 0, waiting: 0 };
  const waitingOf = new LRUCache({ max: 10_000 });

  async function suggestedPollDelaySeconds(organizationId) {
    const now = Date.now();
    if (now - depth.at > 1000) {
      depth.at = now;
      try {
        const counts = await scenesQueue.getJobCounts('waiting', 'prioritized', 'active');
        depth.waiting = Object.values(counts).reduce((a, b) => a + b, 0);
      } catch {
        depth.waiting = 0;
      }
    }
    let own = waitingOf.get(organizationId);
    if (!own || now - own.at > 1000) {
      own = { at: now, waiting: own?.waiting ?? 0 };
      waitingOf.set(organizationId, own);
      own.waiting = await pool.query(`SELECT waiting FROM organization_backlogs WHERE organization_id = $1 LIMIT 1`, [organizationId]).then(
        (r) => r.rows[0]?.waiting ?? 0,
        () => 0,
      );
    }
    const perWorkerRound = Math.max(1, config.workerConcurrency);
    return Math.min(10, Math.max(1, 1 + Math.floor((depth.waiting + own.waiting) / (perWorkerRound * 2))));
  }

  /** toOperationResponse's shapes, key order included: run.js compares the bodies byte for byte. */
  function operationJson(op) {
    const createdAt = op.created_at.toISOString();
    const updatedAt = op.updated_at.toISOString();
    const about = { kind: op.kind, externalRef: op.external_ref };
    if (op.status === 'processing') {
      const stage = op.stage === null || op.stage === 'cancelling' ? 'queued' : op.stage;
      return { operationId: op.id, ...about, status: 'processing', progress: op.progress ?? 0, stage, createdAt, updatedAt };
    }
    if (op.status === 'succeeded') {
      return {
        operationId: op.id,
        ...about,
        status: 'succeeded',
        sceneId: op.scene_id,
        version: op.version,
        createdAt,
        updatedAt,
        completedAt: op.completed_at.toISOString(),
      };
    }
    const error = { code: op.error_code, message: op.error_message, retryable: op.error_retryable ?? false };
    return { operationId: op.id, ...about, status: 'failed', error, createdAt, updatedAt, completedAt: op.completed_at.toISOString() };
  }

  /** GET /v1/operations/:id → { status, body, headers }. */
  async function getOperation(authorization, id) {
    const key = await authenticate(authorization);
    if (!key) return { status: 401, body: { code: 'unauthenticated' } };
    const { rows } = await pool.query(OPERATION_SQL, [id, key.organizationId]);
    if (rows.length === 0) return { status: 404, body: { code: 'not_found' } };
    const headers = {};
    if (rows[0].status === 'processing') headers['retry-after'] = String(await suggestedPollDelaySeconds(key.organizationId));
    headers['cache-control'] = 'no-store';
    return { status: 200, body: operationJson(rows[0]), headers };
  }

  // -------------------------------------------------------------------------------------------
  // Creation

  /** The api's fingerprint (libs/core/src/idempotency): key order and absent-vs-null do not matter. */
  function fingerprint(route, body) {
    const canonical = JSON.stringify(
      Object.keys(body)
        .filter((k) => body[k] !== undefined && body[k] !== null)
        .sort()
        .map((k) => [k, body[k]]),
    );
    return createHash('sha256').update(`${route}\n${canonical}`).digest('hex');
  }

  class Refused extends Error {
    constructor(status, code) {
      super(code);
      this.status = status;
      this.code = code;
    }
  }

  /** IdempotentRequests.run without the advisory lock: the result to replay, or null. */
  async function findIdempotencyRecord(client, organizationId, key, print) {
    const { rows } = await client.query(
      `SELECT fingerprint, result, expires_at FROM idempotency_keys WHERE organization_id = $1 AND key = $2`,
      [organizationId, key],
    );
    if (rows.length === 0) return null;
    const row = rows[0];
    if (row.expires_at <= new Date()) {
      await client.query(`DELETE FROM idempotency_keys WHERE organization_id = $1 AND key = $2`, [organizationId, key]);
      return null;
    }
    if (row.fingerprint !== print) throw new Refused(422, 'idempotency_key_reused');
    return row.result;
  }

  /**
   * UsageService.startGeneration (TenancyRepository.countStart's statement): the day's usage
   * against the quota, then the organization's waiting count against its cap, in one statement.
   */
  async function countStart(client, organizationId, now) {
    const { rows } = await client.query(
      `WITH lim AS (
         SELECT coalesce(l.generations_per_day, 2147483647) AS per_day, coalesce(l.max_waiting_generations, $4) AS max_waiting
           FROM (SELECT 1) one LEFT JOIN organization_limits l ON l.organization_id = $1),
       started AS (
         INSERT INTO usage_days AS u (organization_id, day, generations_started, edits_started)
         SELECT $1, $2, 1, $3 FROM lim WHERE lim.per_day > 0
         ON CONFLICT (organization_id, day) DO UPDATE
            SET generations_started = u.generations_started + 1, edits_started = u.edits_started + EXCLUDED.edits_started
          WHERE u.generations_started < (SELECT per_day FROM lim)
         RETURNING 1),
       queued AS (
         INSERT INTO organization_backlogs AS b (organization_id, waiting)
         SELECT $1, 1 FROM lim WHERE EXISTS (SELECT 1 FROM started)
         ON CONFLICT (organization_id) DO UPDATE SET waiting = b.waiting + 1
          WHERE b.waiting < (SELECT max_waiting FROM lim)
         RETURNING 1)
       SELECT (SELECT count(*) FROM started)::int AS started, (SELECT count(*) FROM queued)::int AS queued`,
      [organizationId, now.toISOString().slice(0, 10), 0, DEFAULT_MAX_WAITING_GENERATIONS],
    );
    if (rows[0].started === 0) throw new Refused(429, 'quota_exceeded');
    if (rows[0].queued === 0) throw new Refused(429, 'max_waiting_generations_exceeded');
  }

  /** AdmissionSignal.wake: tells the workers' admission, best effort. */
  function wakeAdmission() {
    producer.publish(`${config.queuePrefix}:admission`, '1').catch((e) => warn(`admission signal not sent: ${e.message}`));
  }

  /**
   * POST /v1/scenes → { status, body, headers, created }. `headers` are the request's (lowercase
   * names); `body` the parsed JSON, or undefined when it was not JSON. The caller answers, then
   * calls `afterAnswer()` (the admission signal) when there is one.
   */
  async function createScene(requestHeaders, dto) {
    const key = await authenticate(requestHeaders.authorization);
    if (!key) return { status: 401, body: { code: 'unauthenticated' } };
    const idempotencyKey = requestHeaders['idempotency-key'];
    if (idempotencyKey === undefined || idempotencyKey === '') return { status: 400, body: { code: 'idempotency_key_missing' } };
    if (typeof idempotencyKey !== 'string' || !UUID_V4.test(idempotencyKey))
      return { status: 400, body: { code: 'idempotency_key_invalid' } };
    if (dto === null || dto === undefined || typeof dto !== 'object' || Array.isArray(dto))
      return { status: 400, body: { code: 'invalid_json' } };
    if (typeof dto.prompt !== 'string') return { status: 422, body: { code: 'validation_failed' } };

    const print = fingerprint('POST /v1/scenes', dto);
    const now = new Date();
    const organizationId = key.organizationId;
    let created = null;
    let result;
    let replayed = false;
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const replay = await findIdempotencyRecord(client, organizationId, idempotencyKey, print);
      if (replay) {
        result = replay;
        replayed = true;
      } else {
        const sceneId = `scn_${ulid()}`;
        const operationId = `op_${ulid()}`;
        await client.query(
          `INSERT INTO scenes (id, organization_id, external_ref, prompt, source_asset_id, status, current_version,
                               creating_operation_id, created_at, updated_at, deleted_at)
           VALUES ($1, $2, $3, $4, NULL, 'generating', NULL, $5, $6, $6, NULL)`,
          [sceneId, organizationId, dto.externalRef ?? null, dto.prompt, operationId, now],
        );
        await client.query(
          `INSERT INTO operations (id, organization_id, scene_id, kind, status, instruction, version, error_code, error_message,
                                   error_retryable, progress, stage, enqueued_at, created_at, updated_at, completed_at)
           VALUES ($1, $2, $3, 'scene.create', 'processing', NULL, NULL, NULL, NULL, NULL, 0, 'queued', NULL, $4, $4, NULL)`,
          [operationId, organizationId, sceneId, now],
        );
        await countStart(client, organizationId, now);
        result = { operationId, status: 'processing', createdAt: now.toISOString() };
        await client.query(
          `INSERT INTO idempotency_keys (organization_id, key, fingerprint, result, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)`,
          [organizationId, idempotencyKey, print, JSON.stringify(result), now, new Date(now.getTime() + IDEMPOTENCY_WINDOW_MS)],
        );
        created = operationId;
      }
      await client.query('COMMIT');
    } catch (e) {
      await client.query('ROLLBACK').catch(() => {});
      if (e instanceof Refused) return { status: e.status, body: { code: e.code } };
      throw e;
    } finally {
      client.release();
    }
    const headers = { location: `/v1/operations/${result.operationId}` };
    return {
      status: 202,
      body: result,
      headers: replayed ? { ...headers, 'idempotent-replayed': 'true' } : headers,
      afterAnswer: created ? wakeAdmission : null,
    };
  }

  const ready = () => producer.status === 'ready';

  async function close() {
    await Promise.allSettled([scenesQueue.close(), pool.end()]);
    producer.disconnect();
    subscriber?.disconnect();
  }

  return { getOperation, createScene, ready, close };
}

module.exports = { partnerWork };
