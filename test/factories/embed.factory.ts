import { RunningHttpApp } from '../support/apps';
import { TestOrganization } from './organization.factory';
import { awaitOperation, createScene } from './scene.factory';

/** A ready scene (version 1) of the organization. Needs a worker running. */
export async function readyScene(
  api: RunningHttpApp,
  org: TestOrganization,
  body: Record<string, unknown> = { prompt: 'A calm lake among pines at sunset' },
) {
  const created = await createScene(api, org, body);
  if (created.status !== 202) throw new Error(`scene creation failed: ${created.status} ${JSON.stringify(created.body)}`);
  const done = await awaitOperation(api, org, created.body.operationId);
  if (done.body.status !== 'succeeded') throw new Error(`scene generation failed: ${JSON.stringify(done.body)}`);
  return done.body.sceneId as string;
}

export function createEmbedSession(api: RunningHttpApp, org: TestOrganization, body: Record<string, unknown>) {
  return api.http().post('/v1/embed-sessions').set(org.auth).send(body);
}

/** Splits an embed URL into its parts; the secret is the fragment. */
export function parseEmbedUrl(url: string): { origin: string; path: string; sessionId: string; secret: string; search: string } {
  const u = new URL(url);
  return { origin: u.origin, path: u.pathname, sessionId: u.pathname.split('/').pop()!, secret: u.hash.slice(1), search: u.search };
}
