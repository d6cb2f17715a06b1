'use strict';
// The floor `npm run bench` compares the partner API with: plain node:http, a pg Pool, ioredis
// and BullMQ, doing the same work as the api's two measured routes (same caches, same database
// statements, same Redis work), against the same database and the same queue. A baseline that
// skipped a cache or a durable write the api has would make the ratio lie, so what follows lists
// exactly what this server does and what remains the api's extra work.
//
// GET /v1/operations/:id
//   bearer token → key format check → SHA-256 → the API-key cache (ApiKeyAuthenticator's: an
//   LRUCache keyed by the hash, max 50 000, TTL API_KEY_CACHE_TTL_SECONDS, unknown keys cached as
//   a miss marker; on a miss the key SELECT, and the first miss subscribes to the revocation
//   channel `<QUEUE_PREFIX>:api-keys:revoked`, evicting by key id) → the api's findVisible query
//   (same columns, same join and conditions) → the contract's JSON with Cache-Control: no-store
//   and, while processing, Retry-After from the scenes queue's depth and the organization's own
//   operations waiting for their turn (SceneJobs' suggestedPollDelaySeconds: BullMQ
//   getJobCounts at most once a second, the organization's waiting count at most once a second
//   per organization, same formula).
// POST /v1/scenes
//   the same cached key check → Idempotency-Key UUID v4 check → read and JSON.parse the body
//   (an object with a string prompt) → the api's fingerprint → one transaction: BEGIN; SELECT the
//   idempotency record of (organization, key) (an expired one is deleted, a matching one is
//   replayed with Idempotent-Replayed: true, another body gets 422); INSERT scenes; INSERT
//   operations; the day's usage counted against the quota (UsageService.startGeneration: the
//   same one statement); INSERT idempotency_keys; COMMIT (the api's column lists and values) →
//   202 with Location and the contract's body. Then, without the client waiting, the admission
//   signal the api publishes (`<QUEUE_PREFIX>:admission`): the operation waits for its turn in
//   PostgreSQL and a worker's admission enqueues it, in both setups.
// The api's extra work, not done here: the framework (routing, middleware, Nest's pipes and
// param decorators), the rate limit (a Redis round trip every few requests: tokens are reserved
// in batches), the advisory lock (pg_try_advisory_xact_lock) in the creation transaction,
// class-validator on the body (here only "prompt is a string"), secure-json-parse with the depth
// and repeated-key checks, the Content-Type check, request ids, problem-details error bodies
// (here a bare { code }), security headers, the request log line and the metrics histogram.
//
// Usage: node bench/baseline-server.js <port>
// Environment, read like the api reads it (unset or empty means the api's default): DATABASE_URL,
// DATABASE_POOL_SIZE, REDIS_URL, QUEUE_PREFIX, API_KEY_CACHE_TTL_SECONDS, WORKER_CONCURRENCY.
// `npm run bench` passes the values its api gets.

const { createHash, randomUUID } = require('node:crypto');
const http = require('node:http');
const { Queue } = require('bullmq');
const Redis = require('ioredis');
const { LRUCache } = require('lru-cache');
const { Pool } = require('pg');
const { monotonicFactory } = require('ulid');

// The api's defaults (libs/core/src/config/config.schema.ts, ENV_DEFAULTS), for a standalone run.
const env = (name, fallback) => (process.env[name] === undefined || process.env[name] === '' ? fallback : process.env[name]);
const config = {
  databaseUrl: env('DATABASE_URL', 'postgres://postgres@127.0.0.1:5432/scene_studio'),
  poolSize: Number(env('DATABASE_POOL_SIZE', '10')),
  redisUrl: env('REDIS_URL', 'redis://127.0.0.1:6379'),
  queuePrefix: env('QUEUE_PREFIX', 'scene-studio'),
  apiKeyCacheTtlMs: Number(env('API_KEY_CACHE_TTL_SECONDS', '5')) * 1000,
  workerConcurrency: Number(env('WORKER_CONCURRENCY', '4')),
};

const port = Number(process.argv[2]);
const pool = new Pool({
  connectionString: config.databaseUrl,
  // The api's DATABASE_POOL_SIZE, so both sides get the same number of backends.
  max: config.poolSize,
  application_name: 'scene-studio-bench-baseline',
});
const ulid = monotonicFactory();

const BEARER = /^Bearer[ \t]+([^\s]+)[ \t]*$/i;
const KEY_FORMAT = /^sk_(test|live)_[A-Za-z0-9_-]{43}$/;
const OPERATION_PATH = /^\/v1\/operations\/(op_[0-9A-HJKMNP-TV-Z]{26})$/;
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

function warn(message) {
  process.stderr.write(`baseline: ${message}\n`);
}

// ---------------------------------------------------------------------------------------------
// Redis and the queue, with the api's connection options (libs/core/src/redis/redis.ts) and job
// defaults (libs/core/src/queue/queue.service.ts), so BullMQ does the same work on both sides.

const REDIS_BASE = { connectTimeout: 2000, retryStrategy: (times) => Math.min(times * 200, 2000), lazyConnect: false };

function createRedis(purpose, name) {
  const options =
    purpose === 'commands'
      ? { ...REDIS_BASE, maxRetriesPerRequest: 1, commandTimeout: 1500, enableOfflineQueue: true }
      : { ...REDIS_BASE, maxRetriesPerRequest: null, enableOfflineQueue: true };
  const client = new Redis(config.redisUrl, { ...options, connectionName: `scene-studio-bench-baseline:${name}` });
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

// ---------------------------------------------------------------------------------------------
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

async function authenticate(req) {
  const header = req.headers.authorization;
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

// ---------------------------------------------------------------------------------------------
// Polling

// OperationsRepository.findVisible's statement, columns included (what a partner sees, no more).
const OPERATION_SQL = `SELECT o.id, o.scene_id, o.status, o.version, o.error_code, o.error_message, o.error_retryable,
       o.progress, o.stage, o.created_at, o.updated_at, o.completed_at
  FROM operations o JOIN scenes s ON s.id = o.scene_id
 WHERE o.id = $1 AND o.organization_id = $2 AND s.deleted_at IS NULL`;

// SceneJobs.suggestedPollDelaySeconds: the queue depth, fetched at most once a second, and the
// organization's operations waiting for their turn, at most once a second per organization;
// callers meanwhile use the last figures (0 before the first answer), exactly as the api does.
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
    own.waiting = await pool
      .query(`SELECT count(*)::int AS n FROM operations WHERE organization_id = $1 AND status = 'processing' AND admitted_at IS NULL`, [
        organizationId,
      ])
      .then(
        (r) => r.rows[0].n,
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
  if (op.status === 'processing') {
    return { operationId: op.id, status: 'processing', progress: op.progress ?? 0, stage: op.stage ?? 'queued', createdAt, updatedAt };
  }
  if (op.status === 'succeeded') {
    return {
      operationId: op.id,
      status: 'succeeded',
      sceneId: op.scene_id,
      version: op.version,
      createdAt,
      updatedAt,
      completedAt: op.completed_at.toISOString(),
    };
  }
  const error = { code: op.error_code, message: op.error_message, retryable: op.error_retryable ?? false };
  return { operationId: op.id, status: 'failed', error, createdAt, updatedAt, completedAt: op.completed_at.toISOString() };
}

async function getOperation(req, res, id) {
  const key = await authenticate(req);
  if (!key) return send(res, 401, { code: 'unauthenticated' });
  const { rows } = await pool.query(OPERATION_SQL, [id, key.organizationId]);
  if (rows.length === 0) return send(res, 404, { code: 'not_found' });
  const headers = {};
  if (rows[0].status === 'processing') headers['retry-after'] = String(await suggestedPollDelaySeconds(key.organizationId));
  headers['cache-control'] = 'no-store';
  send(res, 200, operationJson(rows[0]), headers);
}

// ---------------------------------------------------------------------------------------------
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

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
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

/** UsageService.startGeneration (TenancyRepository.countStart's statement): false when the day's quota is spent. */
const QUOTA = `coalesce((SELECT generations_per_day FROM organization_limits WHERE organization_id = $1), 2147483647)`;
async function countStart(client, organizationId, now) {
  const { rows } = await client.query(
    `INSERT INTO usage_days AS u (organization_id, day, generations_started, edits_started)
     SELECT $1, $2, 1, $3 WHERE ${QUOTA} > 0
     ON CONFLICT (organization_id, day) DO UPDATE
        SET generations_started = u.generations_started + 1, edits_started = u.edits_started + EXCLUDED.edits_started
      WHERE u.generations_started < ${QUOTA}
     RETURNING u.generations_started`,
    [organizationId, now.toISOString().slice(0, 10), 0],
  );
  return rows.length === 1;
}

/** AdmissionSignal.wake: tells the workers' admission, best effort. */
function wakeAdmission() {
  producer.publish(`${config.queuePrefix}:admission`, '1').catch((e) => warn(`admission signal not sent: ${e.message}`));
}

async function createScene(req, res) {
  const key = await authenticate(req);
  if (!key) return send(res, 401, { code: 'unauthenticated' });
  const idempotencyKey = req.headers['idempotency-key'];
  if (idempotencyKey === undefined || idempotencyKey === '') return send(res, 400, { code: 'idempotency_key_missing' });
  if (typeof idempotencyKey !== 'string' || !UUID_V4.test(idempotencyKey)) return send(res, 400, { code: 'idempotency_key_invalid' });
  let dto;
  try {
    dto = JSON.parse(await readBody(req));
  } catch {
    return send(res, 400, { code: 'invalid_json' });
  }
  if (dto === null || typeof dto !== 'object' || Array.isArray(dto)) return send(res, 400, { code: 'invalid_json' });
  if (typeof dto.prompt !== 'string') return send(res, 422, { code: 'validation_failed' });

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
      if (!(await countStart(client, organizationId, now))) throw new Refused(429, 'quota_exceeded');
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
    if (e instanceof Refused) return send(res, e.status, { code: e.code });
    throw e;
  } finally {
    client.release();
  }
  const headers = { location: `/v1/operations/${result.operationId}` };
  send(res, 202, result, replayed ? { ...headers, 'idempotent-replayed': 'true' } : headers);
  if (created) wakeAdmission();
}

// ---------------------------------------------------------------------------------------------
// The server

function send(res, status, body, headers = {}) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

const server = http.createServer((req, res) => {
  const path = req.url.split('?', 1)[0];
  let work;
  // Ready once the queue's Redis connection is: the api's readiness also waits for Redis.
  if (req.method === 'GET' && path === '/readyz') {
    work = Promise.resolve(producer.status === 'ready' ? send(res, 200, { status: 'ok' }) : send(res, 503, { status: producer.status }));
  } else if (req.method === 'POST' && path === '/v1/scenes') work = createScene(req, res);
  else {
    const m = req.method === 'GET' ? OPERATION_PATH.exec(path) : null;
    work = m ? getOperation(req, res, m[1]) : Promise.resolve(send(res, 404, { code: 'not_found' }));
  }
  work.catch((e) => {
    warn(e.message);
    if (!res.headersSent) send(res, 503, { code: 'unavailable', requestId: randomUUID() });
  });
});
// The api's keep-alive timeout (72 s, libs/core/src/http/http-app.ts), so autocannon's keep-alive
// connections behave alike on both sides.
server.keepAliveTimeout = 72_000;
server.listen(port, '127.0.0.1', () => process.stdout.write(`baseline listening on 127.0.0.1:${port}\n`));
process.once('SIGTERM', () => {
  server.close(async () => {
    await Promise.allSettled([scenesQueue.close(), pool.end()]);
    producer.disconnect();
    subscriber?.disconnect();
    process.exit(0);
  });
  server.closeAllConnections();
});
