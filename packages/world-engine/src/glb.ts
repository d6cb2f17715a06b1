import { Document, Logger, NodeIO } from '@gltf-transform/core';

const GLB_MAGIC = 0x46546c67; // "glTF"

/**
 * A NodeIO for in-memory conversion only (`writeBinary`, `readBinary`).
 *
 * NodeIO's constructor starts loading `node:fs` with a dynamic `import()` that only file paths
 * need. Where dynamic import is unavailable (jest's VM) that promise rejects, and an unobserved
 * rejection takes the whole process down; observing it through the public `init()` keeps the
 * in-memory methods, which never wait for it, usable everywhere.
 */
export function createGltfIO(): NodeIO {
  // Silent: gltf-transform logs to the console, and a provider's odd-but-readable file must not
  // write its warnings into our logs.
  const io = new NodeIO().setLogger(new Logger(Logger.Verbosity.SILENT));
  io.init().catch(() => undefined);
  return io;
}

const io = createGltfIO();

/**
 * Reads a glTF 2.0 binary, or throws. The header is checked first (magic, version, declared
 * length) so that random bytes fail fast. gltf-transform refuses GLBs that point at external
 * buffers or images, so a provider cannot make us read files or URLs.
 */
export async function readGlb(bytes: Uint8Array): Promise<Document> {
  if (bytes.byteLength < 20) throw new Error('GLB too short');
  // A copy: the reader needs 4-byte-aligned offsets, which pooled Buffers do not guarantee.
  const copy = new Uint8Array(bytes);
  const view = new DataView(copy.buffer);
  if (view.getUint32(0, true) !== GLB_MAGIC) throw new Error('not a GLB');
  if (view.getUint32(4, true) !== 2) throw new Error('not glTF 2.0');
  if (view.getUint32(8, true) !== copy.byteLength) throw new Error('GLB length mismatch');
  const doc = await io.readBinary(copy);
  // Valid glTF may hold no scene at all; for us that is not a scene.
  if (doc.getRoot().listScenes().length === 0) throw new Error('GLB has no scene');
  return doc;
}
