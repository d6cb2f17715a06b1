#!/usr/bin/env node
// `npm run --silent sample-image -- sample.png`: writes a 1920×1080 PNG (a sky-to-lake gradient
// with a horizon) that is a valid scene source, for the curl examples in the README and
// docs/api.md. Generated rather than committed: no binary in the repository, and sharp is
// already a dependency.
'use strict';
const sharp = require('sharp');

async function main() {
  const out = process.argv[2] || 'sample.png';
  const [w, h] = [1920, 1080];
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}">
    <defs>
      <linearGradient id="sky" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#f6a45c"/><stop offset="1" stop-color="#7a5c8e"/></linearGradient>
      <linearGradient id="lake" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#3b4f6b"/><stop offset="1" stop-color="#141c2b"/></linearGradient>
    </defs>
    <rect width="${w}" height="${h * 0.6}" fill="url(#sky)"/>
    <rect y="${h * 0.6}" width="${w}" height="${h * 0.4}" fill="url(#lake)"/>
    <circle cx="${w * 0.7}" cy="${h * 0.5}" r="90" fill="#ffd08a"/>
    <path d="M0 ${h * 0.6} L300 ${h * 0.35} L520 ${h * 0.6} L780 ${h * 0.4} L1100 ${h * 0.6} Z" fill="#2b3a2e"/>
  </svg>`;
  await sharp(Buffer.from(svg)).png().toFile(out);
  process.stdout.write(`${out}: ${w}×${h} PNG, usable as a scene source\n`);
}

main().catch((e) => {
  process.stderr.write(`${e.message}\n`);
  process.exit(1);
});
