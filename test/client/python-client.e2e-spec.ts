import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, run } from '../support/processes';
import { setUpSuite } from '../support/suite';

/**
 * The system's interpreter, as a partner's Debian server has it (3.11 on Debian 12), rather than
 * whatever a developer's PATH puts first; the client must run on its standard library alone.
 */
const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
const PACKAGE = join(ROOT, 'packages/client-python');

/**
 * packages/client-python against the api and worker: its unittest suite (tests/), run by python3
 * with the api's URL and a test organization's key. The suite calls every public method of the
 * client (it checks that itself) and receives webhooks on a server of its own, verified with the
 * client's verify_webhook.
 */
describe('the Python client against the api', () => {
  // Webhook deliveries leave the outbox within 50 ms rather than the default half second.
  const suite = setUpSuite({ worker: { config: { WEBHOOK_POLL_INTERVAL_MS: '50' } } });

  it('passes its unittest suite, every call exercised', async () => {
    const r = await run(PYTHON, ['-m', 'unittest', 'discover', '--start-directory', 'tests', '--top-level-directory', '.', '-v'], {
      cwd: PACKAGE,
      env: {
        PATH: process.env.PATH,
        SCENE_STUDIO_API_URL: suite.api.url,
        SCENE_STUDIO_API_KEY: suite.org.apiKey,
        // No __pycache__ left in the repository.
        PYTHONDONTWRITEBYTECODE: '1',
        // A ResourceWarning (a response or socket left open) fails the run.
        PYTHONWARNINGS: 'error',
      },
    });
    if (r.code !== 0) throw new Error(`python3 exited ${r.code}:\n${r.stderr}\n${r.stdout}`);

    // unittest's verbose report: each test and its verdict, then the total.
    const verdicts = Object.fromEntries([...r.stderr.matchAll(/^(test_\w+) \(([\w.]+)\)[^\n]*? \.\.\. (\w+)$/gm)].map((m) => [m[1], m[3]]));
    expect(verdicts).toMatchObject({
      test_1_upload_create_poll_lookup_embed_delete: 'ok',
      test_2_cancel_and_timeout: 'ok',
      test_3_problems_raise_with_code_status_and_detail: 'ok',
      test_4_webhooks_delivered_and_verified: 'ok',
      test_9_every_public_method_was_called: 'ok',
      test_matches_the_standard_webhooks_example: 'ok',
    });
    expect(Object.values(verdicts).every((v) => v === 'ok')).toBe(true);
    expect(r.stderr).toMatch(new RegExp(`\\nRan ${Object.keys(verdicts).length} tests in [\\d.]+s\\n\\nOK\\n$`));

    const called = JSON.parse(r.stdout.trim().split('\n').pop()!) as { called: string[] };
    expect(called.called).toEqual(
      expect.arrayContaining([
        'upload_image',
        'create_scene',
        'wait_for_operation',
        'get_operation',
        'find_scene_by_external_ref',
        'delete_scene',
        'create_embed_session',
        'revoke_embed_session',
        'create_webhook_endpoint',
        'list_webhook_endpoints',
        'delete_webhook_endpoint',
        'test_webhook_endpoint',
      ]),
    );
  }, 180_000);
});
