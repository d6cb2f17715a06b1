import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// Paths are resolved from this file so the build works from any working directory.
const root = fileURLToPath(new URL('.', import.meta.url));
const outDir = fileURLToPath(new URL('../../dist/apps/studio-web', import.meta.url));
const sceneSpec = fileURLToPath(new URL('../../packages/world-engine/src/scene-spec.ts', import.meta.url));

/**
 * The studio page is served by the studio process for `GET /embed/{id}` under a strict CSP
 * (`script-src 'self'`, `style-src 'self'`), so the build must emit only external files:
 * no inline scripts or styles, no data-URI fonts, everything under `/assets/`.
 */
export default defineConfig({
  root,
  base: '/',
  publicDir: false,
  resolve: {
    // The same alias as tsconfig.json's `paths`, so the type-check and the bundler agree on what
    // a name means. The page imports only the scene spec's types through it (type imports never
    // reach the bundle; a value import from the engine would bundle Node code, which `npm run
    // lint` refuses).
    alias: [{ find: /^@scene-studio\/world-engine\/scene-spec$/, replacement: sceneSpec }],
  },
  build: {
    outDir,
    emptyOutDir: true,
    assetsDir: 'assets',
    target: 'es2022',
    sourcemap: false,
    assetsInlineLimit: 0,
    // The polyfill only matters for browsers without modulepreload; our targets all have it.
    modulePreload: { polyfill: false },
    // Spark's chunk is ~2.5 MB minified (its WebAssembly inlined); scripts/check-bundle-budget.js
    // holds the real, gzipped budgets for it and for everything else.
    chunkSizeWarningLimit: 2600,
  },
});
