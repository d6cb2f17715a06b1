import { configureHttpApp } from '@app/core';
import fastifyMultipart from '@fastify/multipart';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { registerPartnerAuth } from './auth/partner-auth.hook';
import { serveOpenApi } from './openapi/openapi';

/** Everything main.ts and the e2e tests both do to an api application before `init()`. */
export async function configureApiApp(app: NestFastifyApplication): Promise<NestFastifyApplication> {
  const fastify = configureHttpApp(app);
  // Parts are read on demand by the upload route, with its own limits.
  await app.register(fastifyMultipart as never, { throwFileSizeLimit: true });
  registerPartnerAuth(app, fastify);
  serveOpenApi(app, fastify);
  return app;
}
