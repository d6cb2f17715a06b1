import { GenerationRequest, SceneGenerator } from '@app/generation';
import { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse, createServer } from 'node:http';
import { AddressInfo, Socket } from 'node:net';

/**
 * A stand-in for an external generation service (docs/generation-provider.md), for testing the
 * http generator. It serves `POST /v1/generations` on 127.0.0.1 with a behaviour the test
 * switches at will, and records every request it receives.
 *
 * Error bodies, status texts and broken payloads all carry PROVIDER_MARKER, so a test can prove
 * that nothing the provider says reaches our error messages.
 */
// Short on purpose: V8's JSON.parse errors quote only about ten characters of the input, and
// the whole marker must fit in that window for a leak through such an error to be caught.
export const PROVIDER_MARKER = 'QZLEAK7';

export type ProviderBehaviour =
  /** 200 with a real scene, made by the generator the fake was started with. */
  | 'success'
  | 'server-error'
  | 'unavailable'
  | 'rate-limited'
  | 'bad-request'
  | 'unauthorized'
  /** Accepts the request and never answers. */
  | 'hang'
  /** Holds each answer until `release()`, then answers like `success`: a generation in flight. */
  | 'gated'
  /** 200 whose body is not JSON. */
  | 'garbage-json'
  /** 200 with a JSON body that is not an object. */
  | 'json-array'
  /** 200 with a valid GLB but a spec that is not one. */
  | 'invalid-spec'
  /** 200 with a valid spec but a GLB that does not parse. */
  | 'invalid-glb'
  /** 200 with a valid spec but glbBase64 that is not base64. */
  | 'invalid-base64'
  /** 200 with a body of `oversizeBytes`, announced in Content-Length. */
  | 'oversized'
  /** 200 with a body of `oversizeBytes`, streamed without a Content-Length. */
  | 'oversized-chunked';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

export class FakeGenerationProvider {
  behaviour: ProviderBehaviour = 'success';
  oversizeBytes = 2 * 1024 * 1024;
  readonly requests: ReceivedRequest[] = [];
  private readonly sockets = new Set<Socket>();
  private waiters: Array<(request: ReceivedRequest) => void> = [];
  private gate = deferred();

  private constructor(
    private readonly server: Server,
    private readonly generator: SceneGenerator,
  ) {}

  static async start(generator: SceneGenerator): Promise<FakeGenerationProvider> {
    const server = createServer();
    const fake = new FakeGenerationProvider(server, generator);
    server.on('connection', (socket) => {
      fake.sockets.add(socket);
      socket.on('close', () => fake.sockets.delete(socket));
    });
    server.on('request', (req, res) => {
      fake.handle(req, res).catch(() => res.destroy());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  get url(): string {
    const { port } = this.server.address() as AddressInfo;
    return `http://127.0.0.1:${port}`;
  }

  get lastRequest(): ReceivedRequest | undefined {
    return this.requests[this.requests.length - 1];
  }

  /** Resolves when the next request has been received in full (before it is answered). */
  nextRequest(): Promise<ReceivedRequest> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Lets every held `gated` answer go (and the next ones until `hold()`). */
  release(): void {
    this.gate.resolve();
  }

  /** Holds `gated` answers again. */
  hold(): void {
    this.gate = deferred();
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // recorded as text
    }
    const received = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body };
    this.requests.push(received);
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve(received);
    res.on('error', () => undefined);

    if (req.method !== 'POST' || req.url !== '/v1/generations') return this.problem(res, 404, 'not found');

    switch (this.behaviour) {
      case 'success': {
        const scene = await this.generator.generate(toGenerationRequest(body as Record<string, any>));
        return this.json(res, 200, { spec: scene.spec, glbBase64: scene.glb.toString('base64') });
      }
      case 'server-error':
        return this.problem(res, 500, 'model crashed');
      case 'unavailable':
        return this.problem(res, 503, 'overloaded');
      case 'rate-limited':
        return this.problem(res, 429, 'slow down');
      case 'bad-request':
        return this.problem(res, 400, 'prompt refused by content policy');
      case 'unauthorized':
        return this.problem(res, 401, 'bad key');
      case 'hang':
        return; // the socket stays open until the client gives up or close() destroys it
      case 'gated': {
        await this.gate.promise;
        if (res.destroyed) return;
        const scene = await this.generator.generate(toGenerationRequest(body as Record<string, any>));
        return this.json(res, 200, { spec: scene.spec, glbBase64: scene.glb.toString('base64') });
      }
      case 'garbage-json':
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(`${PROVIDER_MARKER} {"spec": not json at all`);
        return;
      case 'json-array':
        return this.json(res, 200, [PROVIDER_MARKER]);
      case 'invalid-spec': {
        const scene = await this.generator.generate(toGenerationRequest(body as Record<string, any>));
        return this.json(res, 200, { spec: { ...scene.spec, biome: PROVIDER_MARKER }, glbBase64: scene.glb.toString('base64') });
      }
      case 'invalid-glb': {
        const scene = await this.generator.generate(toGenerationRequest(body as Record<string, any>));
        return this.json(res, 200, { spec: scene.spec, glbBase64: brokenGlb().toString('base64') });
      }
      case 'invalid-base64': {
        const scene = await this.generator.generate(toGenerationRequest(body as Record<string, any>));
        return this.json(res, 200, { spec: scene.spec, glbBase64: `${PROVIDER_MARKER}!!` });
      }
      case 'oversized':
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(this.oversizeBytes) });
        res.end(Buffer.alloc(this.oversizeBytes, 0x20));
        return;
      case 'oversized-chunked': {
        res.writeHead(200, { 'content-type': 'application/json' });
        const chunk = Buffer.alloc(64 * 1024, 0x20);
        for (let sent = 0; sent < this.oversizeBytes && !res.destroyed; sent += chunk.length) {
          if (!res.write(chunk)) {
            await new Promise<void>((resolve) => {
              const done = () => {
                res.off('drain', done).off('close', done);
                resolve();
              };
              res.on('drain', done).on('close', done);
            });
          }
        }
        res.end();
        return;
      }
    }
  }

  private json(res: ServerResponse, status: number, value: unknown): void {
    const bytes = Buffer.from(JSON.stringify(value));
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(bytes.length) });
    res.end(bytes);
  }

  /** An error answer whose status text and body both carry the marker. */
  private problem(res: ServerResponse, status: number, detail: string): void {
    const bytes = Buffer.from(JSON.stringify({ error: `${detail} ${PROVIDER_MARKER}`, trace: `at provider.py:42 ${PROVIDER_MARKER}` }));
    res.writeHead(status, `Failed ${PROVIDER_MARKER}`, { 'content-type': 'application/json', 'content-length': String(bytes.length) });
    res.end(bytes);
  }
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** The documented request body, turned back into what a generator takes. */
function toGenerationRequest(body: Record<string, any>): GenerationRequest {
  const image = body.sourceImage;
  return {
    sceneId: body.sceneId,
    version: body.version,
    prompt: body.prompt,
    source: image
      ? {
          bytes: Buffer.from(image.dataBase64, 'base64'),
          format: image.format,
          width: image.width,
          height: image.height,
          sha256: image.sha256,
        }
      : null,
    edit: body.instruction === null ? null : { previousSpec: body.previousSpec, instruction: body.instruction },
  };
}

/** A GLB with a correct header whose JSON chunk is broken (and quotes the marker). */
function brokenGlb(): Buffer {
  // Unquoted, so JSON.parse's error message quotes the text around it.
  const json = Buffer.from(`{"asset": ${PROVIDER_MARKER}}`.padEnd(4 * Math.ceil((PROVIDER_MARKER.length + 12) / 4), ' '));
  const header = Buffer.alloc(20);
  header.writeUInt32LE(0x46546c67, 0); // glTF
  header.writeUInt32LE(2, 4);
  header.writeUInt32LE(20 + json.length, 8);
  header.writeUInt32LE(json.length, 12);
  header.writeUInt32LE(0x4e4f534a, 16); // JSON
  return Buffer.concat([header, json]);
}
