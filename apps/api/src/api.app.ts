import { configureHttpApp } from '@app/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { partnerAuth } from './auth/partner-auth.middleware';
import { serveOpenApi } from './openapi/openapi';

/** Everything main.ts and the e2e tests both do to an api application before `init()`. */
export async function configureApiApp(app: NestExpressApplication): Promise<NestExpressApplication> {
  // Authentication and the rate limit run before any body is read; uploads stream their own.
  const instance = configureHttpApp(app, { beforeBody: [partnerAuth(app)] });
  serveOpenApi(app, instance);
  return app;
}
