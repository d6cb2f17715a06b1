import { loadConfig } from '../config';
import { databaseOptions } from './database.options';

describe(databaseOptions.name, () => {
  const sut = (env: Record<string, string>) => databaseOptions(loadConfig(env, {}), 'api') as { extra: Record<string, unknown> };

  it('sends statement_timeout as a connection parameter by default', () => {
    expect(sut({}).extra).toMatchObject({ statement_timeout: 30_000, max: 10, application_name: 'scene-studio-api' });
  });

  it('sends none with DATABASE_STATEMENT_TIMEOUT_MS=0, which PgBouncer in transaction mode needs', () => {
    expect(sut({ DATABASE_STATEMENT_TIMEOUT_MS: '0' }).extra).not.toHaveProperty('statement_timeout');
  });
});
