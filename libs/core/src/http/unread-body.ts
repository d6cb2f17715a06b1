import type { Request } from 'express';

/** How much of an unread body is read and thrown away after an early answer, and for how long. */
export const LINGER_BYTES = 2 * 1024 * 1024;
export const LINGER_MS = 2000;
/**
 * A body that declared its length is read up to that length, as long as it is at most this: a
 * client honestly sending a few MiB that were refused before they were read (a full upload slot,
 * a session over its share) then reads the answer; past it the budget is `LINGER_BYTES` again.
 */
export const LINGER_DECLARED_MAX_BYTES = 16 * 1024 * 1024;
/** However the body trickles in, the lingering ends this long after the answer. */
export const LINGER_MAX_MS = 10_000;

/** What is read and discarded of the request's unread body before its connection is closed. */
export function lingerBudget(request: Pick<Request, 'headers'>): number {
  const declared = Number(request.headers['content-length']);
  return Number.isSafeInteger(declared) && declared > LINGER_BYTES && declared <= LINGER_DECLARED_MAX_BYTES ? declared : LINGER_BYTES;
}

/**
 * After answering a request whose body has not arrived whole (an anonymous upload, a declared
 * length over the limit, no upload slot, a body cut off at its cap): read and discard the rest,
 * so a client still sending reads the answer instead of a connection reset (closing with unread
 * data makes the kernel send one, and the client's kernel may then drop the answer unread), and a
 * small remainder keeps the connection reusable. It is a lingering close with a budget: it stops
 * at `lingerBudget` bytes, after `LINGER_MS` without data, or `LINGER_MAX_MS` after the answer,
 * and closes the connection, so no one can make the server read an endless or a trickling body.
 */
export function discardUnreadBody(request: Request): void {
  if (request.complete || request.readableEnded || request.destroyed) return;
  const budget = lingerBudget(request);
  const socket = request.socket;
  let discarded = 0;
  // A connection that will not be kept (the client sent `Connection: close`, or the answer did)
  // is destroyed by Node's HTTP server as soon as the answer is written (`destroySoon`), unread
  // body or not: the reset this lingering exists to avoid. While it lingers, closing only ends
  // our side; the lingering's own end closes the connection for good.
  let closeWanted = false;
  socket.destroySoon = () => {
    closeWanted = true;
    if (socket.writable) socket.end();
  };
  const stop = () => {
    clearTimeout(idle);
    clearTimeout(deadline);
    request.off('data', count);
    request.off('end', stop);
    request.off('close', stop);
    // Back to the prototype's; then what was asked meanwhile happens now.
    delete (socket as Partial<Pick<typeof socket, 'destroySoon'>>).destroySoon;
    if (closeWanted) socket.destroySoon();
  };
  const cut = () => {
    stop();
    request.socket.destroy();
  };
  const count = (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > budget) return cut();
    idle.refresh();
  };
  const idle = setTimeout(cut, LINGER_MS);
  const deadline = setTimeout(cut, LINGER_MAX_MS);
  request.on('data', count);
  request.once('end', stop);
  request.once('close', stop);
  request.resume();
}
