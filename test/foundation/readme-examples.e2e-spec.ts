import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, run } from '../support/processes';
import { setUpSuite } from '../support/suite';

/**
 * The README's curl quick tour, run as written in bash with curl: the sample image it tells a
 * newcomer to generate is accepted as a scene source, and the Idempotency-Key it builds without
 * `uuidgen` is one the api takes.
 */
describe("the README's curl examples", () => {
  const suite = setUpSuite();
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'ss-readme-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** The first command of the README's curl block that matches, with its continuation lines. */
  function readmeCommand(marker: RegExp): string {
    const block = readFileSync(join(ROOT, 'README.md'), 'utf8').split('## Using the API with curl')[1];
    const lines = block.split('\n');
    const start = lines.findIndex((l) => marker.test(l) && !l.startsWith('#'));
    if (start < 0) throw new Error(`no README command matches ${marker}`);
    const command = [lines[start]];
    for (let i = start; lines[i].trimEnd().endsWith('\\'); i++) command.push(lines[i + 1]);
    return command.join('\n');
  }

  const bash = (script: string) =>
    run('bash', ['-euo', 'pipefail', '-c', script], {
      cwd: dir,
      env: { ...process.env, KEY: suite.org.apiKey, API: suite.api.url, PATH: `${join(ROOT, 'node_modules/.bin')}:${process.env.PATH}` },
    });

  it('generates a sample image, uploads it as a usable scene source, and creates a scene', async () => {
    // What `npm run --silent sample-image -- sample.png` (as the README says) runs, minus npm.
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8')).toContain('`npm run --silent sample-image -- sample.png`');
    const generated = await run(process.execPath, [join(ROOT, 'scripts/sample-image.js'), 'sample.png'], { cwd: dir });
    expect(generated.code).toBe(0);

    const uploaded = await bash(readmeCommand(/-F file=@sample\.png/));
    expect(uploaded.code).toBe(0);
    expect(JSON.parse(uploaded.stdout)).toMatchObject({ format: 'png', width: 1920, height: 1080, usableAsSceneSource: true });

    const created = await bash(readmeCommand(/Idempotency-Key: \$\(node -p/));
    expect(created.code).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ operationId: expect.stringMatching(/^op_/), status: 'processing' });
  });
});
