import type { Express } from 'express';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';

/**
 * An Express application with the settings every HTTP process shares. They must be set before
 * the first middleware is added: Express builds its router with them then.
 */
export function createExpressInstance(): Express {
  // Loaded by the first HTTP server a process makes (createHttpAdapter says why not before).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const express = require('express') as typeof import('express');
  const app = express();
  // Paths match exactly (`/V1/scenes` and `/v1/scenes/` are not routes).
  app.set('case sensitive routing', true);
  app.set('strict routing', true);
  // API answers are no-store: an ETag would only cost a hash of every body. Static files get
  // theirs from the static middleware.
  app.set('etag', false);
  app.set('x-powered-by', false);
  app.set('query parser', 'simple');
  return app;
}

/**
 * An HTTP server for an Express app whose requests and responses are born with Express's
 * prototypes. Express otherwise re-parents every request and response with
 * `Object.setPrototypeOf` on its way in, which V8 handles badly: measured here, a trivial Express
 * route costs 2.5 to 3 × the CPU of plain node:http, a third of it garbage collection
 * (docs/performance.md). Here Node constructs them from subclasses whose prototypes sit in front
 * of Express's, and the app's own prototypes become those subclasses' (they inherit everything
 * Express put there), so Express's `setPrototypeOf` finds the prototype in place and changes
 * nothing. Call it once per app.
 */
export function createExpressServer(app: Express): Server {
  class ExpressRequest extends IncomingMessage {}
  class ExpressResponse extends ServerResponse {}
  Object.setPrototypeOf(ExpressRequest.prototype, app.request);
  Object.setPrototypeOf(ExpressResponse.prototype, app.response);
  app.request = ExpressRequest.prototype as unknown as Express['request'];
  app.response = ExpressResponse.prototype as unknown as Express['response'];
  return createServer(
    {
      IncomingMessage: ExpressRequest,
      ServerResponse: ExpressResponse,
      // How often Node checks the header and request timeouts (30 s by default): every second,
      // so a stalled client is answered within a second of its limit.
      connectionsCheckingInterval: 1000,
      // Node would answer a missing Host with a bare 400; the first middleware answers it with
      // problem details instead (host-header.ts).
      requireHostHeader: false,
    },
    app,
  );
}
