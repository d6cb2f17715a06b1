import { CameraPathsModule } from '@app/camera-paths';
import { Clock, ConfigOverrides, CoreModule } from '@app/core';
import { EmbedSessionsModule } from '@app/embed-sessions';
import { ImageAssetsModule } from '@app/image-assets';
import { INestApplicationContext } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { createTestEnvironment, TestEnvironment } from './environment';

export interface ServiceSuite {
  env: TestEnvironment;
  /** The libs' services on a cloned database and the real Redis; no HTTP, no worker. */
  app: INestApplicationContext;
}

export interface ServiceOptions {
  /** More modules, such as the worker's job handlers (`OperationsWorkerModule`). */
  imports?: unknown[];
  /** A clock the file moves by hand (a `ManualClock`), instead of the wall clock. */
  clock?: Clock;
  /** Providers replaced by test doubles of things outside our control (a generator). */
  overrides?: [token: unknown, value: unknown][];
  config?: ConfigOverrides;
}

/**
 * The service tier: the domain libs wired as the api wires them (CoreModule and the lib modules),
 * on this file's own database cloned from the migrated template, called directly. Faster than the
 * e2e tier (no HTTP, no processes) and truer than unit specs (real SQL, constraints, transactions).
 */
export function setUpServices(options: ServiceOptions = {}): ServiceSuite {
  const suite = {} as ServiceSuite;
  beforeAll(async () => {
    suite.env = await createTestEnvironment();
    let builder = Test.createTestingModule({
      imports: [
        CoreModule.forRoot({ app: 'api', config: { ...suite.env.config, ...options.config } }),
        ImageAssetsModule,
        EmbedSessionsModule,
        CameraPathsModule,
        ...((options.imports ?? []) as never[]),
      ],
    });
    const overrides: [unknown, unknown][] = [...(options.overrides ?? [])];
    if (options.clock) overrides.push([Clock, options.clock]);
    for (const [token, value] of overrides) builder = builder.overrideProvider(token).useValue(value);
    suite.app = await (await builder.compile()).init();
  });
  afterAll(async () => {
    await suite.app?.close();
    await suite.env?.dispose();
  });
  return suite;
}
