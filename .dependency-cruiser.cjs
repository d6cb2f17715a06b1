/**
 * Import boundaries, checked by `npm run lint` (dependency-cruiser). The lib chain is the one in
 * the README, kept in scripts/architecture.cjs: each lib may import only the libs listed for it;
 * libs never import apps; an app never imports another app; the studio's web page imports only
 * types from the server code; packages/ (the partner client) imports no server or test code; no
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
      to: { path: '^(libs|apps)/', pathNot: '^apps/studio-web/', dependencyTypesNot: ['type-only'] },
    },
    {
      // The partner client ships on its own: it knows the api only through the generated types.
      name: 'client-package-stands-alone',
      severity: 'error',
      from: { path: '^packages/' },
      to: { path: '^(libs|apps|test|scripts)/' },
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
    exclude: { path: '(^|/)(dist|node_modules)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
