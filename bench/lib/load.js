'use strict';
// A closed-loop upload load generator on node:http: each client keeps one keep-alive
// connection and sends its next upload as soon as the previous one is answered. Bodies are
// pre-built Buffers handed to the socket whole, so the generator itself copies nothing.

const { randomBytes } = require('node:crypto');
const http = require('node:http');

/** One multipart/form-data body with a single file part. */
function multipartBody(file, { field = 'file', filename = 'image.png', contentType = 'image/png' } = {}) {
  const boundary = `----bench${randomBytes(12).toString('hex')}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${filename}"\r\n` + `Content-Type: ${contentType}\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return { body: Buffer.concat([head, file, tail]), contentType: `multipart/form-data; boundary=${boundary}` };
}

/**
 * Sends one POST and resolves (never rejects) with its status and timings (ms, from
 * performance.now()): `sent` is when the last body byte was handed to the kernel, so for an
 * upload the server leaves unread (waiting for a slot) it includes the wait.
 */
function post({ port, path, agent, headers, body, timeoutMs = 120_000 }) {
  return new Promise((resolve) => {
    const started = performance.now();
    let sent = NaN;
    let settled = false;
    const done = (r) => {
      if (settled) return;
      settled = true;
      resolve({ started, sent, ended: performance.now(), ...r });
    };
    const req = http.request(
      { host: '127.0.0.1', port, path, method: 'POST', agent, headers: { ...headers, 'content-length': body.length } },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () =>
          done({ status: res.statusCode, headers: res.headers, text: Buffer.concat(chunks).toString('utf8'), error: null }),
        );
        res.on('error', (e) => done({ status: res.statusCode, headers: res.headers, text: '', error: e.code || e.message }));
      },
    );
    req.on('finish', () => (sent = performance.now()));
    req.on('error', (e) => done({ status: 0, headers: {}, text: '', error: e.code || e.message }));
    req.setTimeout(timeoutMs, () => req.destroy(Object.assign(new Error('client timeout'), { code: 'CLIENT_TIMEOUT' })));
    req.end(body);
  });
}

/**
 * `clients` loops, each posting `bodies[i]` back to back until `durationMs` has passed; an upload
 * in flight at the deadline is allowed to finish (it is reported, not counted in the window).
 * `onStart` runs just before the first request.
 */
async function closedLoop({ port, path, clients, durationMs, bodies, headers = {}, onStart = () => {} }) {
  const agents = [];
  const results = [];
  onStart();
  const t0 = performance.now();
  const deadline = t0 + durationMs;
  const loops = [];
  for (let i = 0; i < clients; i++) {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    agents.push(agent);
    const { body, contentType } = bodies[i % bodies.length];
    loops.push(
      (async () => {
        while (performance.now() < deadline) {
          const r = await post({ port, path, agent, headers: { ...headers, 'content-type': contentType }, body });
          results.push({ client: i, ...r, started: r.started - t0, sent: r.sent - t0, ended: r.ended - t0 });
        }
      })(),
    );
  }
  await Promise.all(loops);
  const drainedMs = performance.now() - t0;
  for (const a of agents) a.destroy();
  return { durationMs, drainedMs, results };
}

module.exports = { multipartBody, post, closedLoop };
