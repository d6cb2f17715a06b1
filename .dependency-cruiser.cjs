/**
 * Import boundaries, checked by `npm run lint` (dependency-cruiser). The lib chain is the one in
 * the README, kept in scripts/architecture.cjs: each lib may import only the libs listed for it;
 * libs never import apps; an app never imports another app; the studio's web page imports only
 * types from the server code and the world engine (at run time only packages/camera-path beside
 * itself), its folders in layers (web-* rules); packages/ (the partner client, the world engine,
 * the camera-path format) import no server or test code, and the world engine no framework; no
 * cycles anywhere; no lib or app imports another lib's repository, and no index.ts exports one.
 * (What core may name — no domain codes, jobs, prefixes, settings or tables — is checked by
 * scripts/check-core-is-generic.js.)
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
      // The one runtime import the page makes outside its folder: the camera-path format, shared
      // with the server (packages/camera-path: plain TypeScript, no Nest, DOM or three.js).
      name: 'web-page-imports-only-the-camera-path-package',
      severity: 'error',
      from: { path: '^apps/studio-web/' },
      to: { path: '^packages/', pathNot: '^packages/camera-path/', dependencyTypesNot: ['type-only'] },
    },
    // The studio page's folders, in layers (docs/architecture.md, "The studio page"): the model
    // (camera paths, camera moves, lenses, the file format) is plain data and maths, usable by
    // every other folder and by tests (no DOM or three.js in it: eslint.config.mjs); the API client and the views below the workflows never
    // reach up into a workflow; only main.ts installs the test hooks.
    {
      name: 'web-model-imports-nothing-of-the-page',
      severity: 'error',
      from: { path: '^apps/studio-web/src/model/' },
      to: { path: '^apps/studio-web/', pathNot: '^apps/studio-web/src/model/' },
    },
    {
      name: 'web-api-imports-only-the-model',
      severity: 'error',
      from: { path: '^apps/studio-web/src/api/' },
      to: { path: '^apps/studio-web/', pathNot: '^apps/studio-web/src/(api|model)/' },
    },
    {
      name: 'web-ui-imports-no-workflow',
      comment: 'ui/ holds the shared widgets: it knows the API types and the model, never a workflow or the viewport.',
      severity: 'error',
      from: { path: '^apps/studio-web/src/ui/' },
      to: { path: '^apps/studio-web/src/(perform|render|edit|studio|scene|viewport|debug|parent)/' },
    },
    {
      name: 'web-viewport-imports-no-workflow',
      severity: 'error',
      from: { path: '^apps/studio-web/src/viewport/' },
      to: { path: '^apps/studio-web/src/(perform|render|edit|studio|scene|ui|debug|parent)/' },
    },
    {
      name: 'web-render-imports-no-other-workflow',
      severity: 'error',
      from: { path: '^apps/studio-web/src/render/' },
      to: { path: '^apps/studio-web/src/(perform|edit|studio|debug)/' },
    },
    {
      name: 'web-perform-imports-no-edit-or-page',
      severity: 'error',
      from: { path: '^apps/studio-web/src/perform/' },
      to: { path: '^apps/studio-web/src/(edit|studio|debug)/' },
    },
    {
      name: 'web-scene-imports-only-api-model-viewport',
      comment: 'scene/ loads a version for the page and for edit/: it reaches no workflow or view.',
      severity: 'error',
      from: { path: '^apps/studio-web/src/scene/' },
      to: { path: '^apps/studio-web/', pathNot: '^apps/studio-web/src/(scene|api|model|viewport)/' },
    },
    {
      name: 'web-edit-imports-no-render-or-page',
      comment: "edit/ builds on perform/'s viewport controls (perform/ never imports edit/), not on the page above it.",
      severity: 'error',
      from: { path: '^apps/studio-web/src/edit/' },
      to: { path: '^apps/studio-web/src/(render|studio|debug)/' },
    },
    {
      name: 'web-test-hooks-only-from-main',
      comment: 'debug/ exists for tests: main.ts installs it in test builds only (vite --mode test).',
      severity: 'error',
      from: { path: '^apps/studio-web/src/', pathNot: '^apps/studio-web/src/(main\\.ts|debug/)' },
      to: { path: '^apps/studio-web/src/debug/' },
    },
    {
      // The packages ship on their own: the partner client knows the api only through the
      // generated types; the world engine is plain code the server's generation lib wraps; the
      // camera-path format is plain data and maths both the server and the page run.
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
    {
      // A lib's tables are reached only through its services: another lib (or an app) that needs a
      // scene locked asks ScenesService, never ScenesRepository. Tests may read rows directly.
      name: 'repositories-stay-in-their-lib',
      severity: 'error',
      from: { path: '^(libs|apps)/([^/]+)/' },
      to: { path: '^libs/([^/]+)/src/.*[.]repository[.]ts$', pathNot: '^libs/$2/' },
    },
    {
      // Nor does a lib's public surface hand one out (index.ts re-exporting a repository file).
      name: 'index-exports-no-repository',
      severity: 'error',
      from: { path: '^libs/[^/]+/src/index[.]ts$' },
      to: { path: '[.]repository[.]ts$' },
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
