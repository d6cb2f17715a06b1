/**
 * Import boundaries, checked by `npm run lint` (dependency-cruiser). The lib chain is the one in
 * the README, kept in scripts/architecture.cjs: each lib may import only the libs listed for it;
 * libs never import apps; an app never imports another app; the studio's web page imports only
 * types from the server code and the world engine; packages/ (the partner client, the world
 * engine) import no server or test code, and the world engine no framework; no cycles anywhere.
 */
const { LIB_DEPENDENCIES } = require('./scripts/architecture.cjs');

module.exports = {
  forbidden: [
    { name: 'no-cycles', severity: 'error', from: {}, to: { circular: true } },
    { name: 'libs-never-import-apps', severity: 'error', from: { path: '^libs/' }, to: { path: '^apps/' } },
    {
      name: 'apps-never-import-each-other',
      severity: 'error',
      from: { path: '^apps/([^/]+)/' },
      to: { path: '^apps/', pathNot: '^apps/$1/' },
    },
    {
      name: 'web-page-imports-only-types-from-the-server',
      severity: 'error',
      from: { path: '^apps/studio-web/' },
      to: { path: '^(libs|apps|packages/world-engine)/', pathNot: '^apps/studio-web/', dependencyTypesNot: ['type-only'] },
    },
    {
      // The packages ship on their own: the partner client knows the api only through the
      // generated types; the world engine is plain code the server's generation lib wraps.
      name: 'packages-stand-alone',
      severity: 'error',
      from: { path: '^packages/' },
      to: { path: '^(libs|apps|test|scripts)/' },
    },
    {
      // The world engine is framework-free (no NestJS, no database, queue or image library): it
      // runs anywhere Node does, and its adapter in libs/generation brings those in.
      name: 'world-engine-imports-no-framework',
      severity: 'error',
      from: { path: '^packages/world-engine/' },
      to: { path: 'node_modules/(@nestjs|typeorm|pg|bullmq|ioredis|sharp|express)/' },
    },
    {
      // Its files are the package's own: the rest reach it by its name (or `/scene-spec`, the
      // spec's types without Node's, for the studio page), never by a path into it.
      name: 'world-engine-by-name-only',
      severity: 'error',
      from: { path: '^(apps|libs|test|bench|scripts)/' },
      to: { path: '^packages/world-engine/src/(?!(index|scene-spec)\\.ts$)' },
    },
    ...Object.entries(LIB_DEPENDENCIES).map(([lib, allowed]) => ({
      name: `lib-chain-${lib}`,
      comment: `libs/${lib} may import ${allowed.length ? allowed.join(', ') : 'no other lib'} (README)`,
      severity: 'error',
      from: { path: `^libs/${lib}/` },
      to: { path: '^libs/', pathNot: `^libs/(${[lib, ...allowed].join('|')})/` },
    })),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // node_modules is not followed, but kept as leaves, so a rule can name a package (the world
    // engine's: no framework).
    exclude: { path: '(^|/)dist/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
