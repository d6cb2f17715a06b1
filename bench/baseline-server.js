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
//   (same columns, same join and conditions) → the documented JSON with Cache-Control: no-store
//   and, while processing, Retry-After from the scenes queue's depth and the organization's own
//   operations waiting for their turn (SceneJobScheduler's suggestedPollDelaySeconds: BullMQ
//   getJobCounts at most once a second, the organization's waiting count — its backlog row — at
//   most once a second per organization, same formula).
// POST /v1/scenes
//   the same cached key check → Idempotency-Key UUID v4 check → read and JSON.parse the body
//   (an object with a string prompt) → the api's fingerprint → one transaction: BEGIN; SELECT the
//   idempotency record of (organization, key) (an expired one is deleted, a matching one is
//   replayed with Idempotent-Replayed: true, another body gets 422); INSERT scenes; INSERT
//   operations; the day's usage counted against the quota and the organization's waiting count
//   against its cap (UsageService.startGeneration: the same one statement); INSERT
//   idempotency_keys; COMMIT (the api's column lists and values; one statement per write, as a
//   plain app would write them, where the api saves round trips) →
//   202 with Location and the documented body. Then, without the client waiting, the admission
//   signal the api publishes (`<QUEUE_PREFIX>:admission`): the operation waits for its turn in
//   PostgreSQL and a worker's admission enqueues it, in both setups.
// The api's extra work, not done here: the framework (routing, middleware, Nest's pipes and
// param decorators), the rate limit (a Redis round trip every few requests: tokens are reserved
// in batches), the advisory lock (pg_try_advisory_xact_lock) in the creation transaction,
// class-validator on the body (here only "prompt is a string"), secure-json-parse with the depth
// and repeated-key checks, the Content-Type check, request ids, problem-details error bodies
// (here a bare { code }), security headers, the request log line and the metrics histogram.
//
// The work itself is bench/lib/partner-work.js, shared with the bare Nest peer (bench/nest-peer.js):
// the two floors differ only in their HTTP layer.
//
// Usage: node bench/baseline-server.js <port>
// Environment, read like the api reads it (unset or empty means the api's default): DATABASE_URL,
// DATABASE_POOL_SIZE, REDIS_URL, QUEUE_PREFIX, API_KEY_CACHE_TTL_SECONDS, WORKER_CONCURRENCY.
// `npm run bench` passes the values its api gets.

const { randomUUID } = require('node:crypto');
const http = require('node:http');
const { partnerWork } = require('./lib/partner-work');

const OPERATION_PATH = /^\/v1\/operations\/(op_[0-9A-HJKMNP-TV-Z]{26})$/;
const port = Number(process.argv[2]);
const work = partnerWork('baseline');

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function send(res, status, body, headers = {}) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

async function createScene(req, res) {
  let dto;
  try {
    dto = JSON.parse(await readBody(req));
  } catch {
    dto = undefined;
  }
  const answer = await work.createScene(req.headers, dto);
  send(res, answer.status, answer.body, answer.headers);
  answer.afterAnswer?.();
}

async function getOperation(req, res, id) {
  const answer = await work.getOperation(req.headers.authorization, id);
  send(res, answer.status, answer.body, answer.headers);
}

const server = http.createServer((req, res) => {
  const path = req.url.split('?', 1)[0];
  let done;
  // Ready once the queue's Redis connection is: the api's readiness also waits for Redis.
  if (req.method === 'GET' && path === '/readyz') {
    done = Promise.resolve(work.ready() ? send(res, 200, { status: 'ok' }) : send(res, 503, { status: 'starting' }));
  } else if (req.method === 'POST' && path === '/v1/scenes') done = createScene(req, res);
  else {
    const m = req.method === 'GET' ? OPERATION_PATH.exec(path) : null;
    done = m ? getOperation(req, res, m[1]) : Promise.resolve(send(res, 404, { code: 'not_found' }));
  }
  done.catch((e) => {
    process.stderr.write(`baseline: ${e.message}\n`);
    if (!res.headersSent) send(res, 503, { code: 'unavailable', requestId: randomUUID() });
  });
});
// The api's keep-alive timeout (72 s, libs/core/src/http/http-app.ts), so autocannon's keep-alive
// connections behave alike on every side.
server.keepAliveTimeout = 72_000;
server.listen(port, '127.0.0.1', () => process.stdout.write(`baseline listening on 127.0.0.1:${port}\n`));
process.once('SIGTERM', () => {
  server.close(async () => {
    await work.close();
    process.exit(0);
  });
  server.closeAllConnections();
});
