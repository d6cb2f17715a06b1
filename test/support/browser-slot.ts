import { databaseUrl } from '@app/core/testing';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'pg';

/**
 * How many browser files of one run may hold Chromium at once. Its WebGL is SwiftShader, drawn by
 * the CPU: two or three at once on two cores slow each other's frames down several times, past the
 * deadlines the browser suites give a frame. The other jest workers meanwhile run files without a
 * browser; the sequencer (test/jest/slowest-first-sequencer.js) orders the files so a browser file
 * seldom has to wait for the slot. SS_TEST_BROWSER_SLOTS raises it on a machine with more cores
 * (on this 2-core one, two slots with four workers were no faster and missed deadlines).
 */
export const BROWSER_SLOTS = Number(process.env.SS_TEST_BROWSER_SLOTS ?? 1);

/** How long a browser file may wait for a slot: the slowest browser files take minutes. */
export const BROWSER_SLOT_WAIT_MS = 20 * 60_000;

/**
 * Adds a wait for a slot to the file's total, which its test environment
 * (test/jest/file-environment.js) notes for the timing reporter: the reporter takes it out of the
 * file's duration, so the durations the sequencer plans with are the files' own work, not the
 * queue they happened to stand in.
 */
function noteWait(waitMs: number): void {
  const global = globalThis as { __ssBrowserWaitMs?: number };
  global.__ssBrowserWaitMs = (global.__ssBrowserWaitMs ?? 0) + waitMs;
}

/**
 * Takes one of the run's browser slots: a PostgreSQL advisory lock, held by a session of its own
 * on the server's `postgres` database (advisory locks are per database; the files' databases are
 * their own), so a jest worker that dies releases it with its connection. Resolves the release.
 */
export async function takeBrowserSlot(): Promise<() => Promise<void>> {
  const runId = process.env.SS_TEST_RUN_ID;
  const serverUrl = process.env.SS_TEST_SERVER_URL;
  if (!runId || !serverUrl) throw new Error('browser suites must run through jest with the global setup');
  const client = new Client({ connectionString: databaseUrl(serverUrl, 'postgres'), application_name: 'ss-test-browser-slot' });
  await client.connect();
  try {
    const started = Date.now();
    const deadline = started + BROWSER_SLOT_WAIT_MS;
    for (;;) {
      for (let slot = 0; slot < BROWSER_SLOTS; slot++) {
        const { rows } = await client.query<{ taken: boolean }>(`SELECT pg_try_advisory_lock(hashtext($1), $2) AS taken`, [
          `ss-test-browser-${runId}`,
          slot,
        ]);
        if (rows[0].taken) {
          noteWait(Date.now() - started);
          return () => client.end();
        }
      }
      if (Date.now() > deadline) throw new Error(`no browser slot free within ${BROWSER_SLOT_WAIT_MS / 60_000} minutes`);
      await sleep(250);
    }
  } catch (e) {
    await client.end();
    throw e;
  }
}
