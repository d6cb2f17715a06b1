import 'reflect-metadata';
import {
  exitOnConfigError,
  exitOnBootFailure,
  exitUnlessDependenciesAnswer,
  loadConfig,
  serveOps,
  stopOnSignalsAndFatalErrors,
} from '@app/core';
import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import { WorkerModule } from './worker.module';

async function main(): Promise<void> {
  const config = exitOnConfigError(() => loadConfig());
  await exitUnlessDependenciesAnswer(config, 'worker');
  // An application context, not an HTTP app: the worker's only HTTP is the ops server below.
  const app = await NestFactory.createApplicationContext(WorkerModule.forRoot({ config }), {
    bufferLogs: true,
    abortOnError: false,
  });
  app.useLogger(app.get(Logger));
  const stops = stopOnSignalsAndFatalErrors(app);
  await serveOps(app, stops, config.ports.worker, config.host);
  app.get(Logger).log(`worker health and metrics on ${config.host}:${config.ports.worker}`);
}

main().catch((e: unknown) => exitOnBootFailure('worker', e));
