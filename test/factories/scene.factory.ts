import { randomUUID } from 'node:crypto';
import type { Response } from 'supertest';
import { RunningHttpApp } from '../support/apps';
import { pollUntil } from '../support/poll';
import { TestOrganization } from './organization.factory';
import { image } from './images';

export function createScene(
  api: RunningHttpApp,
  org: TestOrganization,
  body: Record<string, unknown> = { prompt: 'A quiet pine forest by a lake at sunset' },
  key: string = randomUUID(),
): Promise<Response> {
  return api.http().post('/v1/scenes').set(org.auth).set('Idempotency-Key', key).send(body) as unknown as Promise<Response>;
}

/** Polls the operation until it leaves `processing`. */
export async function awaitOperation(api: RunningHttpApp, org: TestOrganization, operationId: string, timeoutMs = 20_000) {
  const res = await pollUntil(
    () => api.http().get(`/v1/operations/${operationId}`).set(org.auth),
    (r) => r.status !== 200 || r.body.status !== 'processing',
    { timeoutMs, intervalMs: 50, what: `operation ${operationId} to finish` },
  );
  return res;
}

export async function uploadImage(api: RunningHttpApp, org: TestOrganization, width = 1920, height = 1080): Promise<string> {
  const res = await api
    .http()
    .post('/v1/image-assets')
    .set(org.auth)
    .attach('file', await image('png', width, height), { filename: 'source.png', contentType: 'image/png' });
  if (res.status !== 201) throw new Error(`upload failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.imageAssetId as string;
}
