import { CoreModule } from '@app/core';
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

/**
 * The service tier: the domain libs wired as the api wires them (CoreModule and the lib modules),
 * on this file's own database cloned from the migrated template, called directly. Faster than the
 * e2e tier (no HTTP, no processes) and truer than unit specs (real SQL, constraints, transactions).
 * `extraImports`: more modules, such as the worker's job handlers (`ScenesWorkerModule`).
 */
export function setUpServices(extraImports: unknown[] = []): ServiceSuite {
  const suite = {} as ServiceSuite;
  beforeAll(async () => {
    suite.env = await createTestEnvironment();
    const moduleRef = await Test.createTestingModule({
      imports: [
        CoreModule.forRoot({ app: 'api', config: suite.env.config }),
        ImageAssetsModule,
        EmbedSessionsModule,
        ...(extraImports as never[]),
      ],
    }).compile();
    suite.app = await moduleRef.init();
  });
  afterAll(async () => {
    await suite.app?.close();
    await suite.env?.dispose();
  });
  return suite;
}
