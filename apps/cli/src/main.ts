import 'reflect-metadata';
import { Command, CommanderError } from 'commander';
import { Json, printError, UsageError } from './output';

const collect = (value: string, previous: string[]) => [...previous, value];

// Each group of commands is loaded when one of them runs, and with it only the libs it needs:
// `key create` loads the organizations lib, never scenes, image processing or the queues' workers.
const organizations = () => import('./organizations.commands.js');
const originRemoval = () => import('./origin-remove.command.js');
const tenancy = () => import('./tenancy.commands.js');
const webhooks = () => import('./webhooks.commands.js');
const migrations = () => import('./migrate.command.js');

/** Builds the command tree; `run` runs the chosen command (once) and reports its failure. */
export function buildProgram(run: (command: () => Promise<void>, json: boolean) => void): Command {
  const program = new Command('scene-studio')
    .description(
      'Operate Scene Studio: migrations, organizations, their limits and usage, API keys, approved origins and webhook endpoints.',
    )
    .showHelpAfterError()
    .exitOverride();
  const json = ['--json', 'print one JSON object on stdout and nothing else'] as const;
  // commander hands actions untyped options; each command function states the shape it reads.
  const act =
    <M, O extends Json>(load: () => Promise<M>, pick: (m: M) => (o: O) => Promise<void>) =>
    (o: O) =>
      run(async () => pick(await load())(o), !!o.json);

  program
    .command('migrate')
    .description('run pending database migrations')
    .option('--create-database', 'create the database first when it does not exist (local development)')
    .option(...json)
    .action(act(migrations, (m) => m.migrate));

  const org = program.command('org').description('organizations');
  org
    .command('create')
    .description('create an organization and its first API key')
    .requiredOption('--name <name>', 'display name')
    .option('--test', 'test organization: sk_test_ keys, may embed on http://localhost:<port>')
    .option('--origin <origin>', 'approved HTTPS origin (repeatable)', collect, [])
    .option(...json)
    .action(act(organizations, (m) => m.orgCreate));
  org
    .command('list')
    .description('list organizations and their origins')
    .option(...json)
    .action(act(organizations, (m) => m.orgList));
  org
    .command('limits')
    .description('show an organization\'s limits, or change those named (docs/operations.md, "Tenancy")')
    .requiredOption('--org <organizationId>')
    .option('--max-concurrent-generations <n>', 'generations and edits running at once (default 10)')
    .option('--generations-per-day <n>', 'creations plus edits started per UTC day, or "unlimited" (the default)')
    .option('--max-waiting-generations <n>', 'generations and edits accepted and waiting to start (default 1000)')
    .option(...json)
    .action(act(tenancy, (m) => m.orgLimits));
  org
    .command('bootstrap-local')
    .description('create the local test organization if the database has none (npm start)')
    .option('--extra-key', 'also issue a new key of the local test organization')
    .option(...json)
    .action(act(organizations, (m) => m.orgBootstrapLocal));

  program
    .command('usage')
    .description("an organization's usage per UTC day (default: this month up to today; at most 93 days)")
    .requiredOption('--org <organizationId>')
    .option('--from <YYYY-MM-DD>', 'first day')
    .option('--to <YYYY-MM-DD>', 'last day')
    .option(...json)
    .action(act(tenancy, (m) => m.usage));

  const key = program.command('key').description('API keys');
  key
    .command('create')
    .description('issue a new API key')
    .requiredOption('--org <organizationId>')
    .option(...json)
    .action(act(organizations, (m) => m.keyCreate));
  key
    .command('revoke')
    .description('revoke an API key')
    .requiredOption('--key <keyId>')
    .option(...json)
    .action(act(organizations, (m) => m.keyRevoke));
  key
    .command('list')
    .description('list keys of an organization (no secrets)')
    .requiredOption('--org <organizationId>')
    .option(...json)
    .action(act(organizations, (m) => m.keyList));

  const origin = program.command('origin').description('approved embed origins');
  origin
    .command('add')
    .requiredOption('--org <organizationId>')
    .requiredOption('--origin <origin>')
    .option(...json)
    .action(act(organizations, (m) => m.originAdd));
  origin
    .command('remove')
    .description('withdraw an approved origin; its live embed sessions end (embed_session.ended, revoked)')
    .requiredOption('--org <organizationId>')
    .requiredOption('--origin <origin>')
    .option(...json)
    .action(act(originRemoval, (m) => m.originRemove));
  origin
    .command('list')
    .requiredOption('--org <organizationId>')
    .option(...json)
    .action(act(organizations, (m) => m.originList));

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
    .action(act(webhooks, (m) => m.webhookCreate));
  webhook
    .command('list')
    .description('list endpoints (no secrets)')
    .requiredOption('--org <organizationId>')
    .option(...json)
    .action(act(webhooks, (m) => m.webhookList));
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
      .action(act(webhooks, (m) => (o: Parameters<typeof m.webhookSetEnabled>[0]) => m.webhookSetEnabled(o, enabled)));
  }
  webhook
    .command('rotate-secret')
    .description('issue a new signing secret; the previous one keeps signing during the overlap')
    .requiredOption('--org <organizationId>')
    .requiredOption('--endpoint <webhookEndpointId>')
    .option('--overlap-seconds <seconds>', 'how long the previous secret keeps signing (0 to 604800, default 86400)')
    .option(...json)
    .action(act(webhooks, (m) => m.webhookRotate));
  webhook
    .command('delete')
    .requiredOption('--org <organizationId>')
    .requiredOption('--endpoint <webhookEndpointId>')
    .option(...json)
    .action(act(webhooks, (m) => m.webhookDelete));
  return program;
}

async function main(): Promise<void> {
  const json = process.argv.includes('--json');
  let pending: Promise<void> = Promise.resolve();
  const program = buildProgram((command, json) => {
    pending = command().catch(async (e: unknown) => {
      await printError(json, e);
      process.exitCode = 1;
    });
  });
  if (json) {
    // With --json a usage error is the one JSON object on stdout; commander's text goes to stderr.
    program.configureOutput({ outputError: () => undefined });
  }
  try {
    await program.parseAsync(process.argv);
  } catch (e) {
    const exitCode = (e as { exitCode?: number }).exitCode ?? 1;
    if (json && e instanceof CommanderError && exitCode !== 0) {
      await printError(true, new UsageError(e.message.replace(/^error: /, '')));
    }
    // Otherwise commander already printed usage errors and help on stderr/stdout.
    process.exitCode = exitCode;
  }
  await pending;
  process.exit(process.exitCode ?? 0);
}

void main();
