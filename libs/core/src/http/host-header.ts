import type { IncomingMessage } from 'node:http';
import { DomainError, ErrorCode } from '../errors';

/**
 * RFC 9112, section 3.2: a server answers 400 to an HTTP/1.1 request without a Host header, and
 * to any request with more than one; an HTTP/1.0 request may lack it. Node would refuse the
 * first itself (`requireHostHeader`) with a bare status line, before any middleware, and lets
 * the second through with the first value. Our servers turn Node's check off
 * (`createExpressServer`) and the first middleware of each answers both with problem details,
 * a request id and `Connection: close`, like every other error.
 */
export function hostHeaderError(req: IncomingMessage): DomainError | null {
  if (req.headers.host === undefined) {
    if (req.httpVersionMajor === 1 && req.httpVersionMinor === 0) return null;
    return new DomainError(ErrorCode.BadRequest, 'An HTTP/1.1 request must carry a Host header (RFC 9112, section 3.2).');
  }
  let seen = 0;
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i].length === 4 && raw[i].toLowerCase() === 'host' && ++seen > 1) {
      return new DomainError(ErrorCode.BadRequest, 'A request must carry exactly one Host header (RFC 9112, section 3.2).');
    }
  }
  return null;
}
