'use strict';
// One of `npm run bench:streams`'s client processes: holds event streams open, as pages would,
// and notes when each hears `session.ended`. Several run at once, because one process may hold at
// most as many sockets as it may open files (`ulimit -n`). Driven over IPC by the bench:
//   { cmd: 'open', port, secrets: [...], concurrency }  → { opened, refused: { status: n }, failed }
//   { cmd: 'report' }  → { open, ended: [{ secret, at, reason }], closedWithoutEnd }
//   { cmd: 'forget-ended' } → forgets the streams that heard `session.ended`
//   { cmd: 'reset' }   → closes every stream it holds
// Times are wall-clock milliseconds (performance.timeOrigin + now), comparable with the bench's.

const http = require('node:http');

const now = () => performance.timeOrigin + performance.now();
let streams = new Map();

/** Opens one stream; resolves with its status once the first event is in (or at once when refused). */
function open(port, secret) {
  return new Promise((resolve) => {
    const entry = { secret, req: null, res: null, ended: null, closed: false };
    const req = http.request(
      { host: '127.0.0.1', port, path: '/studio-api/v1/events', agent: false, headers: { authorization: `Bearer ${secret}` } },
      (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          return resolve({ status: res.statusCode });
        }
        entry.res = res;
        streams.set(secret, entry);
        let buffer = '';
        let first = true;
        res.setEncoding('utf8');
        res.on('data', (chunk) => {
          buffer += chunk;
          for (let split = buffer.indexOf('\n\n'); split >= 0; split = buffer.indexOf('\n\n')) {
            const block = buffer.slice(0, split);
            buffer = buffer.slice(split + 2);
            if (block.startsWith('event: session.ended')) {
              entry.ended = { at: now(), reason: JSON.parse(block.split('\ndata: ')[1]).reason };
            }
            if (first && block.startsWith('event: ')) {
              first = false;
              resolve({ status: 200 });
            }
          }
        });
        res.on('close', () => {
          entry.closed = true;
          if (first) resolve({ status: 0 });
        });
      },
    );
    entry.req = req;
    req.on('error', () => resolve({ status: 0 }));
    req.end();
  });
}

async function openAll({ port, secrets, concurrency }) {
  const refused = {};
  let opened = 0;
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, secrets.length) }, async () => {
      while (next < secrets.length) {
        const { status } = await open(port, secrets[next++]);
        if (status === 200) opened++;
        else refused[status] = (refused[status] ?? 0) + 1;
      }
    }),
  );
  return { opened, refused };
}

process.on('message', async (msg) => {
  if (msg.cmd === 'open') {
    process.send({ reply: msg.cmd, ...(await openAll(msg)) });
  } else if (msg.cmd === 'report') {
    const ended = [];
    let open = 0;
    let closedWithoutEnd = 0;
    for (const e of streams.values()) {
      if (e.ended) ended.push({ secret: e.secret, at: e.ended.at, reason: e.ended.reason });
      else if (e.closed) closedWithoutEnd++;
      else open++;
    }
    process.send({ reply: msg.cmd, open, ended, closedWithoutEnd });
  } else if (msg.cmd === 'forget-ended') {
    for (const [secret, e] of streams) if (e.ended || e.closed) streams.delete(secret);
    process.send({ reply: msg.cmd });
  } else if (msg.cmd === 'reset') {
    for (const e of streams.values()) e.req.destroy();
    streams = new Map();
    process.send({ reply: msg.cmd });
  }
});
process.on('disconnect', () => process.exit(0));
