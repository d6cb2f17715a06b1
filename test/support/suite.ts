import { INestApplicationContext } from '@nestjs/common';
import { createOrganization, TestOrganization } from '../factories/organization.factory';
import { RunningHttpApp, StartOptions, startApi, startStudio, startWorker } from './apps';
import { createTestEnvironment, TestEnvironment } from './environment';

export interface SuiteOptions {
  /** The api, started first; `false`: none (and no organization). Default: started as is. */
  api?: StartOptions | false;
  /** The studio, started after the api; only when given. */
  studio?: StartOptions;
  /** The worker's context in this process, started after the studio; only when given. */
  worker?: StartOptions;
  /** The organization created through the api once the apps run; `false`: none. Default: created as is. */
  org?: Parameters<typeof createOrganization>[1] | false;
}

/** What a describe block's tests run against; the fields are set once its beforeAll ran. */
export interface Suite {
  env: TestEnvironment;
  api: RunningHttpApp;
  studio: RunningHttpApp;
  worker: INestApplicationContext;
  org: TestOrganization;
}

/**
 * Registers, in the calling describe block, the beforeAll that gives it its own environment
 * (database, queue prefix), its apps and a test organization, and the afterAll that closes the
 * apps in reverse order and drops the database. `options` may be a function, called in that
 * beforeAll, for values known only then (a fake provider's URL).
 */
export function setUpSuite(options: SuiteOptions | (() => SuiteOptions) = {}): Suite {
  const suite = {} as Suite;

  beforeAll(async () => {
    suite.env = await createTestEnvironment();
    const { api = {}, studio, worker, org = {} } = typeof options === 'function' ? options() : options;
    if (api) suite.api = await startApi(suite.env, api);
    if (studio) suite.studio = await startStudio(suite.env, studio);
    if (worker) suite.worker = await startWorker(suite.env, worker);
    if (api && org) suite.org = await createOrganization(suite.api.app, org);
  });

  afterAll(async () => {
    await suite.worker?.close();
    await suite.studio?.close();
    await suite.api?.close();
    await suite.env?.dispose();
  });

  return suite;
}
