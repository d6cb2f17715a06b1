#!/usr/bin/env node
// The shortest complete use of the published client (`npm install @scene-studio/client`): plain
// Node, no build step. Uploads a source image, creates a scene with an Idempotency-Key (and sends
// the same request again, as a retry after a lost answer would), waits for it, finds it by its
// externalRef, issues and revokes an embed session, and deletes it. It prints one JSON line per
// step; never an embed URL, which is a bearer secret.
//
// Environment:
//   SCENE_STUDIO_API_KEY      an API key (required)
//   SCENE_STUDIO_API_URL      the api's base URL                      (default http://localhost:3000)
//   SCENE_STUDIO_IMAGE        a PNG, JPEG or WebP of at least 1280×720, 16:9 (required)
//   SCENE_STUDIO_EMBED_ORIGIN the origin the embed session is bound to (default http://localhost:4000,
//                             which a test organization may use)
'use strict';
const { randomUUID } = require('node:crypto');
const { SceneStudioClient, SceneStudioError } = require('@scene-studio/client');

const apiKey = process.env.SCENE_STUDIO_API_KEY;
const image = process.env.SCENE_STUDIO_IMAGE;
if (!apiKey || !image) {
  process.stderr.write('SCENE_STUDIO_API_KEY and SCENE_STUDIO_IMAGE are required\n');
  process.exit(2);
}
const studio = new SceneStudioClient({ apiKey, baseUrl: process.env.SCENE_STUDIO_API_URL || 'http://localhost:3000' });
const origin = process.env.SCENE_STUDIO_EMBED_ORIGIN || 'http://localhost:4000';
const step = (name, result) => process.stdout.write(`${JSON.stringify({ step: name, ...result })}\n`);

async function main() {
  const asset = await studio.uploadImage(image);
  step('upload', { imageAssetId: asset.imageAssetId, format: asset.format, sha256: asset.sha256, usable: asset.usableAsSceneSource });

  // Store the key with your own record before sending: after a crash, the same key replays the
  // first answer instead of creating a second scene.
  const externalRef = `quickstart-${randomUUID()}`;
  const request = { prompt: 'A harbour at dawn', sourceAssetId: asset.imageAssetId, externalRef, idempotencyKey: randomUUID() };
  const created = await studio.createScene(request);
  const retried = await studio.createScene(request);
  step('create', { operationId: created.operationId, replayed: created.replayed });
  step('create-again', { operationId: retried.operationId, replayed: retried.replayed });

  const done = await studio.waitForOperation(created.operationId, { timeoutMs: 5 * 60_000 });
  if (done.status !== 'succeeded') throw new Error(`generation failed: ${done.error?.code}`);
  step('succeeded', { operationId: done.operationId, sceneId: done.sceneId, version: done.version });

  const found = await studio.findSceneByExternalRef(externalRef);
  step('lookup', { externalRef, sceneId: found?.sceneId ?? null, status: found?.status ?? null });

  const session = await studio.createEmbedSession({ sceneId: done.sceneId, origin, mode: 'edit' });
  step('embed', { embedSessionId: session.embedSessionId, mode: session.mode, secretInFragment: new URL(session.url).hash.length > 1 });
  await studio.revokeEmbedSession(session.embedSessionId);

  await studio.deleteScene(done.sceneId);
  const afterDelete = await studio.findSceneByExternalRef(externalRef);
  step('delete', { sceneId: done.sceneId, foundAfterDelete: afterDelete !== null });
}

main().catch((e) => {
  // The problem's code and request id are what support needs; its detail is safe to show.
  const what = e instanceof SceneStudioError ? `${e.status} ${e.code} (request ${e.requestId}): ${e.problem.detail}` : e.message;
  process.stderr.write(`quickstart failed: ${what}\n`);
  process.exit(1);
});
