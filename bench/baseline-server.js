'use strict';
// The floor `npm run bench` compares the partner API with: plain node:http and a pg Pool doing
// the least work that is still equivalent to the two measured routes, against the same database.
// No framework, no validation library, no Redis, no rate limit, no logging, no metrics.
//
// GET /v1/operations/:id
//   bearer token → sha256 → SELECT the key by hash (joined to its organization) → SELECT the
//   operation by id, organization and live scene (the api's query) → the contract's JSON, with
//   Cache-Control: no-store and a constant Retry-After while processing.
// POST /v1/scenes
//   bearer token → sha256 → the same key SELECT → read and JSON.parse the body → one transaction:
//   BEGIN; INSERT scenes; INSERT operations; INSERT idempotency_keys; COMMIT → 202 with Location
//   and the contract's body. It does not take the advisory lock, look for an earlier record of the
//   key, enqueue a job or validate the prompt: those are the api's extra work.
//
// Usage: node bench/baseline-server.js <port>   (DATABASE_URL, DATABASE_POOL_SIZE from env)

const { createHash, randomUUID } = require('node:crypto');
const http = require('node:http');
const { Pool } = require('pg');
const { monotonicFactory } = require('ulid');

const port = Number(process.argv[2]);
const pool = new Pool({
  connectionString: process.env.DATABASE_URL,
  // The api's DATABASE_POOL_SIZE default, so both sides get the same number of backends.
  max: Number(process.env.DATABASE_POOL_SIZE || 10),
  application_name: 'scene-studio-bench-baseline',
});
const ulid = monotonicFactory();

const BEARER = /^Bearer[ \t]+([^\s]+)[ \t]*$/i;
const OPERATION_PATH = /^\/v1\/operations\/(op_[0-9A-HJKMNP-TV-Z]{26})$/;
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const DAY_MS = 24 * 60 * 60 * 1000;

const KEY_SQL = `SELECT k.id AS key_id, k.organization_id, o.is_test
  FROM api_keys k JOIN organizations o ON o.id = k.organization_id
 WHERE k.key_hash = $1 AND k.revoked_at IS NULL`;
const OPERATION_SQL = `SELECT o.id, o.status, o.scene_id, o.version, o.error_code, o.error_message, o.error_retryable,
       o.created_at, o.updated_at, o.completed_at
  FROM operations o JOIN scenes s ON s.id = o.scene_id
 WHERE o.id = $1 AND o.organization_id = $2 AND s.deleted_at IS NULL`;

function send(res, status, body, headers = {}) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

async function authenticate(req) {
  const m = BEARER.exec(req.headers.authorization || '');
  if (!m) return null;
  const hash = createHash('sha256').update(m[1], 'utf8').digest('hex');
  const { rows } = await pool.query(KEY_SQL, [hash]);
  return rows[0] || null;
}

function operationJson(op) {
  const base = { operationId: op.id, status: op.status };
  const times = { createdAt: op.created_at.toISOString(), updatedAt: op.updated_at.toISOString() };
  if (op.status === 'processing') return { ...base, ...times };
  if (op.status === 'succeeded') {
    return { ...base, sceneId: op.scene_id, version: op.version, ...times, completedAt: op.completed_at.toISOString() };
  }
  const error = { code: op.error_code, message: op.error_message, retryable: op.error_retryable ?? false };
  return { ...base, error, ...times, completedAt: op.completed_at.toISOString() };
}

async function getOperation(req, res, id) {
  const key = await authenticate(req);
  if (!key) return send(res, 401, { code: 'unauthenticated' });
  const { rows } = await pool.query(OPERATION_SQL, [id, key.organization_id]);
  if (rows.length === 0) return send(res, 404, { code: 'not_found' });
  const headers = { 'cache-control': 'no-store' };
  if (rows[0].status === 'processing') headers['retry-after'] = '1';
  send(res, 200, operationJson(rows[0]), headers);
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

async function createScene(req, res) {
  const key = await authenticate(req);
  if (!key) return send(res, 401, { code: 'unauthenticated' });
  const idempotencyKey = req.headers['idempotency-key'];
  if (typeof idempotencyKey !== 'string' || !UUID_V4.test(idempotencyKey)) return send(res, 400, { code: 'idempotency_key_invalid' });
  let dto;
  try {
    dto = JSON.parse(await readBody(req));
  } catch {
    return send(res, 400, { code: 'invalid_json' });
  }
  const now = new Date();
  const sceneId = `scn_${ulid()}`;
  const operationId = `op_${ulid()}`;
  const body = { operationId, status: 'processing', createdAt: now.toISOString() };
  const headers = { location: `/v1/operations/${operationId}` };
  const fingerprint = createHash('sha256').update(`POST /v1/scenes\n${JSON.stringify(dto)}`).digest('hex');
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query(
      `INSERT INTO scenes (id, organization_id, external_ref, prompt, source_asset_id, status, current_version,
                           creating_operation_id, created_at, updated_at, deleted_at)
       VALUES ($1, $2, $3, $4, NULL, 'generating', NULL, $5, $6, $6, NULL)`,
      [sceneId, key.organization_id, dto.externalRef ?? null, String(dto.prompt), operationId, now],
    );
    await client.query(
      `INSERT INTO operations (id, organization_id, scene_id, kind, status, instruction, version, error_code, error_message,
                               error_retryable, enqueued_at, created_at, updated_at, completed_at)
       VALUES ($1, $2, $3, 'scene.create', 'processing', NULL, NULL, NULL, NULL, NULL, NULL, $4, $4, NULL)`,
      [operationId, key.organization_id, sceneId, now],
    );
    await client.query(
      `INSERT INTO idempotency_keys (organization_id, key, fingerprint, response_status, response_body, response_headers, created_at, expires_at)
       VALUES ($1, $2, $3, 202, $4, $5, $6, $7)`,
      [key.organization_id, idempotencyKey, fingerprint, JSON.stringify(body), JSON.stringify(headers), now, new Date(now.getTime() + DAY_MS)],
    );
    await client.query('COMMIT');
  } catch (e) {
    await client.query('ROLLBACK').catch(() => {});
    throw e;
  } finally {
    client.release();
  }
  send(res, 202, body, headers);
}

const server = http.createServer((req, res) => {
  const path = req.url.split('?', 1)[0];
  let work;
  if (req.method === 'GET' && path === '/readyz') work = Promise.resolve(send(res, 200, { status: 'ok' }));
  else if (req.method === 'POST' && path === '/v1/scenes') work = createScene(req, res);
  else {
    const m = req.method === 'GET' ? OPERATION_PATH.exec(path) : null;
    work = m ? getOperation(req, res, m[1]) : Promise.resolve(send(res, 404, { code: 'not_found' }));
  }
  work.catch((e) => {
    process.stderr.write(`baseline: ${e.message}\n`);
    if (!res.headersSent) send(res, 503, { code: 'unavailable', requestId: randomUUID() });
  });
});
// Like fastify's default, so autocannon's keep-alive connections behave the same on both sides.
server.keepAliveTimeout = 72_000;
server.listen(port, '127.0.0.1', () => process.stdout.write(`baseline listening on 127.0.0.1:${port}\n`));
process.once('SIGTERM', () => {
  server.close(() => pool.end().finally(() => process.exit(0)));
  server.closeAllConnections();
});
