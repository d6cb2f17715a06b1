import {
  createHttpAdapter,
  exitOnConfigError,
  exitUnlessDependenciesAnswer,
  listeningOn,
  loadConfig,
  serveOps,
  stopOnSignalsAndFatalErrors,
} from '@app/core';
import type { AddressInfo } from 'node:net';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { Logger } from 'nestjs-pino';
import { configureStudioApp } from './studio.app';
import { StudioModule, StudioModuleOptions } from './studio.module';

/**
 * Boots the studio process: main.ts with no options; `npm run bench:studio` with the page's test
 * build (`webBundleDir`), whose hooks it reads its figures from. The production image holds no
 * test build, and no setting chooses one: only code that imports this can.
 */
export async function startStudio(options: Pick<StudioModuleOptions, 'webBundleDir'> = {}): Promise<void> {
  const config = exitOnConfigError(() => loadConfig());
  await exitUnlessDependenciesAnswer(config, 'studio');
  const app = await NestFactory.create<NestExpressApplication>(StudioModule.forRoot({ config, ...options }), createHttpAdapter(), {
    bufferLogs: true,
    bodyParser: false,
  });
  app.useLogger(app.get(Logger));
  const stops = stopOnSignalsAndFatalErrors(app);
  await configureStudioApp(app);
  await listeningOn('STUDIO_PORT', () => app.listen(config.ports.studio, config.host));
  app.get(Logger).log(`studio listening on ${config.host}:${config.ports.studio} (embed origin ${config.publicEmbedOrigin})`);
  const ops = await listeningOn('STUDIO_OPS_PORT', () => serveOps(app, stops, config.ports.studioOps, config.host));
  app.get(Logger).log(`studio health and metrics on ${config.host}:${(ops.address() as AddressInfo).port}`);
}
