import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { image } from '../factories/images';
import { ROOT, run } from '../support/processes';
import { setUpSuite } from '../support/suite';

const PACKAGE = join(ROOT, 'packages/client');

interface PackedFile {
  path: string;
}

/**
 * @scene-studio/client as a partner gets it: `npm pack` (its prepack builds it), the tarball
 * installed with npm into an empty directory without the registry (the client needs nothing but
 * Node), and examples/client-quickstart run there by plain Node against the api and worker.
 *
 * The package is packed from a copy of packages/client, so the build its prepack runs never
 * rewrites the packages/client/dist that other files' processes (examples/partner-app) load
 * meanwhile; the copy sees the repository's node_modules for the compiler, as the workspace does.
 */
describe('the packed client, installed from its tarball', () => {
  const suite = setUpSuite({ worker: {} });
  const work = mkdtempSync(join(tmpdir(), 'packed-client-'));
  let packed: { filename: string; files: PackedFile[] };
  let app: string;

  beforeAll(async () => {
    const source = join(work, 'source', 'client');
    cpSync(PACKAGE, source, { recursive: true, filter: (path) => !/[/\\](dist|node_modules)$/.test(path) });
    symlinkSync(join(ROOT, 'node_modules'), join(work, 'source', 'node_modules'), 'dir');
    const pack = await run('npm', ['pack', '--json', '--pack-destination', work], { cwd: source });
    if (pack.code !== 0) throw new Error(`npm pack exited ${pack.code}: ${pack.stderr}`);
    [packed] = JSON.parse(pack.stdout) as [typeof packed];

    app = join(work, 'app');
    cpSync(join(ROOT, 'examples/client-quickstart'), app, { recursive: true });
    const install = await run('npm', ['install', '--offline', '--no-audit', '--no-fund', join(work, packed.filename)], { cwd: app });
    if (install.code !== 0) throw new Error(`npm install of the tarball exited ${install.code}: ${install.stderr}`);
  }, 240_000);

  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('holds the built JavaScript and its declarations, and nothing else of the sources', () => {
    const paths = packed.files.map((f) => f.path).sort();
    expect(paths).toEqual(expect.arrayContaining(['README.md', 'dist/index.d.ts', 'dist/index.js', 'package.json']));
    expect(paths.filter((p) => !/^dist\/.+\.(js|d\.ts)$/.test(p))).toEqual(['README.md', 'package.json']);
    expect(paths.some((p) => /\.spec\./.test(p))).toBe(false);
    // Built without source maps: no map file, and no JavaScript that points at one.
    const index = readFileSync(join(app, 'node_modules/@scene-studio/client/dist/index.js'), 'utf8');
    expect(index).not.toContain('sourceMappingURL');
  });

  it('is publishable and needs no other package', () => {
    const manifest = JSON.parse(readFileSync(join(app, 'node_modules/@scene-studio/client/package.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(manifest).toMatchObject({ name: '@scene-studio/client', main: 'dist/index.js', types: 'dist/index.d.ts' });
    expect(manifest.private).toBeUndefined();
    expect(manifest.dependencies ?? {}).toEqual({});
    expect(Object.keys(manifest)).toEqual(expect.arrayContaining(['version', 'license', 'repository', 'engines', 'exports']));
    // What npm installed: the client alone.
    expect(readdirSync(join(app, 'node_modules')).filter((n) => !n.startsWith('.'))).toEqual(['@scene-studio']);
    expect(readdirSync(join(app, 'node_modules/@scene-studio'))).toEqual(['client']);
  });

  it('runs the quickstart by plain Node: upload, idempotent create, poll, lookup, embed session, delete', async () => {
    const png = join(app, 'source.png');
    writeFileSync(png, await image('png', 1920, 1080));
    // Plain Node in the app's folder: the package resolves from its node_modules alone.
    const r = await run(process.execPath, [join(app, 'quickstart.js')], {
      cwd: app,
      env: {
        PATH: process.env.PATH,
        SCENE_STUDIO_API_KEY: suite.org.apiKey,
        SCENE_STUDIO_API_URL: suite.api.url,
        SCENE_STUDIO_IMAGE: png,
      },
    });
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    const steps = Object.fromEntries(
      r.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { step: string; operationId?: string; sceneId?: string })
        .map((s) => [s.step, s]),
    );
    const ID = (prefix: string) => expect.stringMatching(new RegExp(`^${prefix}_[0-9A-HJKMNP-TV-Z]{26}$`));
    expect(steps.upload).toMatchObject({ imageAssetId: ID('img'), format: 'png', usable: true });
    expect(steps.create).toEqual({ step: 'create', operationId: ID('op'), replayed: false });
    expect(steps['create-again']).toEqual({ step: 'create-again', operationId: steps.create.operationId, replayed: true });
    expect(steps.succeeded).toEqual({ step: 'succeeded', operationId: steps.create.operationId, sceneId: ID('scn'), version: 1 });
    expect(steps.lookup).toMatchObject({ sceneId: steps.succeeded.sceneId, status: 'ready' });
    expect(steps.embed).toEqual({ step: 'embed', embedSessionId: ID('es'), mode: 'edit', secretInFragment: true });
    expect(steps.delete).toEqual({ step: 'delete', sceneId: steps.succeeded.sceneId, foundAfterDelete: false });

    // What the api holds afterwards, seen without the client: the scene is gone.
    const res = await fetch(`${suite.api.url}/v1/scenes/${steps.succeeded.sceneId}`, { headers: suite.org.auth });
    expect(res.status).toBe(404);
  });

  it('declares types a TypeScript project resolves through the package exports', () => {
    const types = join(app, 'node_modules/@scene-studio/client/dist/index.d.ts');
    expect(existsSync(types)).toBe(true);
    expect(readFileSync(types, 'utf8')).toContain('SceneStudioClient');
    // The declarations name nothing outside the package and Node's own types.
    const declared = readdirSync(join(app, 'node_modules/@scene-studio/client/dist'))
      .filter((f) => f.endsWith('.d.ts'))
      .map((f) => readFileSync(join(app, 'node_modules/@scene-studio/client/dist', f), 'utf8'))
      .join('\n');
    const imported = [...declared.matchAll(/from ['"]([^'"]+)['"]/g)].map((m) => m[1]).filter((m) => !m.startsWith('.'));
    expect(imported.filter((m) => !m.startsWith('node:'))).toEqual([]);
  });
});
