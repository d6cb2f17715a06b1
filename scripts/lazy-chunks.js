// The studio bundle's lazy chunks: fetched only when needed, so they stay out of the page-load
// budget (BUDGET_BYTES in scripts/check-bundle-budget.js) and each has a budget of its own. Shared by scripts/check-bundle-budget.js and the
// studio benchmark (bench/studio.js), which counts the bundle the same way.
'use strict';

// Spark, the Gaussian-splat renderer, is its own chunk (apps/studio-web/src/viewport/splat-layer.ts,
// imported only when a version has a splat), so scenes without splats never download it and it
// stays out of the page-load budget. It has a budget of its own: measured at 856 KB gzipped with Spark 2.2.0
// (most of it the renderer's WebAssembly, inlined as base64 twice: once for the page, once in its
// sorting worker's source). The margin absorbs a minor Spark update, not a second library.
const SPLAT_CHUNK = { name: 'splat', file: /^splat-layer-[\w-]+\.js$/, budget: 900 * 1024, when: 'loaded only for splat worlds' };
// The video encoder and muxer (mediabunny, apps/studio-web/src/render/media-encoding.ts) is a
// chunk of its own too: fetched when a take starts or the Render section comes into view, never
// on load. Measured at 75.4 KB gzipped with mediabunny 1.61.0 (MP4 and WebM muxing, the WebM
// reader for remuxing takes, WebCodecs glue); the margin covers a minor update, not a second
// library. Kept out of the page-load budget so that budget stays the page load's.
const MEDIA_CHUNK = { name: 'media', file: /^media-encoding-[\w-]+\.js$/, budget: 90 * 1024, when: 'loaded for takes and renders' };

const LAZY_CHUNKS = [SPLAT_CHUNK, MEDIA_CHUNK];

/** Whether a file of the bundle (its path under assets/) is one of the lazy chunks. */
const isLazyChunk = (file) => LAZY_CHUNKS.some((c) => c.file.test(file));

module.exports = { LAZY_CHUNKS, isLazyChunk };
