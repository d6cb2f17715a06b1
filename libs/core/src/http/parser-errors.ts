import { randomUUID } from 'node:crypto';
import { IncomingMessage, Server, ServerResponse, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { DomainError, ErrorCode } from '../errors';
import { buildProblem, mapError, ProblemSettings } from './problem';
import { requestIdFor } from './request-id';
import { LINGER_BYTES, LINGER_MS } from './unread-body';

/** What Node's HTTP parser refuses before any request object exists, as our problem codes (docs/api.md, "Errors"). */
function parserError(code: string | undefined): DomainError {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return new DomainError(ErrorCode.HeadersTooLarge, 'The request line and headers exceed 16 KiB.');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new DomainError(ErrorCode.RequestTimeout, 'The request did not arrive in time.');
    default:
      return new DomainError(ErrorCode.BadRequest, 'The request is not valid HTTP/1.1 (malformed framing or headers).');
  }
}

/**
 * Node answers what its HTTP parser refuses (a malformed request line or header, a body shorter
 * than its Content-Length, oversized headers, a request that took too long) and unknown `Expect`
 * values itself, with a bare status line. These handlers answer them like every other error: RFC
 * 9457 problem details with a request id (generated: the request's own headers never parsed).
 */
export function answerParserErrors(server: Server, problems: ProblemSettings): void {
  // Connections answered here, with how much of them had been read by then.
  const answered = new WeakMap<Duplex, number>();
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    const readAtAnswer = answered.get(socket);
    if (readAtAnswer !== undefined) {
      // The parser refuses every later chunk of a connection it gave up on, and reading them is
      // the lingering close: stop at the budget, as for an unread body (unread-body.ts).
      if (bytesRead(socket) - readAtAnswer > LINGER_BYTES) socket.destroy();
      return;
    }
    // Already half gone (answered elsewhere): no one to read an answer.
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    const problem = buildProblem(mapError(parserError(error.code), problems.errors), randomUUID(), problems);
    const body = JSON.stringify(problem.body);
    const head = [
      `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status]}`,
      ...Object.entries(problem.headers).map(([name, value]) => `${name}: ${value}`),
      `content-length: ${Buffer.byteLength(body)}`,
      `x-request-id: ${problem.body.requestId}`,
      'x-content-type-options: nosniff',
      'cache-control: no-store',
      'connection: close',
    ];
    socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
    lingerAfterAnswer(socket, answered);
  });

  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    const error = new DomainError(ErrorCode.ExpectationFailed, 'Only "Expect: 100-continue" is supported.');
    const problem = buildProblem(mapError(error, problems.errors), requestIdFor(req), problems);
    const body = JSON.stringify(problem.body);
    res.writeHead(problem.status, {
      ...problem.headers,
      'content-length': Buffer.byteLength(body),
      'x-request-id': problem.body.requestId,
      'x-content-type-options': 'nosniff',
      'cache-control': 'no-store',
      connection: 'close',
    });
    res.end(body);
  });
}

/**
 * RFC 9112 §9.6: closing while the client still sends makes the kernel answer its next segment
 * with a reset, and a reset can make the client drop the answer unread. So the rest of the
 * connection is read (the parser drops it, refusing each chunk) until the client closes its side,
 * `LINGER_BYTES` have come or `LINGER_MS` have passed.
 */
function lingerAfterAnswer(socket: Duplex, answered: WeakMap<Duplex, number>): void {
  answered.set(socket, bytesRead(socket));
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  socket.once('close', () => clearTimeout(timer));
}

function bytesRead(socket: Duplex): number {
  return (socket as Partial<Socket>).bytesRead ?? 0;
}
