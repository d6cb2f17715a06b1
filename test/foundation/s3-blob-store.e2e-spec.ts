import { DeleteObjectCommand, GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScenePurge } from '@app/operations';
import { DataSource } from 'typeorm';
import { createEmbedSession, parseEmbedUrl, readyScene } from '../factories/embed.factory';
import { image } from '../factories/images';
import { LocalS3, startLocalS3 } from '../support/s3-server';
import { setUpSuite } from '../support/suite';

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/**
 * BLOB_STORE=s3 against a local S3-protocol server (s3rver, a stand-in for AWS S3, MinIO or R2):
 * uploads land in the bucket and not in the `blobs` table, the worker reads the source image and
 * writes a scene's files there, the studio streams them back byte for byte, and deleting the
 * scene deletes its objects (with the purge that follows the deletion).
 */
describe('object storage (BLOB_STORE=s3)', () => {
  let dir: string;
  let s3: LocalS3;
  let client: S3Client;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ss-s3-'));
    chmodSync(dir, 0o755);
    s3 = await startLocalS3(dir);
    client = new S3Client({
      endpoint: s3.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: s3.config.S3_ACCESS_KEY_ID, secretAccessKey: s3.config.S3_SECRET_ACCESS_KEY },
    });
  });

  const suite = setUpSuite(() => ({
    api: { config: { ...s3.config, S3_KEY_PREFIX: 'tenant-a/' } },
    studio: { config: { ...s3.config, S3_KEY_PREFIX: 'tenant-a/' } },
    worker: { config: { ...s3.config, S3_KEY_PREFIX: 'tenant-a/' } },
  }));

  afterAll(async () => {
    client?.destroy();
    await s3?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const keys = async () => ((await client.send(new ListObjectsV2Command({ Bucket: s3.bucket }))).Contents ?? []).map((o) => o.Key!).sort();

  const blobRows = async () => (await suite.api.app.get(DataSource).query('SELECT count(*)::int AS n FROM blobs'))[0].n;

  it('stores an upload in the bucket under the key prefix, not in PostgreSQL', async () => {
    const bytes = await image('png', 1920, 1080);
    const res = await suite.api
      .http()
      .post('/v1/image-assets')
      .set(suite.org.auth)
      .attach('file', bytes, { filename: 'a.png', contentType: 'image/png' });
    expect(res.status).toBe(201);
    const key = `tenant-a/image-assets/${res.body.imageAssetId}`;
    expect(await keys()).toContain(key);
    const stored = await client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: key }));
    expect(stored.ContentType).toBe('image/png');
    expect(sha256(Buffer.from(await stored.Body!.transformToByteArray()))).toBe(res.body.sha256);
    expect(await blobRows()).toBe(0);
  });

  it('generates from a source image in the bucket, streams the files to the studio, and deletes them with the scene', async () => {
    const source = await image('jpeg', 1920, 1080);
    const upload = await suite.api
      .http()
      .post('/v1/image-assets')
      .set(suite.org.auth)
      .attach('file', source, { filename: 's.jpg', contentType: 'image/jpeg' });
    expect(upload.status).toBe(201);
    const sceneId = await readyScene(suite.api, suite.org, { prompt: 'A harbour at dawn', sourceAssetId: upload.body.imageAssetId });
    const sceneKeys = (await keys()).filter((k) => k.startsWith(`tenant-a/scenes/${sceneId}/`));
    expect(sceneKeys.length).toBeGreaterThan(0);

    const session = await createEmbedSession(suite.api, suite.org, { sceneId, origin: 'http://localhost:5173', mode: 'edit' });
    const bearer = { Authorization: `Bearer ${parseEmbedUrl(session.body.url).secret}` };
    const list = await suite.studio.http().get('/studio-api/v1/scene/versions/1/artifacts').set(bearer);
    expect(list.status).toBe(200);
    for (const a of list.body.artifacts as { kind: string; bytes: number; sha256: string; contentType: string }[]) {
      const res = await suite.studio
        .http()
        .get(`/studio-api/v1/scene/versions/1/artifacts/${a.kind}`)
        .set(bearer)
        .buffer(true)
        .parse((r, done) => {
          const chunks: Buffer[] = [];
          r.on('data', (c: Buffer) => chunks.push(c));
          r.on('end', () => done(null, Buffer.concat(chunks)));
        });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe(a.contentType);
      expect(Number(res.headers['content-length'])).toBe(a.bytes);
      expect(sha256(res.body as Buffer)).toBe(a.sha256);
    }
    const glb = await suite.studio.http().get('/studio-api/v1/scene/versions/1/scene.glb').set(bearer).buffer(true);
    expect(glb.status).toBe(200);
    const image2 = await suite.studio.http().get('/studio-api/v1/source-image').set(bearer).buffer(true);
    expect(image2.status).toBe(200);
    expect(image2.headers['content-type']).toBe('image/jpeg');

    expect((await suite.api.http().delete(`/v1/scenes/${sceneId}`).set(suite.org.auth)).status).toBe(204);
    await suite.worker.get(ScenePurge).purgeDeleted();
    expect((await keys()).filter((k) => k.startsWith(`tenant-a/scenes/${sceneId}/`))).toEqual([]);
    // Its source image too: no other scene named it.
    expect(await keys()).not.toContain(`tenant-a/image-assets/${upload.body.imageAssetId}`);
    expect(await blobRows()).toBe(0);
  });

  it('a file missing from the bucket is 404 not_found, with nothing of the store in the body', async () => {
    const sceneId = await readyScene(suite.api, suite.org, { prompt: 'A small courtyard' });
    const session = await createEmbedSession(suite.api, suite.org, { sceneId, origin: 'http://localhost:5173', mode: 'perform' });
    const bearer = { Authorization: `Bearer ${parseEmbedUrl(session.body.url).secret}` };
    for (const key of (await keys()).filter((k) => k.startsWith(`tenant-a/scenes/${sceneId}/`))) {
      await client.send(new DeleteObjectCommand({ Bucket: s3.bucket, Key: key }));
    }
    const res = await suite.studio.http().get('/studio-api/v1/scene/versions/1/scene.glb').set(bearer);
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('not_found');
    expect(JSON.stringify(res.body)).not.toMatch(/s3|bucket|127\.0\.0\.1|NoSuchKey/i);
  });
});
