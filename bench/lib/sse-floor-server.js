'use strict';
// The floor of `npm run bench:streams`: a plain node:http server holding the same event streams
// as the studio and doing the same work on them, and nothing else. A stream is opened by
// `GET /studio-api/v1/events` with the session's secret as a bearer token (looked up in a Map
// loaded at start: the studio's database read is opening cost, not holding cost); it gets the
// studio's response headers and its first `scene.status` event, the same bytes; every 15 s one
// timer writes a comment line to every stream; a session's expiry ends its streams from one
// timer (`session.ended` expired); `POST /control/end-scene?scene=<id>` (the bench's stand-in for
// the news of a scene's deletion) writes `session.ended` revoked to every stream of the scene and
// closes it, as the studio does.
// Usage: node bench/lib/sse-floor-server.js <port> <sessions.json: [{ secret, sessionId, sceneId, expiresAt }]>

const { randomUUID } = require('node:crypto');
const { readFileSync } = require('node:fs');
const http = require('node:http');

const HEARTBEAT_MS = 15_000;
const port = Number(process.argv[2]);
const sessions = new Map(
  JSON.parse(readFileSync(process.argv[3], 'utf8')).map((s) => [s.secret, { ...s, expiresAt: s.expiresAt ?? Infinity }]),
);
const byScene = new Map();
const bySession = new Map();
let heartbeat = null;
let expiryTimer = null;

const SCENE_STATUS = `event: scene.status\ndata: ${JSON.stringify({ status: 'generating', version: null, progress: 0, stage: 'queued', error: null })}\n\n`;
const ENDED = {
  revoked: `event: session.ended\ndata: ${JSON.stringify({ reason: 'revoked' })}\n\n`,
  expired: `event: session.ended\ndata: ${JSON.stringify({ reason: 'expired' })}\n\n`,
};

function add(map, key, stream) {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  set.add(stream);
}

function remove(stream) {
  for (const [map, key] of [
    [byScene, stream.sceneId],
    [bySession, stream.sessionId],
  ]) {
    const set = map.get(key);
    if (set && set.delete(stream) && set.size === 0) map.delete(key);
  }
  if (bySession.size === 0 && heartbeat) {
    clearInterval(heartbeat);
    heartbeat = null;
  }
}

function end(stream, reason) {
  if (!bySession.get(stream.sessionId)?.has(stream)) return;
  remove(stream);
  const socket = stream.res.socket;
  stream.res.end(ENDED[reason], () => socket && socket.destroySoon());
}

/** One timer, at the earliest expiry of the open streams (a scan only when it fires). */
let armedAt = Infinity;
function watchExpiry(at) {
  if (at >= armedAt) return;
  clearTimeout(expiryTimer);
  armedAt = at;
  expiryTimer = setTimeout(expire, Math.max(0, at - Date.now()));
}

function expire() {
  armedAt = Infinity;
  expiryTimer = null;
  const now = Date.now();
  let next = Infinity;
  for (const set of [...bySession.values()]) {
    for (const s of [...set]) {
      if (s.expiresAt <= now) end(s, 'expired');
      else next = Math.min(next, s.expiresAt);
    }
  }
  if (Number.isFinite(next)) watchExpiry(next);
}

const server = http.createServer((req, res) => {
  const url = new URL(req.url, 'http://floor');
  if (req.method === 'POST' && url.pathname === '/control/end-scene') {
    const streams = [...(byScene.get(url.searchParams.get('scene')) ?? [])];
    for (const s of streams) end(s, 'revoked');
    res.writeHead(204).end();
    return;
  }
  if (req.method !== 'GET' || url.pathname !== '/studio-api/v1/events') return void res.writeHead(404).end();
  const session = sessions.get((req.headers.authorization ?? '').replace(/^Bearer /, ''));
  if (!session) return void res.writeHead(401).end();
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'x-request-id': randomUUID(),
    'x-accel-buffering': 'no',
  });
  const stream = { res, sessionId: session.sessionId, sceneId: session.sceneId, expiresAt: session.expiresAt };
  add(byScene, stream.sceneId, stream);
  add(bySession, stream.sessionId, stream);
  res.on('close', () => remove(stream));
  res.write(SCENE_STATUS);
  watchExpiry(stream.expiresAt);
  heartbeat ??= setInterval(() => {
    for (const set of bySession.values()) for (const s of set) s.res.write(': keep-alive\n\n');
  }, HEARTBEAT_MS);
});
server.keepAliveTimeout = 72_000;
server.listen(port, '127.0.0.1', () => process.stdout.write(`floor listening on 127.0.0.1:${port}\n`));
process.once('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
