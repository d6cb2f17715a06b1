import { loadConfig } from '../config';
import { createRedis } from './redis-connection';

describe(createRedis.name, () => {
  // lazyConnect: the options are under test, not a server.
  const client = (purpose: 'commands' | 'bullmq' | 'subscriber', env: Record<string, string>) =>
    createRedis(loadConfig({}, env), purpose, 'spec', { lazyConnect: true });

  it('gives request-path commands REDIS_COMMAND_TIMEOUT_MS, and the queues no timeout', () => {
    const commands = client('commands', { REDIS_COMMAND_TIMEOUT_MS: '4000' });
    const bullmq = client('bullmq', { REDIS_COMMAND_TIMEOUT_MS: '4000' });
    try {
      expect(commands.options).toMatchObject({ commandTimeout: 4000, maxRetriesPerRequest: 1 });
      expect(bullmq.options.commandTimeout).toBeUndefined();
      expect(bullmq.options.maxRetriesPerRequest).toBeNull();
    } finally {
      commands.disconnect();
      bullmq.disconnect();
    }
  });

  it('fails a request-path command fast by default (1.5 s)', () => {
    const commands = client('commands', {});
    try {
      expect(commands.options.commandTimeout).toBe(1500);
    } finally {
      commands.disconnect();
    }
  });
});
