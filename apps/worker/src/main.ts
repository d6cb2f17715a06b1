import 'reflect-metadata';
import {
  exitOnConfigError,
  exitOnBootFailure,
  exitUnlessDependenciesAnswer,
  listeningOn,
  loadConfig,
  openOpsServer,
  opsDependencies,
  stopOnSignalsAndFatalErrors,
} from '@app/core';
import type { AddressInfo } from 'node:net';
import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import { WorkerModule } from './worker.module';

async function main(): Promise<void> {
  const config = exitOnConfigError(() => loadConfig());
  await exitUnlessDependenciesAnswer(config, 'worker');
  // Its port first: a worker whose port is taken stops here, before it has joined the queues
  // (building the application starts taking jobs).
  const ops = await listeningOn('WORKER_PORT', () => openOpsServer(config, config.ports.worker, config.host));
  // An application context, not an HTTP app: the worker's only HTTP is the ops server.
  const app = await NestFactory.createApplicationContext(WorkerModule.forRoot({ config }), {
    bufferLogs: true,
    abortOnError: false,
  });
  app.useLogger(app.get(Logger));
  const stops = stopOnSignalsAndFatalErrors(app);
  ops.attach(opsDependencies(app));
  stops.closeLast(ops.server);
  app.get(Logger).log(`worker health and metrics on ${config.host}:${(ops.server.address() as AddressInfo).port}`);
}

main().catch((e: unknown) => exitOnBootFailure('worker', e));
