import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo, Socket } from 'node:net';
import { crc32 } from 'node:zlib';

/**
 * The plumbing every fake provider shares: a real HTTP server on 127.0.0.1 and a free port, a
 * deep backlog (benchmarks open a thousand connections at once), requests handed to `handle`
 * (a handler that throws destroys its socket, as a crashing provider would), and `close()`
 * that also ends kept-alive and hanging connections.
 */
export class FakeServer {
  private readonly sockets = new Set<Socket>();

  private constructor(private readonly server: Server) {
    server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  static async listen(handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>): Promise<FakeServer> {
    const server = createServer();
    const fake = new FakeServer(server);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      res.on('error', () => undefined);
      handle(req, res).catch(() => res.destroy());
    });
    await new Promise<void>((resolve) => server.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, resolve));
    return fake;
  }

  get url(): string {
    const { port } = this.server.address() as AddressInfo;
    return `http://127.0.0.1:${port}`;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** Resolves once `res` may be written again (or is gone). */
export function drained(res: ServerResponse): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      res.off('drain', done).off('close', done);
      resolve();
    };
    res.on('drain', done).on('close', done);
  });
}

/** Writes `total` filler bytes as the body (headers already written), minding back-pressure, and ends it. */
export async function streamFiller(res: ServerResponse, total: number): Promise<void> {
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  for (let sent = 0; sent < total && !res.destroyed; sent += chunk.length) {
    if (!res.write(chunk.subarray(0, Math.min(chunk.length, total - sent)))) await drained(res);
  }
  res.end();
}

/**
 * A GLB with a correct header whose JSON chunk is broken and quotes `marker` unquoted, so a JSON
 * parser's error message would carry it: a test then proves no parser message leaks.
 */
export function brokenGlb(marker: string): Buffer {
  const json = Buffer.from(`{"asset": ${marker}}`.padEnd(4 * Math.ceil((marker.length + 12) / 4), ' '));
  const header = Buffer.alloc(20);
  header.writeUInt32LE(0x46546c67, 0); // glTF
  header.writeUInt32LE(2, 4);
  header.writeUInt32LE(20 + json.length, 8);
  header.writeUInt32LE(json.length, 12);
  header.writeUInt32LE(0x4e4f534a, 16); // JSON
  return Buffer.concat([header, json]);
}

/**
 * Written by the fakes into every file they serve, beside the prompt itself: what a provider may
 * leave in its files (an image's text chunk or comment, a glTF's extras, names and generator),
 * which must never reach what we store and serve.
 */
export const PROVIDER_FILE_MARKER = 'QZFILEMETA';

/** `png` with a tEXt chunk (`Description`: `text`) right after its header. */
export function pngWithText(png: Buffer, text: string): Buffer {
  const ihdrEnd = 8 + 12 + 13;
  const data = Buffer.concat([Buffer.from('Description\0', 'latin1'), Buffer.from(text, 'utf8')]);
  const chunk = Buffer.alloc(12 + data.length);
  chunk.writeUInt32BE(data.length, 0);
  chunk.write('tEXt', 4, 'latin1');
  data.copy(chunk, 8);
  chunk.writeUInt32BE(crc32(chunk.subarray(4, 8 + data.length)), 8 + data.length);
  return Buffer.concat([png.subarray(0, ihdrEnd), chunk, png.subarray(ihdrEnd)]);
}

/** `jpeg` with a comment segment quoting `text` right after its SOI marker. */
export function jpegWithComment(jpeg: Buffer, text: string): Buffer {
  const data = Buffer.from(text, 'utf8').subarray(0, 60_000);
  const segment = Buffer.alloc(4 + data.length);
  segment.writeUInt16BE(0xfffe, 0);
  segment.writeUInt16BE(data.length + 2, 2);
  data.copy(segment, 4);
  return Buffer.concat([jpeg.subarray(0, 2), segment, jpeg.subarray(2)]);
}

/**
 * `glb` with `text` where a glTF writer puts words: the asset's generator and copyright, the
 * root's and each node's extras, every node's and mesh's name. Its binary chunk is unchanged.
 */
export function glbWithText(glb: Buffer, text: string): Buffer {
  const length = glb.readUInt32LE(12);
  const json = JSON.parse(glb.subarray(20, 20 + length).toString('utf8')) as Record<string, unknown> & {
    asset: Record<string, unknown>;
    nodes?: Record<string, unknown>[];
    meshes?: Record<string, unknown>[];
  };
  json.asset = { ...json.asset, generator: `Fake provider: ${text}`, copyright: text };
  json.extras = { prompt: text };
  for (const node of json.nodes ?? []) Object.assign(node, { name: text, extras: { prompt: text } });
  for (const mesh of json.meshes ?? []) mesh.name = text;
  let chunk = Buffer.from(JSON.stringify(json), 'utf8');
  chunk = Buffer.concat([chunk, Buffer.alloc((4 - (chunk.length % 4)) % 4, 0x20)]);
  const rest = glb.subarray(20 + length);
  const out = Buffer.concat([glb.subarray(0, 20), chunk, rest]);
  out.writeUInt32LE(out.length, 8);
  out.writeUInt32LE(chunk.length, 12);
  return out;
}
