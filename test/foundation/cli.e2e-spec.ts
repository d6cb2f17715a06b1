import { databaseUrl, dropDatabase } from '@app/core/testing';
import { freePort, runCli } from '../support/processes';
import { expectProblem } from '../support/problems';
import { setUpSuite } from '../support/suite';

// Each test runs several CLI processes in a row, each a second or two of CPU: on a busy two-core
// machine more than jest's default 60 s.
jest.setTimeout(180_000);

describe('operator CLI', () => {
  const suite = setUpSuite({ org: false });
  let cliEnv: Record<string, string>;

  beforeAll(() => {
    cliEnv = { DATABASE_URL: suite.env.databaseUrl, QUEUE_PREFIX: suite.env.queuePrefix, LOG_LEVEL: 'info' };
  });

  const json = async (args: string[], env: Record<string, string | undefined> = {}) => {
    const r = await runCli([...args, '--json'], { ...cliEnv, ...env });
    // Exactly one JSON object on stdout, nothing else.
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    return { ...r, body: JSON.parse(r.stdout) as Record<string, any> };
  };

  it('migrate --json reports nothing to do on a migrated database', async () => {
    const r = await json(['migrate']);
    expect(r.code).toBe(0);
    expect(r.body).toEqual({ applied: [] });
  });

  it('migrate --create-database creates a missing database, then migrates it', async () => {
    const name = `ss_test_${process.env.SS_TEST_RUN_ID}_fresh`;
    const url = databaseUrl(process.env.SS_TEST_SERVER_URL!, name);
    try {
      const first = await runCli(['migrate', '--create-database', '--json'], { ...cliEnv, DATABASE_URL: url });
      expect(first.code).toBe(0);
      const body = JSON.parse(first.stdout);
      expect(body.createdDatabase).toBe(true);
      expect(body.applied.length).toBeGreaterThanOrEqual(4);
      const again = JSON.parse((await runCli(['migrate', '--create-database', '--json'], { ...cliEnv, DATABASE_URL: url })).stdout);
      expect(again).toEqual({ createdDatabase: false, applied: [] });
    } finally {
      await dropDatabase(process.env.SS_TEST_SERVER_URL!, name);
    }
  });

  it('org create prints the organization and a key that works; key revoke makes it 401', async () => {
    const created = await json(['org', 'create', '--name', 'Acme', '--test', '--origin', 'https://acme.example']);
    expect(created.code).toBe(0);
    expect(created.body).toMatchObject({
      organizationId: expect.stringMatching(/^org_[0-9A-HJKMNP-TV-Z]{26}$/),
      name: 'Acme',
      test: true,
      origins: ['https://acme.example'],
      keyId: expect.stringMatching(/^key_[0-9A-HJKMNP-TV-Z]{26}$/),
      apiKey: expect.stringMatching(/^sk_test_[A-Za-z0-9_-]{43}$/),
    });
    // Logs went to stderr, never the key.
    expect(created.stderr).not.toContain(created.body.apiKey);

    const auth = { Authorization: `Bearer ${created.body.apiKey}` };
    expectProblem(await suite.api.http().get('/v1/anything').set(auth), 404, 'not_found');

    const second = await json(['key', 'create', '--org', created.body.organizationId]);
    expect(second.body).toEqual({
      keyId: expect.stringMatching(/^key_/),
      apiKey: expect.stringMatching(/^sk_test_/),
      organizationId: created.body.organizationId,
    });

    const revoked = await json(['key', 'revoke', '--key', created.body.keyId]);
    expect(revoked.body).toEqual({ keyId: created.body.keyId, revoked: true });
    // The CLI is another process: the api hears of it through the revocation broadcast or,
    // at worst, when its cache entry expires (5 s).
    const deadline = Date.now() + 6000;
    let status = 0;
    while (Date.now() < deadline && status !== 401) {
      status = (await suite.api.http().get('/v1/anything').set(auth)).status;
    }
    expect(status).toBe(401);
    expectProblem(
      await suite.api
        .http()
        .get('/v1/anything')
        .set({ Authorization: `Bearer ${second.body.apiKey}` }),
      404,
      'not_found',
    );

    const again = await json(['key', 'revoke', '--key', created.body.keyId]);
    expect(again.body).toEqual({ keyId: created.body.keyId, revoked: false });
  });

  it('a live organization gets sk_live_ keys', async () => {
    const created = await json(['org', 'create', '--name', 'Live Co', '--origin', 'https://live.example']);
    expect(created.body.apiKey).toMatch(/^sk_live_/);
    expect(created.body.test).toBe(false);
  });

  it('lists organizations and keys without secrets', async () => {
    const created = await json(['org', 'create', '--name', 'Listed', '--test']);
    await json(['key', 'create', '--org', created.body.organizationId]);
    const orgs = await json(['org', 'list']);
    expect(orgs.body.organizations).toEqual(
      expect.arrayContaining([expect.objectContaining({ organizationId: created.body.organizationId, name: 'Listed' })]),
    );
    const keys = await json(['key', 'list', '--org', created.body.organizationId]);
    expect(keys.body.keys).toHaveLength(2);
    for (const k of keys.body.keys) {
      expect(Object.keys(k).sort()).toEqual(['createdAt', 'keyId', 'organizationId', 'prefix', 'revokedAt']);
      expect(k.prefix).toMatch(/^sk_test_.{4}…$/);
    }
    expect(keys.stdout + orgs.stdout).not.toContain(created.body.apiKey);
  });

  it('origin add approves exact HTTPS origins and refuses anything else', async () => {
    const created = await json(['org', 'create', '--name', 'Origins']);
    const org = created.body.organizationId;
    const added = await json(['origin', 'add', '--org', org, '--origin', 'https://app.acme.example']);
    expect(added.body).toEqual({ organizationId: org, origin: 'https://app.acme.example', added: true });
    expect((await json(['origin', 'add', '--org', org, '--origin', 'https://app.acme.example'])).body.added).toBe(false);
    for (const bad of [
      'http://app.acme.example',
      'https://app.acme.example/',
      'https://app.acme.example/path',
      'https://APP.acme.example',
      'https://app.acme.example:443',
    ]) {
      const r = await json(['origin', 'add', '--org', org, '--origin', bad]);
      expect(r.code).toBe(1);
      expect(r.body.error.code).toBe('validation_failed');
    }
    const list = await json(['origin', 'list', '--org', org]);
    expect(list.body.origins).toEqual(['https://app.acme.example']);
  });

  it('fails with exit code 1 and a JSON error for an unknown organization', async () => {
    const r = await json(['key', 'create', '--org', 'org_01JD3Z8Q4W6K2M9T5X7B1C0VHE']);
    expect(r.code).toBe(1);
    expect(r.body).toEqual({ error: { code: 'not_found', message: expect.stringContaining('does not exist') } });
  });

  it('without --json prints the key for a human, once', async () => {
    const r = await runCli(['org', 'create', '--name', 'Human'], cliEnv);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/API key key_\w+: sk_live_[A-Za-z0-9_-]{43}/);
    expect(r.stdout).toMatch(/shown only once/);
  });

  it('refuses a bad configuration, naming the variable', async () => {
    const r = await json(['org', 'list'], { DATABASE_URL: 'mysql://nope' });
    expect(r.code).toBe(1);
    expect(r.body.error).toEqual({ code: 'invalid_configuration', message: expect.stringContaining('DATABASE_URL') });
    const human = await runCli(['org', 'list'], { ...cliEnv, DATABASE_URL: 'mysql://nope' });
    expect(human.code).toBe(1);
    expect(human.stdout).toBe('');
    expect(human.stderr).toMatch(/^error: Invalid configuration: DATABASE_URL/);
  });

  it('--json prints exactly one JSON object on stdout whatever fails, and no Nest wiring logs anywhere', async () => {
    // A database that does not answer, named with a password that must not be printed.
    const closed = await freePort();
    const unreachable = await json(['key', 'list', '--org', 'org_01JD3Z8Q4W6K2M9T5X7B1C0VHE'], {
      DATABASE_URL: `postgres://someone:s3cret-pw@127.0.0.1:${closed}/nowhere`,
    });
    expect(unreachable.code).toBe(1);
    expect(unreachable.body.error).toEqual({
      code: 'unavailable',
      message: expect.stringContaining(`PostgreSQL at 127.0.0.1:${closed} is unreachable, set by DATABASE_URL (ECONNREFUSED)`),
    });
    // Said once, in the answer: no stack, no retries, and never the password.
    expect(unreachable.stderr).toBe('');
    expect(unreachable.stdout).not.toContain('s3cret-pw');

    // A usage error (a required option missing): commander's text goes to stderr.
    const usage = await json(['key', 'create']);
    expect(usage.code).toBe(1);
    expect(usage.body.error).toEqual({ code: 'usage', message: "required option '--org <organizationId>' not specified" });

    // A success at the default level: the answer, and not one log line.
    const listed = await json(['org', 'list'], { LOG_LEVEL: 'info' });
    expect(listed.code).toBe(0);
    expect(listed.stderr).toBe('');
  });

  it('warns of the development webhook key only in commands that seal a secret', async () => {
    const dev = { NODE_ENV: 'development', WEBHOOK_SECRETS_KEY: undefined };
    const org = await json(['org', 'create', '--name', 'Warned', '--test'], dev);
    expect(org.stderr).toBe('');
    const orgId = org.body.organizationId as string;
    const created = await json(
      ['webhook', 'create', '--org', orgId, '--url', 'http://localhost:4567/hooks', '--event', 'scene.deleted'],
      dev,
    );
    expect(created.code).toBe(0);
    expect(created.stderr).toContain('WEBHOOK_SECRETS_KEY is not set');
    expect(created.stderr).not.toContain(created.body.secret);
    const listed = await json(['webhook', 'list', '--org', orgId], dev);
    expect(listed.body.endpoints).toHaveLength(1);
    expect(listed.stderr).toBe('');
  });

  it('webhook create/list/disable/enable/rotate-secret/delete manage an organization’s endpoints; secrets are printed once', async () => {
    const org = await json(['org', 'create', '--name', 'Hooks', '--test']);
    const orgId = org.body.organizationId as string;
    const created = await json([
      'webhook',
      'create',
      '--org',
      orgId,
      '--url',
      'http://localhost:4567/hooks',
      '--event',
      'scene.deleted',
      '--event',
      'operation.failed',
    ]);
    expect(created.code).toBe(0);
    expect(created.body).toMatchObject({
      webhookEndpointId: expect.stringMatching(/^whe_/),
      url: 'http://localhost:4567/hooks',
      events: ['scene.deleted', 'operation.failed'],
      enabled: true,
      secret: expect.stringMatching(/^whsec_/),
    });
    expect(created.stderr).not.toContain(created.body.secret);
    const endpoint = created.body.webhookEndpointId as string;
    const listed = await json(['webhook', 'list', '--org', orgId]);
    expect(listed.body.endpoints).toHaveLength(1);
    expect(listed.stdout).not.toContain('whsec_');
    expect((await json(['webhook', 'disable', '--org', orgId, '--endpoint', endpoint])).body).toMatchObject({
      enabled: false,
      disabledReason: 'disabled_by_partner',
    });
    expect((await json(['webhook', 'enable', '--org', orgId, '--endpoint', endpoint])).body).toMatchObject({
      enabled: true,
      disabledReason: null,
    });
    const rotated = await json(['webhook', 'rotate-secret', '--org', orgId, '--endpoint', endpoint, '--overlap-seconds', '0']);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(created.body.secret);
    expect((await json(['webhook', 'delete', '--org', orgId, '--endpoint', endpoint])).code).toBe(0);
    expect((await json(['webhook', 'list', '--org', orgId])).body.endpoints).toEqual([]);

    // A live organization may not target localhost: the same rule as the api, said plainly.
    const live = await json(['org', 'create', '--name', 'Live hooks']);
    const refused = await json([
      'webhook',
      'create',
      '--org',
      live.body.organizationId,
      '--url',
      'http://localhost:4567/hooks',
      '--event',
      'scene.deleted',
    ]);
    expect(refused.code).toBe(1);
    expect(refused.body.error).toEqual({ code: 'validation_failed', message: expect.stringContaining('url: url must be https://') });
  });
});
