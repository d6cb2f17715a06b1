#!/usr/bin/env node
// The reference partner integration: a tiny partner backend and page that embed Scene Studio
// by every rule of the product description. It keeps the API key on the server, and delivers an
// embed URL (a bearer secret) only through an authenticated, private, no-store response.
//
// Environment:
//   PARTNER_API_KEY       Scene Studio API key (required; `npm start` issues one)
//   PARTNER_API_URL       Scene Studio API base URL            (default http://localhost:3000)
//   PARTNER_EMBED_ORIGIN  Scene Studio embed origin            (default http://localhost:3001)
//   PARTNER_APP_PORT      port of this app                     (default 3100)
//   PARTNER_APP_HOST      bind address                         (default 127.0.0.1)
//   PARTNER_WEBHOOK_SECRET  the whsec_… secret of this app's webhook endpoint; without it
//                         POST /webhooks/scene-studio answers 404
//   PARTNER_SESSION_SECONDS  lifetime of the embed sessions it issues, and of each extension
//                         (default 3600; the studio warns 5 minutes before the end, and the
//                         page then asks this backend to extend the session)
//
// Every call to Scene Studio goes through the typed client (packages/client, built by
// `npm run build`): it retries what is safe to retry, keeps one Idempotency-Key per scene across
// those retries, and turns error answers into SceneStudioError with the problem details.
'use strict';
const { createServer } = require('node:http');
const { randomBytes } = require('node:crypto');
const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const { SceneStudioClient, SceneStudioError, verifyWebhook } = require('@scene-studio/client');

const apiKey = process.env.PARTNER_API_KEY;
const apiUrl = (process.env.PARTNER_API_URL || 'http://localhost:3000').replace(/\/+$/, '');
const embedOrigin = process.env.PARTNER_EMBED_ORIGIN || 'http://localhost:3001';
const port = Number(process.env.PARTNER_APP_PORT || 3100);
const host = process.env.PARTNER_APP_HOST || '127.0.0.1';
const sessionSeconds = Number(process.env.PARTNER_SESSION_SECONDS || 3600);
if (!apiKey) {
  process.stderr.write('PARTNER_API_KEY is required\n');
  process.exit(1);
}
/** Our own origin as the browser sees it: what the embed session is bound to. */
const selfOrigin = process.env.PARTNER_APP_ORIGIN || `http://localhost:${port}`;

const files = {
  '/': ['index.html', 'text/html; charset=utf-8'],
  '/app.js': ['app.js', 'text/javascript; charset=utf-8'],
  '/app.css': ['app.css', 'text/css; charset=utf-8'],
};
const assets = Object.fromEntries(
  Object.entries(files).map(([path, [file, type]]) => [path, { body: readFileSync(join(__dirname, 'public', file)), type }]),
);

// Demo "login": a random session cookie per browser. A real partner has its own users.
const sessions = new Set();
// Referer headers this server received, so a test can check none carries a secret.
const seenReferers = [];

const pageHeaders = {
  'content-security-policy': [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    `frame-src ${embedOrigin}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "object-src 'none'",
  ].join('; '),
  // Restrictive, so it must delegate what the studio needs to the embed origin.
  'permissions-policy': `gamepad=(self "${embedOrigin}"), hid=(self "${embedOrigin}"), fullscreen=(self "${embedOrigin}"), camera=(), microphone=(), geolocation=()`,
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-store',
};

function log(line) {
  // Never log request bodies or responses: they can hold embed URLs.
  process.stdout.write(`${new Date().toISOString()} ${line}\n`);
}

function cookie(req) {
  const m = /(?:^|;\s*)partner_session=([A-Za-z0-9_-]{20,})/.exec(req.headers.cookie || '');
  return m && sessions.has(m[1]) ? m[1] : null;
}

function json(res, status, body, extra = {}) {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...extra });
  res.end(JSON.stringify(body));
}

async function readBody(req, limit) {
  let size = 0;
  const chunks = [];
  for await (const c of req) {
    size += c.length;
    if (size > limit) throw new Error('body too large');
    chunks.push(c);
  }
  return Buffer.concat(chunks);
}

async function readJson(req) {
  const body = await readBody(req, 16 * 1024);
  return body.length ? JSON.parse(body.toString('utf8')) : {};
}

const webhookSecret = process.env.PARTNER_WEBHOOK_SECRET;
// Deliveries are retried with the same webhook-id: remember the ids handled (a real app keeps
// them in its database, next to the effect, in one transaction).
const handledWebhooks = new Set();
const webhookEvents = [];
/** Embed sessions this app issued, by the user (cookie) they were issued to. */
const issuedSessions = new Map();

/** POST /webhooks/scene-studio: verify the raw body's signature, handle each event once, answer 2xx fast. */
async function receiveWebhook(req, res) {
  const body = await readBody(req, 256 * 1024);
  let verified;
  try {
    verified = verifyWebhook(body, req.headers, webhookSecret);
  } catch (e) {
    log(`webhook refused: ${e.message}`);
    return json(res, 400, { error: 'invalid signature' });
  }
  const { webhookId, event } = verified;
  if (!handledWebhooks.has(webhookId)) {
    handledWebhooks.add(webhookId);
    webhookEvents.push({ webhookId, type: event.type });
    log(`webhook ${webhookId} ${event.type}`);
  }
  res.writeHead(204).end();
}

const sceneStudio = new SceneStudioClient({ apiKey, baseUrl: apiUrl });

const MODES = new Set(['edit', 'perform', 'edit_and_perform']);
const ID = /^(op|scn)_[0-9A-HJKMNP-TV-Z]{26}$/;

async function route(req, res) {
  const url = new URL(req.url, selfOrigin);
  if (req.headers.referer) seenReferers.push(req.headers.referer);
  log(`${req.method} ${url.pathname}`);

  if (req.method === 'GET' && assets[url.pathname]) {
    const headers = { 'content-type': assets[url.pathname].type, ...pageHeaders };
    if (url.pathname === '/' && !cookie(req)) {
      const id = randomBytes(24).toString('base64url');
      sessions.add(id);
      headers['set-cookie'] = `partner_session=${id}; HttpOnly; SameSite=Strict; Path=/`;
    }
    res.writeHead(200, headers);
    return res.end(assets[url.pathname].body);
  }
  if (req.method === 'GET' && url.pathname === '/config.json') {
    return json(res, 200, { embedOrigin, selfOrigin });
  }
  if (req.method === 'GET' && url.pathname === '/__referers') return json(res, 200, { referers: seenReferers });
  if (req.method === 'GET' && url.pathname === '/__webhooks') return json(res, 200, { events: webhookEvents });
  // Authenticated by its signature, not by a cookie.
  if (req.method === 'POST' && url.pathname === '/webhooks/scene-studio' && webhookSecret) return receiveWebhook(req, res);
  if (!url.pathname.startsWith('/api/')) return json(res, 404, { error: 'not found' });
  if (!cookie(req)) return json(res, 401, { error: 'sign in first' });

  if (req.method === 'POST' && url.pathname === '/api/scenes') {
    const { prompt } = await readJson(req);
    if (typeof prompt !== 'string' || !prompt.trim()) return json(res, 422, { error: 'prompt required' });
    // One key per user action, reused by the client's own retries: a retry cannot create a twin.
    const created = await sceneStudio.createScene({ prompt });
    return json(res, 202, { operationId: created.operationId, status: created.status, createdAt: created.createdAt });
  }
  const op = /^\/api\/operations\/([^/]+)$/.exec(url.pathname);
  if (req.method === 'GET' && op && ID.test(op[1])) {
    const { operation, retryAfterSeconds } = await sceneStudio.getOperation(op[1]);
    return json(res, 200, operation, retryAfterSeconds !== null ? { 'retry-after': String(retryAfterSeconds) } : {});
  }
  if (req.method === 'POST' && url.pathname === '/api/embed-sessions') {
    const { sceneId, mode } = await readJson(req);
    if (!ID.test(sceneId || '') || !MODES.has(mode)) return json(res, 422, { error: 'sceneId and mode required' });
    const session = await sceneStudio.createEmbedSession({
      sceneId,
      mode,
      origin: selfOrigin,
      expiresInSeconds: sessionSeconds,
      theme: {
        partnerName: 'Example Partner',
        accentColor: '#ff7a45',
        colorScheme: 'dark',
        helpText: 'This is the reference partner page. Edit turns and recordings stay in this session.',
      },
    });
    // Only the user who opened a session may extend it.
    issuedSessions.set(session.embedSessionId, cookie(req));
    // The URL is a bearer secret: this authenticated answer is the only way it reaches the browser.
    return json(
      res,
      201,
      { url: session.url, mode: session.mode, embedSessionId: session.embedSessionId },
      { 'cache-control': 'private, no-store' },
    );
  }
  // The studio said the session ends soon (`session.expiring`): extend it from here, where the
  // API key lives. The open studio learns the new expiry by itself (`session.extended`).
  const extend = /^\/api\/embed-sessions\/([^/]+)\/extend$/.exec(url.pathname);
  if (req.method === 'POST' && extend && issuedSessions.get(extend[1]) === cookie(req)) {
    const extended = await sceneStudio.extendEmbedSession(extend[1], sessionSeconds);
    return json(res, 200, extended);
  }
  return json(res, 404, { error: 'not found' });
}

const server = createServer((req, res) => {
  route(req, res).catch((e) => {
    if (res.headersSent) return;
    // Scene Studio's problem details are safe to pass on (no secrets, no internals); log only
    // the code and request id, never a body.
    if (e instanceof SceneStudioError) {
      log(`Scene Studio answered ${e.status} ${e.code} (request ${e.requestId})`);
      return json(res, e.status, e.problem);
    }
    log(`error: ${e.message}`);
    json(res, 502, { error: 'Scene Studio request failed' });
  });
});
server.listen(port, host, () =>
  log(`partner example listening on ${selfOrigin} (Scene Studio API ${apiUrl}, embed origin ${embedOrigin})`),
);
function shutdown() {
  server.close(() => process.exit(0));
  // Idle keep-alive connections (an open browser tab) would hold close() open.
  server.closeIdleConnections();
}
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, shutdown);
// Started with an IPC channel (the test helper does), this app does not outlive its parent:
// the channel closes when the parent exits, however it exits.
if (process.connected) process.once('disconnect', shutdown);
