import { configureHttpApp } from '@app/core';
import { NestFastifyApplication } from '@nestjs/platform-fastify';

/** Everything main.ts and the e2e tests both do to a studio application before `init()`. */
export function configureStudioApp(app: NestFastifyApplication): NestFastifyApplication {
  configureHttpApp(app);
  return app;
}
