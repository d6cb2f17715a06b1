import { loadConfig } from '../../libs/core/src';
import { dropDatabasesLike } from '../../libs/core/src/testing';
import IORedis from 'ioredis';
import { localServices } from './local-services';

export default async function globalTeardown(): Promise<void> {
  try {
    await cleanUp();
  } finally {
    // Whatever global-setup started (an embedded PostgreSQL, a redis-server), stopped once, by the
    // last project's teardown: jest runs one per project (service, e2e), and the next one's clean-up
    // still needs them.
    const registry = localServices();
    registry.users -= 1;
    if (registry.users <= 0) await registry.stopAll();
  }
}

async function cleanUp(): Promise<void> {
  const runId = process.env.SS_TEST_RUN_ID;
  const serverUrl = process.env.SS_TEST_SERVER_URL;
  if (!runId || !serverUrl) return;
  await dropDatabasesLike(serverUrl, `ss_test_${runId}_`);
  const redis = new IORedis(loadConfig().redis.url);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `ss-test-${runId}-*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length) await redis.unlink(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
