import { randomUUID } from 'node:crypto';
import { IncomingMessage, Server, ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { DomainError, ErrorCode } from '../errors';
import { buildProblem, mapError } from './problem';
import { requestIdFor } from './request-id';

/** What Node's HTTP parser refuses before any request object exists, in the contract's words. */
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
export function answerParserErrors(server: Server, problemBaseUrl: string): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    // A connection reset or already half gone has no one to read an answer.
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const problem = buildProblem(mapError(parserError(error.code)), randomUUID(), problemBaseUrl);
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
  });

  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    const error = new DomainError(ErrorCode.ExpectationFailed, 'Only "Expect: 100-continue" is supported.');
    const problem = buildProblem(mapError(error), requestIdFor(req), problemBaseUrl);
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
