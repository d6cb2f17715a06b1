import { SharpImageMedia } from '@app/image-assets/media/sharp-image-media';
import { Document } from '@gltf-transform/core';
import { createGltfIO, readGlb, SPZ_CONTENT_TYPE, writeSpz } from '@scene-studio/world-engine';
import fc from 'fast-check';
import { crc32, gunzipSync, gzipSync } from 'node:zlib';
import sharp from 'sharp';
import { GeneratedScene, GenerationError, GenerationRequest, SceneArtifact, SceneGenerator, SubmitOutcome } from '../scene-generator';
import { ProviderFileScrubbing, scrubGlb, withoutGzipNames } from './provider-files';

const SECRET = 'a lighthouse for Ada Lovelace';

function pngChunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/** A PNG with a text chunk quoting SECRET after its header, as an image editor or a model might write. */
async function pngWithText(width = 32, height = 16): Promise<Buffer> {
  const png = await sharp({ create: { width, height, channels: 3, background: { r: 10, g: 120, b: 200 } } })
    .png()
    .toBuffer();
  const ihdrEnd = 8 + 12 + 13;
  return Buffer.concat([
    png.subarray(0, ihdrEnd),
    pngChunk('tEXt', Buffer.from(`Description\0${SECRET}`, 'latin1')),
    png.subarray(ihdrEnd),
  ]);
}

/** A JPEG with a comment and an EXIF description quoting SECRET, displayed turned by its orientation. */
async function jpegWithExif(orientation: number): Promise<Buffer> {
  const jpeg = await sharp({ create: { width: 40, height: 20, channels: 3, background: '#c04020' } })
    .jpeg()
    .withMetadata({ orientation })
    .withExifMerge({ IFD0: { ImageDescription: SECRET } })
    .toBuffer();
  const comment = Buffer.from(SECRET, 'latin1');
  const segment = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from([0, comment.length + 2]), comment]);
  return Buffer.concat([jpeg.subarray(0, 2), segment, jpeg.subarray(2)]);
}

/** A GLB as a provider might write one: the prompt in extras, names, the generator, and a texture with a text chunk. */
async function providerGlb(): Promise<Buffer> {
  const doc = new Document();
  doc.getRoot().getAsset().generator = `Model maker (${SECRET})`;
  doc.getRoot().getAsset().copyright = SECRET;
  doc.getRoot().setExtras({ prompt: SECRET });
  const buffer = doc.createBuffer();
  const texture = doc
    .createTexture(SECRET)
    .setImage(await pngWithText())
    .setMimeType('image/png')
    .setExtras({ prompt: SECRET });
  const material = doc.createMaterial(SECRET).setBaseColorTexture(texture).setExtras({ prompt: SECRET });
  const positions = new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0]);
  const uvs = new Float32Array([0, 0, 1, 0, 0, 1]);
  const primitive = doc
    .createPrimitive()
    .setAttribute('POSITION', doc.createAccessor(SECRET).setType('VEC3').setArray(positions).setBuffer(buffer))
    .setAttribute('TEXCOORD_0', doc.createAccessor().setType('VEC2').setArray(uvs).setBuffer(buffer))
    .setMaterial(material);
  const node = doc.createNode(SECRET).setMesh(doc.createMesh(SECRET).addPrimitive(primitive)).setExtras({ prompt: SECRET });
  doc.createScene(SECRET).addChild(node);
  return Buffer.from(await createGltfIO().writeBinary(doc));
}

const request: GenerationRequest = {
  sceneId: 'scn_01JD3Z8Q4W6K2M9T5X7B1C0VHE',
  version: 1,
  prompt: SECRET,
  source: null,
  edit: null,
  idempotencyKey: 'op_01JD3Z8Q4W6K2M9T5X7B1C0VHE',
};

class FilesOf extends SceneGenerator {
  readonly name = 'files';
  constructor(private readonly artifacts: SceneArtifact[]) {
    super();
  }
  submit(): Promise<SubmitOutcome> {
    return Promise.resolve({ job: { id: 'job-1' } });
  }
  override fetch(): Promise<GeneratedScene> {
    return Promise.resolve({ spec: { schemaVersion: 1 } as never, artifacts: this.artifacts });
  }
}

const latin1 = (b: Buffer) => b.toString('latin1');

describe(ProviderFileScrubbing.name, () => {
  const media = new SharpImageMedia();

  it('stores images, GLBs and splats without a word the provider wrote about them', async () => {
    const glb = await providerGlb();
    const spz = gzipSync(
      gunzipSync(writeSpz([{ position: [0, 0, 0], opacity: 1, color: [1, 0, 0], scale: [0.1, 0.1, 0.1], rotation: [0, 0, 0, 1] }])),
    );
    // A gzip header naming the file, as `gzip file.spz` writes it.
    const named = Buffer.concat([
      Buffer.from([0x1f, 0x8b, 8, 0x08, 1, 2, 3, 4, 0, 3]),
      Buffer.from(`${SECRET}.spz\0`, 'latin1'),
      spz.subarray(10),
    ]);
    const inner: SceneArtifact[] = [
      { kind: 'panorama', contentType: 'image/png', bytes: await pngWithText(64, 32) },
      { kind: 'thumbnail', contentType: 'image/jpeg', bytes: await jpegWithExif(6) },
      { kind: 'collider', contentType: 'model/gltf-binary', bytes: glb },
      { kind: 'splat', contentType: SPZ_CONTENT_TYPE, bytes: named },
    ];
    for (const a of inner) expect(latin1(a.bytes)).toContain(SECRET);
    const sut = new ProviderFileScrubbing(new FilesOf(inner), media, 64 * 1024 * 1024);

    const { artifacts } = await sut.fetch({ id: 'job-1' }, request);
    expect(artifacts.map((a) => [a.kind, a.contentType])).toEqual([
      ['panorama', 'image/png'],
      ['thumbnail', 'image/jpeg'],
      ['collider', 'model/gltf-binary'],
      ['splat', SPZ_CONTENT_TYPE],
    ]);
    for (const a of artifacts) expect(latin1(a.bytes)).not.toContain(SECRET);

    // The pictures are the same pictures, the thumbnail turned upright by its orientation.
    expect(await sharp(artifacts[0].bytes).metadata()).toMatchObject({ width: 64, height: 32 });
    expect(await sharp(artifacts[1].bytes).metadata()).toMatchObject({ width: 20, height: 40 });
    expect((await sharp(artifacts[1].bytes).metadata()).exif).toBeUndefined();

    // The GLB draws the same: its geometry and texture are there, its bytes in place.
    const doc = await readGlb(artifacts[2].bytes);
    const root = doc.getRoot();
    expect(root.listMeshes()[0].listPrimitives()[0].getAttribute('POSITION')!.getArray()).toEqual(
      new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0]),
    );
    const texture = Buffer.from(root.listTextures()[0].getImage()!);
    expect(await sharp(texture).metadata()).toMatchObject({ format: 'png', width: 32, height: 16 });
    expect(root.getExtras()).toEqual({});
    for (const node of root.listNodes()) expect(node.getName()).toBe('');
    expect(artifacts[2].bytes.length % 4).toBe(0);

    // The splat inflates to the same data.
    expect(gunzipSync(artifacts[3].bytes).equals(gunzipSync(named))).toBe(true);
  });

  it('fails the generation, in its own words, on a file whose structure it cannot walk', async () => {
    const glb = await providerGlb();
    const json = JSON.parse(latin1(glb.subarray(20, 20 + glb.readUInt32LE(12))));
    // A texture in a format the walkers do not know (bytes that are no image).
    const sut = (bytes: Buffer, kind: SceneArtifact['kind'] = 'mesh') =>
      new ProviderFileScrubbing(new FilesOf([{ kind, contentType: 'model/gltf-binary', bytes }]), media, 1 << 26).fetch(
        { id: 'j' },
        request,
      );
    const view = json.bufferViews[json.images[0].bufferView];
    const broken = Buffer.from(glb);
    broken.fill(0x41, 28 + glb.readUInt32LE(12) + (view.byteOffset ?? 0), 28 + glb.readUInt32LE(12) + (view.byteOffset ?? 0) + 8);
    for (const bytes of [broken, Buffer.from(`glTF${SECRET}`)]) {
      const error = await sut(bytes).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(GenerationError);
      expect(error).toMatchObject({ code: 'generation_failed', retryable: false });
      expect(`${(error as Error).message} ${((error as Error).cause as Error).message}`).not.toContain(SECRET);
    }
    const notImage = await new ProviderFileScrubbing(
      new FilesOf([{ kind: 'thumbnail', contentType: 'image/png', bytes: Buffer.from(SECRET) }]),
      media,
      1 << 26,
    )
      .fetch({ id: 'j' }, request)
      .catch((e: unknown) => e);
    expect(notImage).toMatchObject({ code: 'generation_failed' });
  });
});

describe(scrubGlb.name, () => {
  it('keeps extensions it does not know, and drops XMP ones', async () => {
    const glb = await providerGlb();
    const length = glb.readUInt32LE(12);
    const json = JSON.parse(latin1(glb.subarray(20, 20 + length)));
    json.extensionsUsed = ['KHR_xmp_json_ld', 'VENDOR_thing'];
    json.extensions = { KHR_xmp_json_ld: { packets: [{ 'dc:title': SECRET }] }, VENDOR_thing: { level: 3 } };
    json.nodes[0].extensions = { KHR_xmp_json_ld: { packet: 0 } };
    let text = Buffer.from(JSON.stringify(json));
    text = Buffer.concat([text, Buffer.alloc((4 - (text.length % 4)) % 4, 0x20)]);
    const bin = glb.subarray(20 + length);
    const rebuilt = Buffer.concat([glb.subarray(0, 12), Buffer.alloc(8), text, bin]);
    rebuilt.writeUInt32LE(rebuilt.length, 8);
    rebuilt.writeUInt32LE(text.length, 12);
    rebuilt.writeUInt32LE(0x4e4f534a, 16);

    const out = await scrubGlb('mesh', rebuilt);
    const scrubbed = JSON.parse(latin1(out.subarray(20, 20 + out.readUInt32LE(12))));
    expect(scrubbed.extensionsUsed).toEqual(['VENDOR_thing']);
    expect(scrubbed.extensions).toEqual({ VENDOR_thing: { level: 3 } });
    expect(scrubbed.nodes[0].extensions).toBeUndefined();
    expect(scrubbed.asset).toEqual({ version: '2.0' });
    expect(latin1(out)).not.toContain(SECRET);
  });
});

/** A GLB whose JSON chunk is `json` (padded), with `bin` as its binary chunk. */
function glbOf(json: string, bin: Buffer | null): Buffer {
  let text = Buffer.from(json, 'utf8');
  text = Buffer.concat([text, Buffer.alloc((4 - (text.length % 4)) % 4, 0x20)]);
  const head = Buffer.alloc(20);
  head.writeUInt32LE(0x46546c67, 0);
  head.writeUInt32LE(2, 4);
  head.writeUInt32LE(text.length, 12);
  head.writeUInt32LE(0x4e4f534a, 16);
  const chunks: Buffer[] = [head, text];
  if (bin) {
    const binHead = Buffer.alloc(8);
    binHead.writeUInt32LE(bin.length, 0);
    binHead.writeUInt32LE(0x004e4942, 4);
    chunks.push(binHead, bin);
  }
  const out = Buffer.concat(chunks);
  out.writeUInt32LE(out.length, 8);
  return out;
}

describe(`${scrubGlb.name} on hostile files`, () => {
  let glb: Buffer;
  beforeAll(async () => {
    glb = await providerGlb();
  });

  /** Either a GLB that still reads, or our own refusal: never another exception, never a hang. */
  async function judged(bytes: Buffer): Promise<void> {
    let out: Buffer;
    try {
      out = await scrubGlb('mesh', bytes);
    } catch (e) {
      expect(e).toBeInstanceOf(GenerationError);
      expect(e).toMatchObject({ code: 'generation_failed', retryable: false });
      return;
    }
    expect(out.readUInt32LE(8)).toBe(out.length);
    expect(latin1(out.subarray(20, 20 + out.readUInt32LE(12)))).not.toContain('"extras"');
  }

  it.each([20260601, 20260602, 20260603])('keeps to its answers under byte mutations (seed %i)', async (seed) => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 12 }),
        fc.option(fc.nat(), { nil: null }),
        async (flips, cut) => {
          const bytes = Buffer.from(glb);
          for (const [at, value] of flips) bytes[at % bytes.length] = value;
          await judged(cut === null ? bytes : bytes.subarray(0, cut % bytes.length));
        },
      ),
      { seed, numRuns: 300 },
    );
  });

  it('refuses JSON nested past any glTF structure at once, without recursion', async () => {
    const depth = 200_000;
    const nested = `{"asset":{"version":"2.0"},"scenes":[{"extensions":{"VENDOR_x":${'['.repeat(depth)}${']'.repeat(depth)}}}]}`;
    const started = performance.now();
    await judged(glbOf(nested, null));
    await expect(scrubGlb('mesh', glbOf(nested, null))).rejects.toThrow(GenerationError);
    // Deep nesting inside extras is dropped with them, never walked.
    const inExtras = `{"asset":{"version":"2.0"},"extras":${'['.repeat(depth)}${']'.repeat(depth)},"scenes":[{}]}`;
    const out = await scrubGlb('mesh', glbOf(inExtras, null));
    expect(JSON.parse(latin1(out.subarray(20, 20 + out.readUInt32LE(12))))).toEqual({ asset: { version: '2.0' }, scenes: [{}] });
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});

describe(withoutGzipNames.name, () => {
  it('leaves a gzip stream without optional fields as it is', () => {
    const plain = gzipSync(Buffer.from('splats'));
    plain.writeUInt32LE(0, 4);
    expect(withoutGzipNames(plain)).toBe(plain);
  });

  it('never throws on arbitrary bytes behind a gzip signature', () => {
    for (const seed of [1, 2, 3]) {
      fc.assert(
        fc.property(fc.uint8Array({ minLength: 0, maxLength: 64 }), (tail) => {
          const bytes = Buffer.concat([Buffer.from([0x1f, 0x8b, 8]), Buffer.from(tail)]);
          expect(Buffer.isBuffer(withoutGzipNames(bytes))).toBe(true);
        }),
        { seed, numRuns: 500 },
      );
    }
  });

  it('drops the name, comment, extra field and header checksum', () => {
    const body = gzipSync(Buffer.from('splat data')).subarray(10);
    const extra = Buffer.from([4, 0, 0x41, 0x42, 0, 0]);
    const header = Buffer.from([0x1f, 0x8b, 8, 0x02 | 0x04 | 0x08 | 0x10, 9, 9, 9, 9, 0, 3]);
    const fields = Buffer.concat([extra, Buffer.from(`${SECRET}\0`), Buffer.from(`${SECRET} comment\0`), Buffer.from([0x12, 0x34])]);
    const out = withoutGzipNames(Buffer.concat([header, fields, body]));
    expect(latin1(out)).not.toContain(SECRET);
    expect(gunzipSync(out).toString()).toBe('splat data');
    expect([...out.subarray(0, 10)]).toEqual([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);
  });
});
