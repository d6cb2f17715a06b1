import { ConfigOverrides } from '@app/core';
import { cloneDatabase, databaseUrl, dropDatabase } from '@app/core/testing';
import { randomBytes } from 'node:crypto';

/** One e2e file's private world: its own database (cloned from the template) and queue prefix. */
export interface TestEnvironment {
  databaseUrl: string;
  databaseName: string;
  queuePrefix: string;
  /** Config for applications of this file; tests add their own overrides on top. */
  config: ConfigOverrides;
  /**
   * Hands the database to the file's test environment (test/jest/file-environment.js), which
   * drops it after every hook of the file has run: an app closed in a later afterAll still has
   * its database while it closes.
   */
  dispose(): Promise<void>;
}

export async function createTestEnvironment(): Promise<TestEnvironment> {
  const runId = process.env.SS_TEST_RUN_ID;
  const template = process.env.SS_TEST_TEMPLATE;
  const serverUrl = process.env.SS_TEST_SERVER_URL;
  if (!runId || !template || !serverUrl) throw new Error('e2e suites must run through jest with the global setup');
  const suffix = randomBytes(4).toString('hex');
  const databaseName = `ss_test_${runId}_${suffix}`;
  await cloneDatabase(serverUrl, template, databaseName);
  const url = databaseUrl(serverUrl, databaseName);
  const queuePrefix = `ss-test-${runId}-${suffix}`;
  return {
    databaseUrl: url,
    databaseName,
    queuePrefix,
    config: {
      NODE_ENV: 'test',
      DATABASE_URL: url,
      DATABASE_POOL_SIZE: '5',
      QUEUE_PREFIX: queuePrefix,
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
      RATE_LIMIT_REQUESTS: '100000',
    },
    dispose: async () => {
      const atFileEnd = (globalThis as { __ssDatabasesToDropAtFileEnd?: string[] }).__ssDatabasesToDropAtFileEnd;
      // Outside the file environment (a script using this helper), drop it now.
      if (atFileEnd) {
        if (!atFileEnd.includes(databaseName)) atFileEnd.push(databaseName);
      } else await dropDatabase(serverUrl, databaseName);
    },
  };
}
