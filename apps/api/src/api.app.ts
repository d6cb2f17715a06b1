import { AppConfig, configureHttpApp } from '@app/core';
import { UPLOADS_CONFIG } from '@app/image-assets';
import { NestExpressApplication } from '@nestjs/platform-express';
import { partnerAuth } from './auth/partner-auth.middleware';
import { serveOpenApi } from './openapi/openapi';
import { serveProblemPages } from './problems/problem-pages';

/** Everything main.ts and the e2e tests both do to an api application before `init()`. */
export async function configureApiApp(app: NestExpressApplication): Promise<NestExpressApplication> {
  // Authentication and the rate limit run before any body is read; uploads stream their own.
  // The longest request is an upload that waits for a slot, then sends its body.
  const uploads = app.get(AppConfig).slice(UPLOADS_CONFIG);
  const instance = configureHttpApp(app, {
    beforeBody: [partnerAuth(app)],
    requestTimeoutMs: uploads.queueTimeoutMs + uploads.bodyTimeoutMs,
  });
  serveOpenApi(app, instance);
  serveProblemPages(app, instance);
  return app;
}
