import { buildStudioOpenApiDocument } from '@apps/studio/openapi/studio-openapi';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, run } from '../support/processes';
import { setUpSuite } from '../support/suite';

const COMMITTED = join(ROOT, 'apps/studio-web/src/api/generated/studio-api.ts');

/** Where two renderings first part, for a failure message a reader can act on. */
function firstDifference(expected: string, actual: string): string {
  const a = expected.split('\n');
  const b = actual.split('\n');
  const at = a.findIndex((l, i) => l !== b[i]);
  return at === -1
    ? `the studio's rendering has ${b.length - a.length} more lines`
    : `line ${at + 1}: committed ${JSON.stringify(a[at])}, studio ${JSON.stringify(b[at])}`;
}

async function node(args: string[]): Promise<string> {
  const r = await run(process.execPath, args);
  if (r.code !== 0) throw new Error(`node ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return r.stdout;
}

/**
 * The studio page's types of the studio API (apps/studio-web/src/api/generated/studio-api.ts) are
 * what the running studio's OpenAPI document renders to: a route, parameter or answer changed on
 * the server without `npm run studio-api:generate` fails here, as the partner client's types do
 * (test/client/openapi-types.e2e-spec.ts). Rendering runs in a node process (openapi-typescript
 * is ES modules), as the script does.
 */
describe('studio page: generated studio API types match the studio', () => {
  const suite = setUpSuite({ api: false, org: false, studio: {} });
  let rendered: string;

  beforeAll(async () => {
    const document = buildStudioOpenApiDocument(suite.studio.app);
    const file = join(mkdtempSync(join(tmpdir(), 'studio-api-types-')), 'openapi.json');
    writeFileSync(file, JSON.stringify(document));
    rendered = await node([join(ROOT, 'scripts/client-types.js'), file, '--studio']);
  });

  it('covers every route of the studio API and the camera-path format', () => {
    for (const route of [
      '"/studio-api/v1/session"',
      '"/studio-api/v1/scene/versions/{version}/artifacts"',
      '"/studio-api/v1/scene/versions/{version}/artifacts/{kind}"',
      '"/studio-api/v1/scene/versions/{version}/spec"',
      '"/studio-api/v1/edits"',
      '"/studio-api/v1/events"',
      '"/studio-api/v1/camera-paths"',
      '"/studio-api/v1/camera-paths/{cameraPathId}"',
    ]) {
      expect(rendered).toContain(`${route}: {`);
    }
    // The document's tuples and constants come through as the format's types (packages/camera-path).
    expect(rendered).toContain('format: "scene-studio.camera-path";');
    expect(rendered).not.toContain('"/embed');
  });

  it('renders to exactly the committed file (else run `npm run studio-api:generate`)', () => {
    const committed = readFileSync(COMMITTED, 'utf8');
    if (rendered !== committed) {
      throw new Error(
        `studio-web's studio API types drifted from the studio: run \`npm run studio-api:generate\` (${firstDifference(committed, rendered)})`,
      );
    }
  });

  it('is what `npm run studio-api:generate` builds from the compiled studio without a database', async () => {
    const generated = await node([join(ROOT, 'scripts/generate-studio-api-types.js'), '--print']);
    if (generated !== rendered) {
      // The script reads the compiled studio: a stale dist/ differs from the sources jest runs.
      throw new Error(
        `studio-api:generate renders otherwise than the studio (dist/ stale? run \`npx nest build studio\`): ${firstDifference(rendered, generated)}`,
      );
    }
  });
});
