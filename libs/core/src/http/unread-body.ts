import type { Request } from 'express';

/** How much of an unread body is read and thrown away after an early answer, and for how long. */
export const LINGER_BYTES = 2 * 1024 * 1024;
export const LINGER_MS = 2000;

/**
 * After answering a request whose body has not arrived whole (an anonymous upload, a declared
 * length over the limit, no upload slot, a body cut off at its cap): read and discard the rest
 * for a moment, so a client still sending reads the answer instead of a connection reset, and a
 * small remainder keeps the connection reusable — but stop at `LINGER_BYTES` or `LINGER_MS` and
 * close the connection (a lingering close), so no one can make the server read an endless body.
 */
export function discardUnreadBody(request: Request): void {
  if (request.complete || request.readableEnded || request.destroyed) return;
  let discarded = 0;
  const stop = () => {
    clearTimeout(timer);
    request.off('data', count);
    request.off('end', stop);
    request.off('close', stop);
  };
  const cut = () => {
    stop();
    request.socket.destroy();
  };
  const count = (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > LINGER_BYTES) cut();
  };
  const timer = setTimeout(cut, LINGER_MS);
  request.on('data', count);
  request.once('end', stop);
  request.once('close', stop);
  request.resume();
}
