import 'reflect-metadata';
import { AppConfig, ConfigError, loadConfig } from '@app/core';
import { Command } from 'commander';
import * as c from './commands';
import { printError } from './output';

const collect = (value: string, previous: string[]) => [...previous, value];

/** Builds the command tree; each action receives the config loaded once, lazily. */
export function buildProgram(run: (action: (config: AppConfig) => Promise<void>, json: boolean) => void): Command {
  const program = new Command('scene-studio')
    .description(
      'Operate Scene Studio: migrations, organizations, their limits and usage, API keys, approved origins and webhook endpoints.',
    )
    .showHelpAfterError()
    .exitOverride();
  const json = ['--json', 'print one JSON object on stdout and nothing else'] as const;
  // commander hands actions untyped options; each command function states the shape it reads.
  const act =
    <O extends c.Json>(command: (config: AppConfig, o: O) => Promise<void>) =>
    (o: O) =>
      run((cfg) => command(cfg, o), !!o.json);

  program
    .command('migrate')
    .description('run pending database migrations')
    .option('--create-database', 'create the database first when it does not exist (local development)')
    .option(...json)
    .action(act(c.migrate));

  const org = program.command('org').description('organizations');
  org
    .command('create')
    .description('create an organization and its first API key')
    .requiredOption('--name <name>', 'display name')
    .option('--test', 'test organization: sk_test_ keys, may embed on http://localhost:<port>')
    .option('--origin <origin>', 'approved HTTPS origin (repeatable)', collect, [])
    .option(...json)
    .action(act(c.orgCreate));
  org
    .command('list')
    .description('list organizations and their origins')
    .option(...json)
    .action(act(c.orgList));
  org
    .command('limits')
    .description("show an organization's limits, or change those named (contract section 7)")
    .requiredOption('--org <organizationId>')
    .option('--max-concurrent-generations <n>', 'generations and edits running at once (default 10)')
    .option('--generations-per-day <n>', 'creations plus edits started per UTC day, or "unlimited" (the default)')
    .option('--max-waiting-generations <n>', 'generations and edits accepted and waiting to start (default 1000)')
    .option(...json)
    .action(act(c.orgLimits));
  org
    .command('bootstrap-local')
    .description('create the local test organization if the database has none')
    .option(...json)
    .action(act(c.orgBootstrapLocal));

  program
    .command('usage')
    .description("an organization's usage per UTC day (default: this month up to today; at most 93 days)")
    .requiredOption('--org <organizationId>')
    .option('--from <YYYY-MM-DD>', 'first day')
    .option('--to <YYYY-MM-DD>', 'last day')
    .option(...json)
    .action(act(c.usage));

  const key = program.command('key').description('API keys');
  key
    .command('create')
    .description('issue a new API key')
    .requiredOption('--org <organizationId>')
    .option(...json)
    .action(act(c.keyCreate));
  key
    .command('revoke')
    .description('revoke an API key')
    .requiredOption('--key <keyId>')
    .option(...json)
    .action(act(c.keyRevoke));
  key
    .command('list')
    .description('list keys of an organization (no secrets)')
    .requiredOption('--org <organizationId>')
    .option(...json)
    .action(act(c.keyList));

  const origin = program.command('origin').description('approved embed origins');
  origin
    .command('add')
    .requiredOption('--org <organizationId>')
    .requiredOption('--origin <origin>')
    .option(...json)
    .action(act(c.originAdd));
  origin
    .command('remove')
    .description('withdraw an approved origin; its live embed sessions end (embed_session.ended, revoked)')
    .requiredOption('--org <organizationId>')
    .requiredOption('--origin <origin>')
    .option(...json)
    .action(act(c.originRemove));
  origin
    .command('list')
    .requiredOption('--org <organizationId>')
    .option(...json)
    .action(act(c.originList));

  const webhook = program.command('webhook').description("an organization's webhook endpoints");
  webhook
    .command('create')
    .description('create an endpoint; prints its signing secret once')
    .requiredOption('--org <organizationId>')
    .requiredOption('--url <url>', 'https:// on a public host (test organizations: also http://localhost:<port>)')
    .requiredOption(
      '--event <type>',
      'operation.succeeded, operation.failed, scene.deleted or embed_session.ended (repeatable)',
      collect,
      [],
    )
    .option(...json)
    .action(act(c.webhookCreate));
  webhook
    .command('list')
    .description('list endpoints (no secrets)')
    .requiredOption('--org <organizationId>')
    .option(...json)
    .action(act(c.webhookList));
  for (const [name, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    webhook
      .command(name)
      .description(enabled ? 'resume deliveries (clears a disabled reason)' : 'pause deliveries (they wait)')
      .requiredOption('--org <organizationId>')
      .requiredOption('--endpoint <webhookEndpointId>')
      .option(...json)
      .action(act((cfg, o: c.Json & { org: string; endpoint: string }) => c.webhookSetEnabled(cfg, o, enabled)));
  }
  webhook
    .command('rotate-secret')
    .description('issue a new signing secret; the previous one keeps signing during the overlap')
    .requiredOption('--org <organizationId>')
    .requiredOption('--endpoint <webhookEndpointId>')
    .option('--overlap-seconds <seconds>', 'how long the previous secret keeps signing (0 to 604800, default 86400)')
    .option(...json)
    .action(act(c.webhookRotate));
  webhook
    .command('delete')
    .requiredOption('--org <organizationId>')
    .requiredOption('--endpoint <webhookEndpointId>')
    .option(...json)
    .action(act(c.webhookDelete));
  return program;
}

async function main(): Promise<void> {
  let pending: Promise<void> = Promise.resolve();
  const program = buildProgram((action, json) => {
    pending = (async () => {
      try {
        await action(loadConfig());
      } catch (e) {
        if (e instanceof ConfigError) process.stderr.write(`${e.message}\n`);
        await printError(json, e instanceof ConfigError ? new Error('invalid configuration') : e);
        process.exitCode = 1;
      }
    })();
  });
  try {
    await program.parseAsync(process.argv);
  } catch (e) {
    // commander already printed usage errors and help on stderr/stdout
    process.exitCode = (e as { exitCode?: number }).exitCode ?? 1;
  }
  await pending;
  process.exit(process.exitCode ?? 0);
}

void main();
