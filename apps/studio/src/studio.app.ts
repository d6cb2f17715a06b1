import { configureHttpApp } from '@app/core';
import fastifyStatic from '@fastify/static';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { WebBundle } from './page/web-bundle';

/** Everything main.ts and the e2e tests both do to a studio application before `init()`. */
export async function configureStudioApp(app: NestFastifyApplication): Promise<NestFastifyApplication> {
  configureHttpApp(app);
  const assets = app.get(WebBundle).assetsDir;
  if (assets) {
    // Hashed file names: safe to cache for good. They hold no secret. The build writes .br and
    // .gz beside each file (scripts/compress-assets.js), served to browsers that accept them.
    await app.register(fastifyStatic as never, {
      root: assets,
      prefix: '/assets/',
      immutable: true,
      maxAge: '365d',
      index: false,
      wildcard: true,
      preCompressed: true,
    });
  }
  return app;
}
