import { filetypeinfo } from 'magic-bytes.js';
import { ArtifactKind, GenerationError, SceneArtifact } from '../scene-generator';
import { inspectSpz, readGlb, SPZ_CONTENT_TYPE, SPZ_MAX_INFLATION, SpzError } from '@scene-studio/world-engine';
import { ProviderHttp } from './provider-http';

const IMAGE_TYPES: Record<string, string> = { png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', webp: 'image/webp' };

/**
 * Checks a provider's file by its bytes, whatever its URL or Content-Type claimed, and returns
 * it as an artifact with our content type: a GLB that parses (mesh, collider), an SPZ whose
 * header and size agree (splat), a PNG, JPEG or WebP (panorama, thumbnail). Anything else fails
 * the generation with our own words.
 */
export async function checkArtifact(kind: ArtifactKind, bytes: Buffer, maxBytes: number): Promise<SceneArtifact> {
  // Never a parser's error as the cause: it may quote the file (JSON.parse does), and the file is
  // provider output. SpzError messages are ours and name only header fields.
  const refuse = (why: string) =>
    new GenerationError('generation_failed', 'The generation provider returned a file that is not what it should be.', false, {
      cause: new Error(`the ${kind} file ${why}`),
    });
  switch (kind) {
    case 'mesh':
    case 'collider':
      try {
        await readGlb(bytes);
      } catch {
        throw refuse('is not a readable glTF binary');
      }
      return { kind, contentType: 'model/gltf-binary', bytes };
    case 'splat':
    case 'splat-preview':
      try {
        inspectSpz(bytes, maxBytes * SPZ_MAX_INFLATION);
      } catch (e) {
        throw refuse(e instanceof SpzError ? `is not a valid SPZ file (${e.message})` : 'is not a readable SPZ file');
      }
      return { kind, contentType: SPZ_CONTENT_TYPE, bytes };
    case 'panorama':
    case 'thumbnail': {
      const type = filetypeinfo(bytes)
        .map((t) => IMAGE_TYPES[t.typename])
        .find(Boolean);
      if (!type) throw refuse('is not a PNG, JPEG or WebP image');
      return { kind, contentType: type, bytes };
    }
  }
}

/** Downloads and checks one file a provider handed back (see ProviderHttp.download for the limits). */
export async function downloadArtifact(
  http: ProviderHttp,
  kind: ArtifactKind,
  url: string,
  maxBytes: number,
  signal?: AbortSignal,
): Promise<SceneArtifact> {
  return checkArtifact(kind, await http.download(url, maxBytes, signal), maxBytes);
}
