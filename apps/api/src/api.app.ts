import { configureHttpApp } from '@app/core';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { registerPartnerAuth } from './auth/partner-auth.hook';
import { serveOpenApi } from './openapi/openapi';

/** Everything main.ts and the e2e tests both do to an api application before `init()`. */
export function configureApiApp(app: NestFastifyApplication): NestFastifyApplication {
  const fastify = configureHttpApp(app);
  registerPartnerAuth(app, fastify);
  serveOpenApi(app, fastify);
  return app;
}
