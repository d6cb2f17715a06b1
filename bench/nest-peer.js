'use strict';
// The second floor `npm run bench` compares the partner API with: a bare Nest 11 + Express 5
// application (NestFactory with its default Express adapter and JSON body parser, one controller,
// no guards, pipes, interceptors, filters or logger) doing exactly the durable work of
// bench/baseline-server.js — the same functions (bench/lib/partner-work.js): the same API-key
// cache, the same statements, the same idempotency record, usage and backlog counts, the same
// admission signal. So api ÷ this peer is what the api's own code costs over the framework it is
// built on, and baseline ÷ this peer what the framework costs over node:http.
// Plain JavaScript (the bench runs no compiler): decorators are applied as functions.
//
// Usage: node bench/nest-peer.js <port>; environment as bench/baseline-server.js.

const { Controller, Get, Headers, HttpCode, Module, Param, Post, Req, Res } = require('@nestjs/common');
const { NestFactory } = require('@nestjs/core');
const { partnerWork } = require('./lib/partner-work');

const port = Number(process.argv[2]);
const work = partnerWork('nest-peer');

class PartnerController {
  /** POST /v1/scenes: Express's JSON parser has read the body (undefined when it was not JSON). */
  async create(req, res) {
    const answer = await work.createScene(req.headers, req.body);
    res.status(answer.status);
    for (const [name, value] of Object.entries(answer.headers ?? {})) res.setHeader(name, value);
    // The creation committed even if the client went away meanwhile (the api signals after every
    // commit): then the response closed already and no 'finish' or 'close' is coming.
    if (answer.afterAnswer) {
      if (res.closed || res.destroyed) answer.afterAnswer();
      else res.once('close', answer.afterAnswer);
    }
    return answer.body;
  }

  async get(authorization, id, res) {
    const answer = await work.getOperation(authorization, id);
    res.status(answer.status);
    for (const [name, value] of Object.entries(answer.headers ?? {})) res.setHeader(name, value);
    return answer.body;
  }

  readyz(res) {
    res.status(work.ready() ? 200 : 503);
    return { status: work.ready() ? 'ok' : 'starting' };
  }
}

/** What `@Decorator()` on a method would do. */
function method(name, ...decorators) {
  const descriptor = Object.getOwnPropertyDescriptor(PartnerController.prototype, name);
  for (const decorate of decorators) decorate(PartnerController.prototype, name, descriptor);
}
/** What `@Decorator()` on a parameter would do. */
function param(name, index, decorate) {
  decorate(PartnerController.prototype, name, index);
}

method('create', Post('v1/scenes'), HttpCode(202));
param('create', 0, Req());
param('create', 1, Res({ passthrough: true }));
method('get', Get('v1/operations/:id'));
param('get', 0, Headers('authorization'));
param('get', 1, Param('id'));
param('get', 2, Res({ passthrough: true }));
method('readyz', Get('readyz'));
param('readyz', 0, Res({ passthrough: true }));
Controller()(PartnerController);

class PeerModule {}
Module({ controllers: [PartnerController] })(PeerModule);

async function main() {
  const app = await NestFactory.create(PeerModule, { logger: false });
  const server = app.getHttpServer();
  // The api's keep-alive timeout (72 s), as the other sides.
  server.keepAliveTimeout = 72_000;
  await app.listen(port, '127.0.0.1');
  process.stdout.write(`nest peer listening on 127.0.0.1:${port}\n`);
  process.once('SIGTERM', async () => {
    server.closeAllConnections();
    await app.close();
    await work.close();
    process.exit(0);
  });
}

main().catch((e) => {
  process.stderr.write(`nest peer: ${e.stack}\n`);
  process.exit(1);
});
