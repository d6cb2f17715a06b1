import { ImageMedia, metadataFreeEmbeddedImage, metadataFreeImage } from '@app/image-assets';
import { checkArtifact } from './artifacts';
import { FinishedSceneTransform, GeneratedScene, GenerationError, SceneArtifact, SceneGenerator } from '../scene-generator';

const IMAGE_TYPES = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp' } as const;

/**
 * A provider's files as we store them: what they draw, and nothing a provider wrote about them.
 * Every studio mode is served the files, and a perform session never learns how the scene was
 * asked for (docs/embed.md, "What each mode receives"), while a provider is free to write the
 * prompt into a file: an image's EXIF or text chunk, a glTF's `extras`, names or `generator`.
 *
 * - Panoramas and thumbnails go through the same metadata walkers and re-encode as an upload
 *   (image-assets, `metadataFreeImage`): no EXIF, XMP, IPTC, comments or text chunks, the ICC
 *   profile kept, the orientation in the pixels.
 * - GLBs (mesh, collider) lose `extras` everywhere, the names of core objects (nodes, meshes,
 *   materials…), the asset's `generator` and `copyright`, XMP extensions (`KHR_xmp_json_ld`) and
 *   chunks after the binary one; their embedded textures go through the walkers. The JSON chunk is
 *   rewritten and the binary one kept byte for byte (a texture's bytes shrink in place), so
 *   geometry and every extension we do not know survive, as a round trip through a glTF library
 *   would not guarantee.
 * - SPZ splats compressed with gzip lose the gzip header's file name, comment and time.
 *
 * A file whose structure cannot be walked fails the generation, as any file that is not what it
 * should be (`generation_failed`).
 */
export class ProviderFileScrubbing extends FinishedSceneTransform {
  constructor(
    inner: SceneGenerator,
    private readonly media: ImageMedia,
    private readonly maxArtifactBytes: number,
  ) {
    super(inner);
  }

  protected async transform(scene: GeneratedScene): Promise<GeneratedScene> {
    const artifacts: SceneArtifact[] = [];
    for (const artifact of scene.artifacts) artifacts.push(await this.scrub(artifact));
    return { ...scene, artifacts };
  }

  private async scrub(artifact: SceneArtifact): Promise<SceneArtifact> {
    switch (artifact.kind) {
      case 'panorama':
      case 'thumbnail': {
        const image = await metadataFreeImage(this.media, artifact.bytes);
        if (!image.ok) throw refused(artifact.kind, image.reason);
        return { kind: artifact.kind, contentType: IMAGE_TYPES[image.format], bytes: image.bytes };
      }
      case 'mesh':
      case 'collider':
        return checkArtifact(artifact.kind, await scrubGlb(artifact.kind, artifact.bytes), this.maxArtifactBytes);
      case 'splat':
      case 'splat-preview':
        return checkArtifact(artifact.kind, withoutGzipNames(artifact.bytes), this.maxArtifactBytes);
    }
  }
}

/** Our words only: the reason names a structure, never the file's content. */
function refused(kind: string, reason: string): GenerationError {
  return new GenerationError('generation_failed', 'The generation provider returned a file that is not what it should be.', false, {
    cause: new Error(`the ${kind} file was refused while its metadata was removed: ${reason}`),
  });
}

const GLB_MAGIC = 0x46546c67; // "glTF"
const JSON_CHUNK = 0x4e4f534a; // "JSON"
const BIN_CHUNK = 0x004e4942; // "BIN\0"

/** The arrays of core glTF objects whose `name` is free text (glTFChildOfRootProperty). */
const NAMED = [
  'accessors',
  'animations',
  'buffers',
  'bufferViews',
  'cameras',
  'images',
  'materials',
  'meshes',
  'nodes',
  'samplers',
  'scenes',
  'skins',
  'textures',
];
/** Extensions whose whole purpose is metadata (XMP packets about the asset or its parts). */
const METADATA_EXTENSIONS = new Set(['KHR_xmp_json_ld', 'KHR_xmp']);

type Json = Record<string, unknown>;

/** A GLB without what its writer said about it (see ProviderFileScrubbing). Throws `generation_failed`. */
export async function scrubGlb(kind: string, bytes: Buffer): Promise<Buffer> {
  const refuse = (reason: string) => refused(kind, reason);
  if (bytes.length < 20 || bytes.readUInt32LE(0) !== GLB_MAGIC || bytes.readUInt32LE(4) !== 2) throw refuse('not a glTF 2.0 binary');
  const jsonLength = bytes.readUInt32LE(12);
  if (bytes.readUInt32LE(16) !== JSON_CHUNK || 20 + jsonLength > bytes.length) throw refuse('no JSON chunk first');
  let json: unknown;
  try {
    json = JSON.parse(bytes.subarray(20, 20 + jsonLength).toString('utf8'));
  } catch {
    // Never the parser's message: it quotes the file.
    throw refuse('its JSON chunk does not parse');
  }
  if (!isObject(json)) throw refuse('its JSON is not an object');
  let bin: Buffer | null = null;
  const binAt = 20 + jsonLength;
  if (binAt + 8 <= bytes.length && bytes.readUInt32LE(binAt + 4) === BIN_CHUNK) {
    const binLength = bytes.readUInt32LE(binAt);
    if (binAt + 8 + binLength > bytes.length) throw refuse('its binary chunk runs past the end');
    // A copy: textures shrink in it, and the provider's buffer stays as it came.
    bin = Buffer.from(bytes.subarray(binAt + 8, binAt + 8 + binLength));
  }
  // Chunks after the binary one (none are defined) are left behind.

  if (!scrubJson(json)) throw refuse(`its JSON is nested deeper than ${MAX_JSON_DEPTH} levels`);
  const asset = isObject(json.asset) ? json.asset : {};
  json.asset = { version: asset.version, ...(asset.minVersion !== undefined ? { minVersion: asset.minVersion } : {}) };
  for (const list of NAMED) {
    const items = json[list];
    if (Array.isArray(items)) for (const item of items) if (isObject(item)) delete item.name;
  }
  for (const list of ['extensionsUsed', 'extensionsRequired']) {
    const names = json[list];
    if (Array.isArray(names)) json[list] = names.filter((n) => !METADATA_EXTENSIONS.has(n as string));
    if (Array.isArray(json[list]) && (json[list] as unknown[]).length === 0) delete json[list];
  }
  const problem = await scrubImages(json, bin);
  if (problem) throw refuse(problem);

  let text = Buffer.from(JSON.stringify(json), 'utf8');
  // Chunks are 4-byte aligned; the JSON chunk pads with spaces.
  if (text.length % 4 !== 0) text = Buffer.concat([text, Buffer.alloc(4 - (text.length % 4), 0x20)]);
  const total = 12 + 8 + text.length + (bin ? 8 + bin.length : 0);
  const out = Buffer.alloc(total);
  out.writeUInt32LE(GLB_MAGIC, 0);
  out.writeUInt32LE(2, 4);
  out.writeUInt32LE(total, 8);
  out.writeUInt32LE(text.length, 12);
  out.writeUInt32LE(JSON_CHUNK, 16);
  text.copy(out, 20);
  if (bin) {
    out.writeUInt32LE(bin.length, 20 + text.length);
    out.writeUInt32LE(BIN_CHUNK, 24 + text.length);
    bin.copy(out, 28 + text.length);
  }
  return out;
}

/**
 * Deeper than any glTF structure (a node's extension's object is a few levels down): a file nested
 * deeper is refused rather than walked, so a crafted file cannot exhaust the stack or the time.
 */
const MAX_JSON_DEPTH = 64;

/**
 * Visits every object and array of the JSON, parents before children, without recursion. `visit`
 * may remove properties of the object it is given before its children are listed (a deleted
 * `extras` is never walked). Answers false when the JSON is nested deeper than MAX_JSON_DEPTH.
 */
function walkJson(root: unknown, visit: (value: Json) => void): boolean {
  const stack: [unknown, number][] = [[root, 0]];
  for (let next = stack.pop(); next; next = stack.pop()) {
    const [value, depth] = next;
    if (typeof value !== 'object' || value === null) continue;
    if (depth > MAX_JSON_DEPTH) return false;
    if (!Array.isArray(value)) visit(value as Json);
    for (const child of Object.values(value)) if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
  }
  return true;
}

/** Removes `extras` from every object, and metadata extensions from every `extensions` object. */
function scrubJson(json: Json): boolean {
  return walkJson(json, (value) => {
    delete value.extras;
    if (isObject(value.extensions)) {
      for (const name of METADATA_EXTENSIONS) delete value.extensions[name];
      if (Object.keys(value.extensions).length === 0) delete value.extensions;
    }
  });
}

/**
 * Strips every embedded image: one in the binary chunk shrinks in place (the freed tail zeroed,
 * its bufferView shortened), so no other offset moves; one in a data URI is rewritten. Answers
 * the reason a file cannot be walked, or null.
 */
async function scrubImages(json: Json, bin: Buffer | null): Promise<string | null> {
  const images: unknown[] = Array.isArray(json.images) ? json.images : [];
  const views: unknown[] = Array.isArray(json.bufferViews) ? json.bufferViews : [];
  const buffers: unknown[] = Array.isArray(json.buffers) ? json.buffers : [];
  const uses = bufferViewUses(json);
  const done = new Set<number>();
  for (const image of images) {
    if (!isObject(image)) return 'an image that is not an object';
    if (typeof image.uri === 'string') {
      const data = /^data:([^;,]*);base64,(.*)$/s.exec(image.uri);
      if (!data) return 'an image outside the file';
      const stripped = await metadataFreeEmbeddedImage(Buffer.from(data[2], 'base64'));
      if (!stripped.ok) return `an embedded image: ${stripped.reason}`;
      image.uri = `data:${IMAGE_TYPES[stripped.format]};base64,${stripped.bytes.toString('base64')}`;
      continue;
    }
    const index = image.bufferView;
    if (typeof index !== 'number') return 'an image with neither a URI nor a bufferView';
    if (done.has(index)) continue;
    done.add(index);
    const view = views[index];
    if (!isObject(view) || !bin) return 'an image whose bufferView is missing';
    const buffer = buffers[0];
    if (view.buffer !== 0 || !isObject(buffer) || buffer.uri !== undefined) return "an image outside the file's binary chunk";
    const imagesOfView = images.filter((i) => isObject(i) && i.bufferView === index).length;
    if ((uses.get(index) ?? 0) > imagesOfView) return 'an image whose bytes other data share';
    const offset = typeof view.byteOffset === 'number' ? view.byteOffset : 0;
    const length = view.byteLength;
    if (typeof length !== 'number' || offset < 0 || offset + length > bin.length) return 'an image past the binary chunk';
    const stripped = await metadataFreeEmbeddedImage(Buffer.from(bin.subarray(offset, offset + length)));
    if (!stripped.ok) return `an embedded image: ${stripped.reason}`;
    stripped.bytes.copy(bin, offset);
    bin.fill(0, offset + stripped.bytes.length, offset + length);
    view.byteLength = stripped.bytes.length;
  }
  return null;
}

/** How many times each bufferView is named, anywhere in the JSON (accessors, images, extensions). */
function bufferViewUses(json: Json): Map<number, number> {
  const uses = new Map<number, number>();
  // Already walked within the depth limit by scrubJson.
  walkJson(json, (value) => {
    if (typeof value.bufferView === 'number') uses.set(value.bufferView, (uses.get(value.bufferView) ?? 0) + 1);
  });
  return uses;
}

/**
 * A gzip stream (an SPZ of versions 2 and 3) without its optional header fields: the original
 * file name (FNAME), a comment (FCOMMENT), extra fields (FEXTRA), its header checksum and its
 * modification time. The compressed data and its trailer are kept as they are. Anything else
 * (SPZ version 4 is not gzip) is returned unchanged, for the SPZ check to judge.
 */
export function withoutGzipNames(bytes: Buffer): Buffer {
  if (bytes.length < 18 || bytes[0] !== 0x1f || bytes[1] !== 0x8b || bytes[2] !== 8) return bytes;
  const flags = bytes[3];
  const FHCRC = 0x02;
  const FEXTRA = 0x04;
  const FNAME = 0x08;
  const FCOMMENT = 0x10;
  if ((flags & (FHCRC | FEXTRA | FNAME | FCOMMENT)) === 0 && bytes.readUInt32LE(4) === 0) return bytes;
  let p = 10;
  if (flags & FEXTRA) p += 2 + bytes.readUInt16LE(p);
  for (const flag of [FNAME, FCOMMENT]) {
    if (flags & flag) {
      const end = bytes.indexOf(0, p);
      if (end < 0) return bytes;
      p = end + 1;
    }
  }
  if (flags & FHCRC) p += 2;
  if (p >= bytes.length) return bytes;
  // ID1 ID2 CM, no flags, no time, the compressor's XFL, OS "unknown".
  const header = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, bytes[8], 0xff]);
  return Buffer.concat([header, bytes.subarray(p)]);
}

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
