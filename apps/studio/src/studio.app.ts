import { configureHttpApp } from '@app/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import expressStaticGzip from 'express-static-gzip';
import { deferCameraPathBodies } from './api/camera-path-body';
import { WebBundle } from './page/web-bundle';

/** Everything main.ts and the e2e tests both do to a studio application before `init()`. */
export async function configureStudioApp(app: NestExpressApplication): Promise<NestExpressApplication> {
  const assets = app.get(WebBundle).assetsDir;
  configureHttpApp(app, {
    // Camera paths' bodies are read by their routes, once the session, its budget and a slot
    // admitted them (camera-path-body.ts).
    beforeBody: [deferCameraPathBodies()],
    staticFiles: assets
      ? [
          {
            path: '/assets',
            label: '/assets/*',
            // Hashed file names: safe to cache for good. They hold no secret. The build writes .br
            // and .gz beside each file (scripts/compress-assets.js), served to browsers that
            // accept them (brotli first) with `Vary: Accept-Encoding`.
            handler: expressStaticGzip(assets, {
              enableBrotli: true,
              orderPreference: ['br', 'gzip'],
              index: false,
              serveStatic: { immutable: true, maxAge: '365d', index: false, redirect: false, fallthrough: true },
            }),
          },
        ]
      : [],
  });
  return app;
}
