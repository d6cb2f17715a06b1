'use strict';
// One of `npm run bench:streams`'s client processes: holds event streams open, as pages would,
// and notes when each hears `session.ended`. Several run at once, because one process may hold at
// most as many sockets as it may open files (`ulimit -n`). Driven over IPC by the bench:
//   { cmd: 'open', port, secrets: [...], concurrency }  → { opened, refused: { status: n }, failed }
//   { cmd: 'report' }  → { open, ended: [{ secret, at, reason }], closedWithoutEnd }
//   { cmd: 'forget-ended' } → forgets the streams that heard `session.ended`
//   { cmd: 'reset' }   → closes every stream it holds
// Times are wall-clock milliseconds (performance.timeOrigin + now), comparable with the bench's.

const net = require('node:net');

const now = () => performance.timeOrigin + performance.now();
let streams = new Map();

const ENDED = Buffer.from('event: session.ended');
const HEAD_END = Buffer.from('\r\n\r\n');
const FIRST_EVENT = Buffer.from('event: ');

/**
 * Opens one stream on a plain socket; resolves with its status once the first event is in (or at
 * once when refused). The client is the measuring instrument, shared by the studio and the floor:
 * it does as little as it can per byte (no HTTP parser or stream machinery per response, only a
 * search of each chunk for the event's name), so that with 15 000 sockets on the bench's own two
 * cores the time read is the server's more than the clients'. A chunk may end inside the name:
 * the last bytes of each are kept to search with the next.
 */
function open(port, secret) {
  return new Promise((resolve) => {
    const entry = { secret, socket: null, ended: null, closed: false };
    const socket = net.connect({ host: '127.0.0.1', port });
    entry.socket = socket;
    let head = Buffer.alloc(0);
    let status = null;
    let first = true;
    let tail = Buffer.alloc(0);
    socket.on('connect', () =>
      socket.write(
        `GET /studio-api/v1/events HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${secret}\r\nConnection: close\r\n\r\n`,
      ),
    );
    socket.on('data', (chunk) => {
      if (status === null) {
        head = Buffer.concat([head, chunk]);
        const at = head.indexOf(HEAD_END);
        if (at < 0) return;
        status = Number(head.subarray(9, 12).toString('latin1'));
        if (status !== 200) {
          socket.destroy();
          return resolve({ status });
        }
        streams.set(secret, entry);
        chunk = head.subarray(at + 4);
        head = null;
      }
      const text = tail.length ? Buffer.concat([tail, chunk]) : chunk;
      if (first && text.includes(FIRST_EVENT)) {
        first = false;
        resolve({ status: 200 });
      }
      if (!entry.ended) {
        const at = text.indexOf(ENDED);
        if (at >= 0) {
          const reason = /"reason":"(\w+)"/.exec(text.subarray(at, at + 400).toString('latin1'));
          if (reason) entry.ended = { at: now(), reason: reason[1] };
        }
      }
      // Enough of the end to hold a split name and its data line.
      tail = text.subarray(Math.max(0, text.length - 400));
    });
    socket.on('close', () => {
      entry.closed = true;
      if (status === null || first) resolve({ status: status === null || status === 200 ? 0 : status });
    });
    socket.on('error', () => {});
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
    for (const e of streams.values()) e.socket.destroy();
    streams = new Map();
    process.send({ reply: msg.cmd });
  }
});
process.on('disconnect', () => process.exit(0));
