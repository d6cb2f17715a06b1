import { DomainError } from '@app/core';
import { EmbedSessionsService } from '@app/embed-sessions';
import { ImageAssetsService } from '@app/image-assets';
import { OperationsService, SceneOperationsService } from '@app/operations';
import { ScenesService } from '@app/scenes';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { image } from '../factories/images';
import { createOrganization, TestOrganization } from '../factories/organization.factory';
import { setUpServices } from '../support/services';

describe('the domain services on a real database', () => {
  const suite = setUpServices();
  let org: TestOrganization;
  let other: TestOrganization;
  const scenes = () => suite.app.get(ScenesService);
  const sceneOperations = () => suite.app.get(SceneOperationsService);
  const create = (orgId: string, body: { prompt: string; externalRef?: string; sourceAssetId?: string }, key = randomUUID()) =>
    sceneOperations().create(orgId, { key, scope: 'POST /v1/scenes' }, body);
  const operationIdOf = (r: Awaited<ReturnType<typeof create>>) => r.value.operationId;

  beforeAll(async () => {
    org = await createOrganization(suite.app);
    other = await createOrganization(suite.app);
  });

  describe('ScenesService and OperationsService', () => {
    it('creates a scene and its processing operation, visible to its organization only', async () => {
      const created = await create(org.organizationId, { prompt: 'A harbour at dawn', externalRef: 'svc-1' });
      expect(created.replayed).toBe(false);
      expect(created.value).toMatchObject({ status: 'processing', createdAt: expect.any(String) });
      const op = await suite.app.get(OperationsService).get(org.organizationId, operationIdOf(created));
      expect(op).toMatchObject({ operationId: operationIdOf(created), status: 'processing' });
      expect(await suite.app.get(OperationsService).get(other.organizationId, operationIdOf(created))).toBeNull();
      expect(await scenes().findByExternalRef(org.organizationId, 'svc-1')).toMatchObject({ externalRef: 'svc-1', status: 'generating' });
      expect(await scenes().findByExternalRef(other.organizationId, 'svc-1')).toBeNull();
    });

    it('replays an Idempotency-Key with the same body, refuses it with another, and refuses a taken externalRef', async () => {
      const key = randomUUID();
      const first = await create(org.organizationId, { prompt: 'A quiet lake' }, key);
      const again = await create(org.organizationId, { prompt: 'A quiet lake' }, key);
      expect(again.replayed).toBe(true);
      expect(operationIdOf(again)).toBe(operationIdOf(first));
      await expect(create(org.organizationId, { prompt: 'Another lake' }, key)).rejects.toMatchObject({ code: 'idempotency_key_reused' });
      await create(org.organizationId, { prompt: 'One', externalRef: 'svc-taken' });
      await expect(create(org.organizationId, { prompt: 'Two', externalRef: 'svc-taken' })).rejects.toMatchObject({
        code: 'external_ref_conflict',
      });
      // Another organization's externalRefs are its own.
      expect((await create(other.organizationId, { prompt: 'Three', externalRef: 'svc-taken' })).replayed).toBe(false);
    });

    it('a key past its 24-hour window is free again: the same key makes a new creation, whatever the old body', async () => {
      const key = randomUUID();
      const first = await create(org.organizationId, { prompt: 'Long ago' }, key);
      await suite.app
        .get(DataSource)
        .query(`UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE organization_id = $1 AND key = $2`, [
          org.organizationId,
          key,
        ]);
      const again = await create(org.organizationId, { prompt: 'Today' }, key);
      expect(again.replayed).toBe(false);
      expect(operationIdOf(again)).not.toBe(operationIdOf(first));
      // And the new record is the one replayed from now on.
      expect(operationIdOf(await create(org.organizationId, { prompt: 'Today' }, key))).toBe(operationIdOf(again));
    });

    it('a cancel racing the deletion of its scene never deadlocks (both take the scene first)', async () => {
      // The fuzz found this: cancel locked the operation, then the scene; deletion the other way round.
      for (let i = 0; i < 40; i++) {
        const created = await create(org.organizationId, { prompt: `Race ${i}`, externalRef: `svc-race-${i}` });
        const { sceneId } = (await scenes().findByExternalRef(org.organizationId, `svc-race-${i}`))!;
        const [cancelled] = await Promise.all([
          suite.app.get(OperationsService).cancel(org.organizationId, operationIdOf(created)),
          scenes().delete(org.organizationId, sceneId),
        ]);
        // Whichever came first, the other saw a consistent state: a cancelled operation, or none.
        if (cancelled) expect(cancelled).toMatchObject({ status: 'failed', error: { code: 'cancelled' } });
        expect(await scenes().get(org.organizationId, sceneId)).toBeNull();
      }
    });

    it('deleting a scene hides it and its operation at once and frees its externalRef', async () => {
      const created = await create(org.organizationId, { prompt: 'Soon gone', externalRef: 'svc-gone' });
      const { sceneId } = (await scenes().findByExternalRef(org.organizationId, 'svc-gone'))!;
      await scenes().delete(org.organizationId, sceneId);
      expect(await scenes().get(org.organizationId, sceneId)).toBeNull();
      expect(await suite.app.get(OperationsService).get(org.organizationId, operationIdOf(created))).toBeNull();
      expect((await create(org.organizationId, { prompt: 'Back', externalRef: 'svc-gone' })).replayed).toBe(false);
    });
  });

  describe('ImageAssetsService', () => {
    it('stores an image validated by its bytes, readable by its organization only', async () => {
      const { asset } = await suite.app.get(ImageAssetsService).upload(org.organizationId, await image('png', 64, 36));
      expect(asset).toMatchObject({ format: 'png', width: 64, height: 36 });
      expect(await suite.app.get(ImageAssetsService).get(other.organizationId, asset.imageAssetId)).toBeNull();
      const stored = await suite.app.get(ImageAssetsService).readBytes(asset.imageAssetId);
      expect(stored?.contentType).toBe('image/png');
    });

    it('refuses bytes that are not an image, whatever they claim', async () => {
      await expect(
        suite.app.get(ImageAssetsService).upload(org.organizationId, Buffer.from('GIF89a but not really')),
      ).rejects.toBeInstanceOf(DomainError);
    });
  });

  describe('EmbedSessionsService', () => {
    it('issues a session whose secret authenticates until it is revoked, and stores no secret', async () => {
      await create(org.organizationId, { prompt: 'A stage', externalRef: 'svc-embed' });
      const { sceneId } = (await scenes().findByExternalRef(org.organizationId, 'svc-embed'))!;
      const principal = { organizationId: org.organizationId, keyId: org.keyId, isTest: true };
      const session = await suite.app
        .get(EmbedSessionsService)
        .create(principal, { sceneId, origin: 'http://localhost:5173', mode: 'perform' });
      const secret = new URL(session.url).hash.slice(1);
      const found = await suite.app.get(EmbedSessionsService).authenticate(secret, null);
      expect(found.session).toMatchObject({ id: session.embedSessionId, mode: 'perform', origin: 'http://localhost:5173' });
      expect(found.session.secretHash).not.toContain(secret);

      await suite.app.get(EmbedSessionsService).revoke(org.organizationId, session.embedSessionId);
      await expect(suite.app.get(EmbedSessionsService).authenticate(secret, null)).rejects.toBeInstanceOf(DomainError);
    });
  });
});
