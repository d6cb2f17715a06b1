import 'reflect-metadata';
import {
  createHttpAdapter,
  exitOnConfigError,
  exitOnBootFailure,
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
import { configureApiApp } from './api.app';
import { ApiModule } from './api.module';

async function main(): Promise<void> {
  const config = exitOnConfigError(() => loadConfig());
  await exitUnlessDependenciesAnswer(config, 'api');
  const app = await NestFactory.create<NestExpressApplication>(ApiModule.forRoot({ config }), createHttpAdapter(), {
    bufferLogs: true,
    bodyParser: false,
  });
  app.useLogger(app.get(Logger));
  const stops = stopOnSignalsAndFatalErrors(app);
  await configureApiApp(app);
  await listeningOn('API_PORT', () => app.listen(config.ports.api, config.host));
  app.get(Logger).log(`api listening on ${config.host}:${config.ports.api} (public URL ${config.publicApiUrl})`);
  const ops = await listeningOn('API_OPS_PORT', () => serveOps(app, stops, config.ports.apiOps, config.host));
  app.get(Logger).log(`api health and metrics on ${config.host}:${(ops.address() as AddressInfo).port}`);
}

main().catch((e: unknown) => exitOnBootFailure('api', e));
