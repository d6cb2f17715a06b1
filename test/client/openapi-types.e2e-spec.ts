import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, run } from '../support/processes';
import { setUpSuite } from '../support/suite';

const COMMITTED = join(ROOT, 'packages/client/src/generated/openapi.ts');
const COMMITTED_PYTHON = join(ROOT, 'packages/client-python/scene_studio/_types.py');

/** Where two renderings first part, for a failure message a reader can act on. */
function firstDifference(expected: string, actual: string): string {
  const a = expected.split('\n');
  const b = actual.split('\n');
  const at = a.findIndex((l, i) => l !== b[i]);
  return at === -1
    ? `the api's rendering has ${b.length - a.length} more lines`
    : `line ${at + 1}: committed ${JSON.stringify(a[at])}, api ${JSON.stringify(b[at])}`;
}

async function node(args: string[]): Promise<string> {
  const r = await run(process.execPath, args);
  if (r.code !== 0) throw new Error(`node ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return r.stdout;
}

/**
 * The clients' committed types (packages/client/src/generated/openapi.ts, and the Python
 * client's scene_studio/_types.py) are what the running api's OpenAPI document renders to: a
 * route or schema change without `npm run client:generate` fails here. Rendering runs in node
 * processes (scripts/client-types.js, scripts/python-client-types.js), as the scripts do.
 */
describe('typed client: generated types match the live api', () => {
  const suite = setUpSuite({ org: false });
  let document: string;
  let rendered: string;

  beforeAll(async () => {
    const res = await fetch(`${suite.api.url}/v1/openapi.json`);
    expect(res.status).toBe(200);
    document = join(mkdtempSync(join(tmpdir(), 'client-types-')), 'openapi.json');
    writeFileSync(document, await res.text());
    rendered = await node([join(ROOT, 'scripts/client-types.js'), document]);
  });

  it('renders to exactly the committed file (else run `npm run client:generate`)', () => {
    expect(rendered).toContain('"/v1/scenes": {');
    const committed = readFileSync(COMMITTED, 'utf8');
    if (rendered !== committed) {
      throw new Error(
        `packages/client types drifted from the api: run \`npm run client:generate\` (${firstDifference(committed, rendered)})`,
      );
    }
  });

  it('is what `npm run client:generate` builds from the compiled api without a database', async () => {
    const generated = await node([join(ROOT, 'scripts/generate-client-types.js'), '--print']);
    if (generated !== rendered) {
      // The script reads the compiled api: a stale dist/ differs from the sources jest runs.
      throw new Error(
        `client:generate renders otherwise than the live api (dist/ stale? run \`npm run build\`): ${firstDifference(rendered, generated)}`,
      );
    }
  });

  it('renders the Python client’s types to exactly the committed file (else run `npm run client:generate`)', async () => {
    const python = await node([join(ROOT, 'scripts/python-client-types.js'), document]);
    expect(python).toContain('class ImageAssetResponse(TypedDict):');
    expect(python).toMatch(/PROBLEM_CODES: tuple\[ProblemCode, \.\.\.\] = \([^)]*"unsupported_image_format",/);
    const committed = readFileSync(COMMITTED_PYTHON, 'utf8');
    if (python !== committed) {
      throw new Error(
        `packages/client-python types drifted from the api: run \`npm run client:generate\` (${firstDifference(committed, python)})`,
      );
    }
  });
});
