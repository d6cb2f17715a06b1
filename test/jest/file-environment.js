// The test environment of the service and e2e tiers: jest's node environment, plus the one step
// that must come after every hook of a file, dropping the file's databases.
//
// A file's databases (test/support/environment.ts) used to be dropped in the afterAll that
// created them, but jest-circus runs a describe block's afterAll hooks in declaration order: a
// file that set up its environment first and closed an in-process worker or api in a later
// afterAll had the database dropped under the running app. `DROP DATABASE … WITH (FORCE)` ends
// the app's connections, and their unhandled 57P01 errors failed the file (or the next one in
// that jest worker). Here the drop happens in the environment's teardown, which jest runs after
// every hook of the file and after its module registry is gone: whatever the file closes, in any
// order, is closed by then. The drop uses this process's own `pg`, not the file's modules.
'use strict';
const NodeEnvironment = require('jest-environment-node').TestEnvironment;
const { Client } = require('pg');

/** The key under which a file registers its databases (test/support/environment.ts). */
const DROP_AT_END = '__ssDatabasesToDropAtFileEnd';

class FileEnvironment extends NodeEnvironment {
  constructor(config, context) {
    super(config, context);
    this.databases = [];
    this.global[DROP_AT_END] = this.databases;
  }

  async teardown() {
    try {
      if (this.databases.length > 0) await dropAll(this.databases.splice(0));
    } finally {
      await super.teardown();
    }
  }
}

async function dropAll(names) {
  const serverUrl = process.env.SS_TEST_SERVER_URL;
  if (!serverUrl) return;
  const url = new URL(serverUrl);
  url.pathname = '/postgres';
  const client = new Client({ connectionString: url.toString(), application_name: 'ss-test-drop' });
  await client.connect();
  try {
    for (const name of names) await client.query(`DROP DATABASE IF EXISTS "${name.replace(/"/g, '""')}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

module.exports = FileEnvironment;
