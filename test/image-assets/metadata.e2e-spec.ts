import { ProceduralSceneGenerator } from '@app/generation';
import { ImageAssetsService } from '@app/image-assets';
import { SharpImageMedia } from '@app/image-assets/media/sharp-image-media';
import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { CRAFTED_MARKER, craftedImages, CraftedImage } from '../factories/crafted-images';
import { createEmbedSession, parseEmbedUrl } from '../factories/embed.factory';
import { METADATA_MARKER, PHOTO_SQUARE, PhotoWithMetadataOptions, photoWithMetadata } from '../factories/images';
import { createOrganization, TestOrganization } from '../factories/organization.factory';
import { awaitOperation, createScene } from '../factories/scene.factory';
import { FakeGenerationProvider } from '../support/fake-generation-provider';
import { MeshyFake } from '../support/fakes/meshy-fake';
import { FakeWorldLabs } from '../support/fakes/worldlabs-fake';
import { expectProblem } from '../support/problems';
import { setUpSuite, Suite } from '../support/suite';
import { binaryBody } from '../support/binary-body';

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/**
 * docs/api.md, "Metadata" under `POST /v1/image-assets`: the bytes stored for an upload, served by the studio and
 * sent to a provider carry no EXIF (GPS above all), XMP, IPTC or comments; the orientation is in
 * the pixels, the ICC profile kept; `sha256` is the uploaded bytes' and `width`/`height` the
 * upright image's. Photos full of metadata (test/factories/images.ts) go the whole way: upload,
 * scene, the studio's source image and what Marble's and Meshy's fakes receive.
 */

type Kind = 'jpeg' | 'png' | 'webp';
interface Case {
  name: string;
  kind: Kind;
  options: PhotoWithMetadataOptions;
  /** Whether the stored pixels must equal the upright original's exactly (nothing lossy on the way). */
  exact: boolean;
}

/** Stored sizes are before the orientation; each displays 1280×720, usable as a scene source. */
const CASES: Case[] = [
  {
    name: 'a JPEG turned by EXIF orientation 6 (re-encoded)',
    kind: 'jpeg',
    options: { width: 720, height: 1280, orientation: 6 },
    exact: false,
  },
  { name: 'an upright JPEG (segments removed, not re-encoded)', kind: 'jpeg', options: { width: 1280, height: 720 }, exact: true },
  { name: 'an upright PNG (chunks removed)', kind: 'png', options: { width: 1280, height: 720 }, exact: true },
  {
    name: 'a PNG turned by eXIf orientation 8 (re-encoded losslessly)',
    kind: 'png',
    options: { width: 720, height: 1280, orientation: 8 },
    exact: true,
  },
  { name: 'an upright lossy WebP (chunks removed)', kind: 'webp', options: { width: 1280, height: 720 }, exact: true },
  {
    name: 'a lossless WebP turned by orientation 6 (re-encoded losslessly)',
    kind: 'webp',
    options: { width: 720, height: 1280, orientation: 6, lossless: true },
    exact: true,
  },
  {
    name: 'a lossy WebP turned by orientation 3 (re-encoded)',
    kind: 'webp',
    options: { width: 1280, height: 720, orientation: 3 },
    exact: false,
  },
];

/** No trace of metadata, read by sharp and by a scan of the bytes. */
async function expectNoMetadata(bytes: Buffer): Promise<void> {
  const meta = await sharp(bytes).metadata();
  expect({ exif: meta.exif, xmp: meta.xmp, iptc: meta.iptc, comments: meta.comments, orientation: meta.orientation }).toEqual({
    exif: undefined,
    xmp: undefined,
    iptc: undefined,
    comments: undefined,
    orientation: undefined,
  });
  const text = bytes.toString('latin1');
  const traces = [
    METADATA_MARKER,
    'Exif\0\0',
    'http://ns.adobe.com/xap',
    'adobe:ns:meta',
    'Photoshop 3.0',
    '8BIM',
    'MPF\0',
    // TIFF headers: what EXIF (and its GPS IFD) is written in, in PNG and WebP without a prefix.
    'MM\0*',
    'II*\0',
    'eXIf',
    'tEXt',
    'zTXt',
    'iTXt',
    'tIME',
    'EXIF',
    'XMP ',
  ];
  for (const trace of traces) expect({ trace, found: text.includes(trace) }).toEqual({ trace, found: false });
}

async function rgbAt(bytes: Buffer, left: number, top: number): Promise<number[]> {
  return [...(await sharp(bytes).extract({ left, top, width: 1, height: 1 }).removeAlpha().raw().toBuffer())];
}

/**
 * What the stored copy must be, against the uploaded photo: its format, upright 1280×720 with
 * the red square where the orientation puts it, the same ICC profile, its pixels those of the
 * upright original (exactly, or within a visually lossless margin), and no metadata.
 */
async function expectStoredCopyOf(original: Buffer, c: Case, stored: Buffer): Promise<void> {
  await expectNoMetadata(stored);
  const [meta, originalMeta] = await Promise.all([sharp(stored).metadata(), sharp(original).metadata()]);
  expect({ format: meta.format, width: meta.width, height: meta.height }).toEqual({ format: c.kind, width: 1280, height: 720 });
  expect(meta.icc).toBeDefined();
  expect(meta.icc!.equals(originalMeta.icc!)).toBe(true);

  // Where the stored top-left corner of the original goes once upright (EXIF orientation).
  const corner: Record<number, [number, number]> = { 1: [0, 0], 3: [1279, 719], 6: [1279, 0], 8: [0, 719] };
  const [x, y] = corner[c.options.orientation ?? 1];
  const inSquare = [Math.abs(x - PHOTO_SQUARE / 2), Math.abs(y - PHOTO_SQUARE / 2)];
  const [r, g, b] = await rgbAt(stored, inSquare[0], inSquare[1]);
  expect(r).toBeGreaterThan(150);
  expect(Math.max(g, b)).toBeLessThan(100);
  const [r2, , b2] = await rgbAt(stored, 1279 - inSquare[0], 719 - inSquare[1]);
  expect(b2).toBeGreaterThan(150);
  expect(r2).toBeLessThan(100);

  const [upright, mine] = await Promise.all([sharp(original).autoOrient().raw().toBuffer(), sharp(stored).raw().toBuffer()]);
  expect(mine.length).toBe(upright.length);
  if (c.exact) expect(mine.equals(upright)).toBe(true);
  else {
    let sum = 0;
    for (let i = 0; i < mine.length; i++) sum += Math.abs(mine[i] - upright[i]);
    expect(sum / mine.length).toBeLessThan(1.5);
  }
}

async function uploadPhoto(suite: Suite, org: TestOrganization, bytes: Buffer, kind: Kind) {
  const res = await suite.api
    .http()
    .post('/v1/image-assets')
    .set(org.auth)
    .attach('file', bytes, { filename: `photo.${kind}`, contentType: `image/${kind}` });
  expect(res.status).toBe(201);
  expect(res.body).toMatchObject({
    format: kind,
    width: 1280,
    height: 720,
    sizeBytes: bytes.length,
    sha256: sha256(bytes),
    usableAsSceneSource: true,
  });
  return res.body.imageAssetId as string;
}

/** The scene's source image as the studio serves it to an edit session. */
async function studioSourceImage(suite: Suite, sceneId: string): Promise<{ contentType: string; bytes: Buffer }> {
  const session = await createEmbedSession(suite.api, suite.org, { sceneId, origin: 'http://localhost:5173', mode: 'edit' });
  expect(session.status).toBe(201);
  const res = await suite.studio
    .http()
    .get('/studio-api/v1/source-image')
    .set({ Authorization: `Bearer ${parseEmbedUrl(session.body.url).secret}` })
    .buffer(true)
    .parse(binaryBody);
  expect(res.status).toBe(200);
  return { contentType: res.headers['content-type'], bytes: res.body as Buffer };
}

async function sceneFrom(suite: Suite, assetId: string, prompt: string): Promise<string> {
  const created = await createScene(suite.api, suite.org, { prompt, sourceAssetId: assetId });
  expect(created.status).toBe(202);
  const done = await awaitOperation(suite.api, suite.org, created.body.operationId, 30_000);
  expect(done.body).toMatchObject({ status: 'succeeded' });
  return done.body.sceneId as string;
}

describe('image metadata, from upload to the studio and Marble', () => {
  let worldLabs: FakeWorldLabs;
  beforeAll(async () => {
    worldLabs = await FakeWorldLabs.start({ jobDurationMs: 300 });
  });
  afterAll(async () => {
    await worldLabs?.close();
  });

  const suite = setUpSuite(() => ({
    studio: {},
    worker: {
      config: worldLabs.workerConfig(),
    },
  }));

  it.each(CASES)('$name', async (c) => {
    const original = await photoWithMetadata(c.kind, c.options);
    const assetId = await uploadPhoto(suite, suite.org, original, c.kind);
    const uploadsBefore = worldLabs.uploadedFiles.length;
    const sceneId = await sceneFrom(suite, assetId, `a world from ${c.name}`);

    const served = await studioSourceImage(suite, sceneId);
    expect(served.contentType).toBe(`image/${c.kind}`);
    await expectStoredCopyOf(original, c, served.bytes);

    const sent = worldLabs.uploadedFiles.slice(uploadsBefore);
    expect(sent).toHaveLength(1);
    expect(sent[0].contentType).toBe(`image/${c.kind}`);
    expect(sent[0].bytes.equals(served.bytes)).toBe(true);
  });

  it('a JPEG without orientation keeps its compressed image data byte for byte', async () => {
    const original = await photoWithMetadata('jpeg', { width: 1280, height: 720 });
    const assetId = await uploadPhoto(suite, suite.org, original, 'jpeg');
    const stored = (await suite.api.app.get(ImageAssetsService).readBytes(assetId))!.bytes;
    // Everything from the quantisation tables to EOI is the uploaded file's; only the metadata
    // segments before them (and the image appended after EOI) are gone.
    const tables = original.indexOf(Buffer.from([0xff, 0xdb]));
    const eoi = original.indexOf(Buffer.from([0xff, 0xd9]), tables) + 2;
    expect(stored.subarray(stored.indexOf(Buffer.from([0xff, 0xdb])))).toEqual(original.subarray(tables, eoi));
    expect(stored.length).toBeLessThan(original.length);
  });

  it('counts the bytes stored in the usage, and sha256 and sizeBytes stay those of the upload', async () => {
    const org = await createOrganization(suite.api.app);
    const original = await photoWithMetadata('png', { width: 1280, height: 720 });
    const assetId = await uploadPhoto(suite, org, original, 'png');
    const stored = (await suite.api.app.get(ImageAssetsService).readBytes(assetId))!.bytes;
    expect(stored.length).toBeLessThan(original.length);
    const usage = await suite.api.http().get('/v1/usage').set(org.auth);
    expect(usage.status).toBe(200);
    expect(usage.body.totals.storedBytes).toBe(stored.length);
    const got = await suite.api.http().get(`/v1/image-assets/${assetId}`).set(org.auth);
    expect(got.body).toMatchObject({ sizeBytes: original.length, sha256: sha256(original) });
  });

  it('a file whose structure cannot be walked is 422 image_corrupt, naming nothing of ours', async () => {
    // A progressive JPEG cut inside the header of its second scan: its header reads, and a
    // decoder would show the first scan, but its segments cannot be walked to their end.
    const progressive = await sharp({
      create: { width: 320, height: 180, channels: 3, background: '#000', noise: { type: 'gaussian', mean: 128, sigma: 30 } },
    })
      .jpeg({ progressive: true })
      .toBuffer();
    const secondScan = progressive.indexOf(Buffer.from([0xff, 0xda]), progressive.indexOf(Buffer.from([0xff, 0xda])) + 2);
    const cut = progressive.subarray(0, secondScan + 3);
    const res = await suite.api
      .http()
      .post('/v1/image-assets')
      .set(suite.org.auth)
      .attach('file', cut, { filename: 'cut.jpg', contentType: 'image/jpeg' });
    expectProblem(res, 422, 'image_corrupt');
    expect(res.body.detail).toBe('The image data is damaged or truncated and cannot be decoded.');
    expect(JSON.stringify(res.body)).not.toMatch(/segment|marker|SOS|EOI|strip/i);
  });
});

describe('image metadata, to Meshy', () => {
  let meshy: MeshyFake;
  beforeAll(async () => {
    meshy = await MeshyFake.start();
    meshy.pendingMs = 0;
    meshy.taskDurationMs = 300;
  });
  afterAll(async () => {
    await meshy?.close();
  });

  const suite = setUpSuite(() => ({
    studio: {},
    worker: {
      config: meshy.workerConfig(),
    },
  }));

  /** The data URI of the image-to-3d task created after `before` requests. */
  function sentImage(before: number): { mimeType: string; bytes: Buffer } {
    const creates = meshy.requests.slice(before).filter((r) => r.method === 'POST' && r.path.startsWith('/openapi/v1/image-to-3d'));
    expect(creates).toHaveLength(1);
    const uri = (creates[0].body as { image_url: string }).image_url;
    const [, mimeType, data] = /^data:([^;]+);base64,(.*)$/.exec(uri)!;
    return { mimeType, bytes: Buffer.from(data, 'base64') };
  }

  it.each(CASES.filter((c) => c.kind !== 'webp'))('$name: the data URI is the stored copy', async (c) => {
    const original = await photoWithMetadata(c.kind, c.options);
    const assetId = await uploadPhoto(suite, suite.org, original, c.kind);
    const before = meshy.requests.length;
    const sceneId = await sceneFrom(suite, assetId, `a model from ${c.name}`);
    const sent = sentImage(before);
    expect(sent.mimeType).toBe(`image/${c.kind}`);
    await expectStoredCopyOf(original, c, sent.bytes);
    expect(sent.bytes.equals((await studioSourceImage(suite, sceneId)).bytes)).toBe(true);
  });

  it('a WebP, which Meshy does not read, goes as a JPEG in sRGB without metadata, upright', async () => {
    const original = await photoWithMetadata('webp', { width: 720, height: 1280, orientation: 6 });
    const assetId = await uploadPhoto(suite, suite.org, original, 'webp');
    const before = meshy.requests.length;
    await sceneFrom(suite, assetId, 'a model from a WebP');
    const sent = sentImage(before);
    expect(sent.mimeType).toBe('image/jpeg');
    await expectNoMetadata(sent.bytes);
    const meta = await sharp(sent.bytes).metadata();
    // Converted to sRGB (what Meshy assumes) rather than tagged: no profile to keep.
    expect({ width: meta.width, height: meta.height, space: meta.space, icc: meta.icc }).toEqual({
      width: 1280,
      height: 720,
      space: 'srgb',
      icc: undefined,
    });
    const [r, g, b] = await rgbAt(sent.bytes, 1279 - PHOTO_SQUARE / 2, PHOTO_SQUARE / 2);
    expect(r).toBeGreaterThan(150);
    expect(Math.max(g, b)).toBeLessThan(100);
  });
});

describe('image metadata, to a provider of the generation protocol', () => {
  let provider: FakeGenerationProvider;
  beforeAll(async () => {
    provider = await FakeGenerationProvider.start(new ProceduralSceneGenerator(new SharpImageMedia()));
  });
  afterAll(async () => {
    await provider?.close();
  });

  const suite = setUpSuite(() => ({
    studio: {},
    worker: {
      config: {
        GENERATOR: 'http',
        GENERATION_PROVIDER_URL: provider.url,
        GENERATION_PROVIDER_API_KEY: 'pk_fake',
        GENERATION_POLL_INTERVAL_MS: '50',
        GENERATION_POLL_MAX_MS: '200',
      },
    },
  }));

  it('sourceImage is the stored copy, and its sha256 the digest of those bytes, not of the upload', async () => {
    const c = CASES[0];
    const original = await photoWithMetadata(c.kind, c.options);
    const assetId = await uploadPhoto(suite, suite.org, original, c.kind);
    const sceneId = await sceneFrom(suite, assetId, 'a world from a sideways phone photo');
    const submit = provider.requests.find((r) => r.method === 'POST' && (r.body as { sceneId?: string }).sceneId === sceneId);
    const image = (submit!.body as { sourceImage: { format: string; width: number; height: number; sha256: string; dataBase64: string } })
      .sourceImage;
    const bytes = Buffer.from(image.dataBase64, 'base64');
    expect({ format: image.format, width: image.width, height: image.height }).toEqual({ format: 'jpeg', width: 1280, height: 720 });
    expect(image.sha256).toBe(sha256(bytes));
    expect(image.sha256).not.toBe(sha256(original));
    await expectStoredCopyOf(original, c, bytes);
    expect(bytes.equals((await studioSourceImage(suite, sceneId)).bytes)).toBe(true);
  });
});

/**
 * Files crafted to smuggle bytes past the walkers or to break them (issue 34, items 3 and 4):
 * each is stored without a byte of its planted text, and with no metadata, or refused as
 * `image_corrupt`; none is a 500.
 */
describe('image metadata, crafted files', () => {
  const suite = setUpSuite({});
  let crafted: CraftedImage[];
  beforeAll(async () => {
    crafted = await craftedImages();
  });

  it('every crafted shape is stored without what was planted in it, or refused as image_corrupt', async () => {
    for (const c of crafted) {
      const res = await suite.api
        .http()
        .post('/v1/image-assets')
        .set(suite.org.auth)
        .attach('file', c.bytes, { filename: `crafted.${c.kind}`, contentType: `image/${c.kind}` });
      if (c.expect === 422) {
        expect({ name: c.name, status: res.status, code: res.body.code }).toEqual({ name: c.name, status: 422, code: 'image_corrupt' });
        continue;
      }
      expect({ name: c.name, status: res.status }).toEqual({ name: c.name, status: 201 });
      expect(res.body).toMatchObject({ format: c.kind, sizeBytes: c.bytes.length, sha256: sha256(c.bytes) });
      const stored = (await suite.api.app.get(ImageAssetsService).readBytes(res.body.imageAssetId))!.bytes;
      expect({ name: c.name, planted: stored.includes(CRAFTED_MARKER) }).toEqual({ name: c.name, planted: false });
      await expectNoMetadata(stored);
      const meta = await sharp(stored).metadata();
      expect({ width: meta.width, height: meta.height }).toEqual({ width: res.body.width, height: res.body.height });
    }
  });

  it('an animated WebP of frames nested 100 000 deep with EXIF orientation 6 is turned upright, not a 500', async () => {
    const nested = crafted.find((c) => c.name.includes('nested 100 000 deep'))!;
    expect(nested.bytes.length).toBeGreaterThan(2.2 * 1024 * 1024);
    const res = await suite.api
      .http()
      .post('/v1/image-assets')
      .set(suite.org.auth)
      .attach('file', nested.bytes, { filename: 'nested.webp', contentType: 'image/webp' });
    expect(res.status).toBe(201);
    const stored = (await suite.api.app.get(ImageAssetsService).readBytes(res.body.imageAssetId))!.bytes;
    // Re-encoded upright (lossless, as its first frame was): one frame, no EXIF, no nest.
    const meta = await sharp(stored).metadata();
    expect({ format: meta.format, pages: meta.pages, orientation: meta.orientation, exif: meta.exif }).toEqual({
      format: 'webp',
      pages: undefined,
      orientation: undefined,
      exif: undefined,
    });
    expect(stored.length).toBeLessThan(4096);
  });
});
