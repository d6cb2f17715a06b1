import { ApiModule } from '@apps/api/api.module';
import { configureApiApp } from '@apps/api/api.app';
import { StudioModule } from '@apps/studio/studio.module';
import { configureStudioApp } from '@apps/studio/studio.app';
import { WorkerModule } from '@apps/worker/worker.module';
import { Clock, ConfigOverrides, createHttpAdapter, opsDependencies, startOpsServer } from '@app/core';
import { LogCapture } from '@app/core/testing';
import { INestApplicationContext } from '@nestjs/common';
import { NestExpressApplication } from '@nestjs/platform-express';
import { Test, TestingModuleBuilder } from '@nestjs/testing';
import { Logger } from 'nestjs-pino';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import request from 'supertest';
import { TestEnvironment } from './environment';

export interface StartOptions {
  config?: ConfigOverrides;
  clock?: Clock;
  /** Capture log lines (sets LOG_LEVEL to info unless the config says otherwise). */
  logs?: LogCapture;
  override?: (builder: TestingModuleBuilder) => TestingModuleBuilder;
  /** Listen on this port (0: any free port). */
  port?: number;
}

export interface RunningHttpApp {
  app: NestExpressApplication;
  url: string;
  http: () => ReturnType<typeof request>;
  close: () => Promise<void>;
}

function moduleOptions(env: TestEnvironment, opts: StartOptions) {
  return {
    config: { ...env.config, ...(opts.logs ? { LOG_LEVEL: 'info' } : {}), ...opts.config },
    logging: opts.logs ? { destination: opts.logs } : undefined,
  };
}

async function compile(imports: unknown, opts: StartOptions) {
  let builder = Test.createTestingModule({ imports: [imports as never] });
  if (opts.clock) builder = builder.overrideProvider(Clock).useValue(opts.clock);
  if (opts.override) builder = opts.override(builder);
  return builder.compile();
}

async function startHttp(
  module: unknown,
  configure: (app: NestExpressApplication) => NestExpressApplication | Promise<NestExpressApplication>,
  opts: StartOptions,
): Promise<RunningHttpApp> {
  const moduleRef = await compile(module, opts);
  const app = moduleRef.createNestApplication<NestExpressApplication>(createHttpAdapter(), {
    bodyParser: false,
    bufferLogs: true,
  });
  app.useLogger(app.get(Logger));
  await configure(app);
  await app.listen(opts.port ?? 0, '127.0.0.1');
  const url = await app.getUrl();
  const base = url.replace('[::1]', '127.0.0.1');
  return { app, url: base, http: () => request(base), close: () => app.close() };
}

export function startApi(env: TestEnvironment, opts: StartOptions = {}): Promise<RunningHttpApp> {
  return startHttp(ApiModule.forRoot(moduleOptions(env, opts)), configureApiApp, opts);
}

/**
 * The test build of the page (`npm run build:studio` writes it beside the production one): the
 * browser tests read the page through its hooks (`window.__studio`), which production lacks.
 */
export const STUDIO_TEST_BUNDLE = join(__dirname, '..', '..', 'dist', 'apps', 'studio-web-test');

export function startStudio(env: TestEnvironment, opts: StartOptions = {}): Promise<RunningHttpApp> {
  return startHttp(StudioModule.forRoot({ ...moduleOptions(env, opts), webBundleDir: STUDIO_TEST_BUNDLE }), configureStudioApp, opts);
}

/** The worker's Nest context in this process (its job handlers and BullMQ consumers). */
export async function startWorker(env: TestEnvironment, opts: StartOptions = {}): Promise<INestApplicationContext> {
  const moduleRef = await compile(WorkerModule.forRoot(moduleOptions(env, opts)), opts);
  const app = await moduleRef.init();
  app.useLogger(app.get(Logger));
  return app;
}

export interface RunningOpsServer {
  url: string;
  http: () => ReturnType<typeof request>;
  close: () => Promise<void>;
}

/** An application's ops server (health and metrics, as on API_OPS_PORT, STUDIO_OPS_PORT, WORKER_PORT), on a free port. */
export async function startOps(app: INestApplicationContext): Promise<RunningOpsServer> {
  const server = await startOpsServer(opsDependencies(app), 0, '127.0.0.1');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    http: () => request(url),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
