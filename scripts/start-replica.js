#!/usr/bin/env node
// `npm run start:replica -- worker|api|studio`: one more worker, api or studio beside a running
// `npm start`, on what it started (its record, `.local/npm-start.json`) and with the settings
// every replica must share (docs/operations.md, "Replicas"). Ports are free ones picked here, or
// those you set (WORKER_PORT, API_PORT and API_OPS_PORT, STUDIO_PORT and STUDIO_OPS_PORT); a port
// in use stops the process naming its variable. Ctrl-C stops the replica, not `npm start`.
'use strict';
const { existsSync } = require('node:fs');
const { join } = require('node:path');
const { freePort, readRunRecord, RUN_RECORD, secretsKeyFingerprint } = require('./local-services');
const { supervise } = require('./supervise');

const ROLES = {
  worker: { ports: ['WORKER_PORT'], says: (p) => `health and metrics on http://127.0.0.1:${p.WORKER_PORT}` },
  api: { ports: ['API_PORT', 'API_OPS_PORT'], says: (p) => `the API on http://localhost:${p.API_PORT}, ops on port ${p.API_OPS_PORT}` },
  studio: {
    ports: ['STUDIO_PORT', 'STUDIO_OPS_PORT'],
    says: (p) => `the studio on http://localhost:${p.STUDIO_PORT}, ops on port ${p.STUDIO_OPS_PORT}`,
  },
};

function refuse(message) {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

async function main() {
  const role = process.argv[2];
  if (!ROLES[role]) refuse('Usage: npm run start:replica -- worker|api|studio');
  const root = join(__dirname, '..');
  const entry = join(root, `dist/apps/${role}/src/main.js`);
  if (!existsSync(entry)) refuse(`${entry} is missing: run \`npm start\` (or \`npm run build\`) first.`);

  const found = readRunRecord();
  if (!found?.record) {
    refuse(
      [
        found?.stale
          ? `The npm start named in ${RUN_RECORD} (pid ${found.stale.pid}) is not running.`
          : `No npm start is running here (${RUN_RECORD} is missing).`,
        'Start one (`npm start`), or run the replica against your own services with the settings every replica',
        `shares: DATABASE_URL, REDIS_URL, QUEUE_PREFIX, PUBLIC_API_URL, PUBLIC_EMBED_ORIGIN, WEBHOOK_SECRETS_KEY, and \`npm run start:${role}\`.`,
      ].join('\n'),
    );
  }
  const { record } = found;
  if (record.withheld.length) {
    for (const name of record.withheld) {
      if (!process.env[name])
        refuse(
          `npm start (pid ${record.pid}) runs on a ${name} of yours with a password, not written down: set ${name} as you gave it to npm start.`,
        );
    }
  }
  // Sealed webhook secrets open only with the key that sealed them: a replica with another key
  // would fail every delivery it makes.
  if (secretsKeyFingerprint(process.env) !== record.webhookSecretsKey) {
    refuse(
      record.webhookSecretsKey
        ? `npm start (pid ${record.pid}) runs with a WEBHOOK_SECRETS_KEY, and this replica has ${process.env.WEBHOOK_SECRETS_KEY ? 'another' : 'none'}: set the same one.`
        : `npm start (pid ${record.pid}) runs without WEBHOOK_SECRETS_KEY (the development key); unset it here too.`,
    );
  }

  const ports = {};
  for (const name of ROLES[role].ports) ports[name] = process.env[name] || String(await freePort());
  const env = {
    ...process.env,
    NODE_ENV: process.env.NODE_ENV || 'development',
    // Shared with every process of that run (their values win over this shell's: a replica on
    // another queue prefix or database would be another installation).
    ...record.env,
    ...Object.fromEntries(record.withheld.map((name) => [name, process.env[name]])),
    ...ports,
  };
  const name = `${role}+`;
  process.stdout.write(`Starting a ${role} replica beside npm start (pid ${record.pid}): ${ROLES[role].says(ports)}. Ctrl-C stops it.\n`);
  const tty = Boolean(process.stdout.isTTY);
  const pretty = require('pino-pretty').prettyFactory({
    colorize: tty,
    translateTime: 'SYS:HH:MM:ss',
    ignore: 'pid,hostname,app',
    singleLine: true,
  });
  const supervisor = supervise([{ name, command: process.execPath, args: [entry], env, cwd: root }], {
    format: (line) => (line.startsWith('{') ? pretty(line) : line),
    color: tty,
    // Away from the terminal's Ctrl-C, which would reach it and this script at once: the stop is this script's.
    ownProcessGroups: true,
    onStop: async (stopped) => {
      if (stopped.length) process.stdout.write(`Stopped the ${role} replica.\n`);
    },
  });
  process.exit(await supervisor.done);
}

main().catch((e) => refuse(`start:replica failed: ${e.stack || e}`));
