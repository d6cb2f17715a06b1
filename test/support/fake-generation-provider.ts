import { GeneratedScene, GenerationRequest, SceneGenerator } from '@app/generation';
import { randomUUID } from 'node:crypto';
import { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { FakeServer, streamFiller, brokenGlb } from './fakes/fake-server';

/**
 * A stand-in for an operator's own generation service speaking our asynchronous protocol,
 * version 2 (docs/generation-provider.md), for testing the http generator and the worker's
 * long-running jobs. It serves on 127.0.0.1 with behaviours the test switches at will, records
 * every request, and makes its scenes with the generator it was started with (the procedural
 * one), so a result is a real, checkable scene.
 *
 * Error bodies, status texts and broken payloads all carry PROVIDER_MARKER, so a test can prove
 * that nothing the provider says reaches our error messages.
 */
// Short on purpose: V8's JSON.parse errors quote only about ten characters of the input, and
// the whole marker must fit in that window for a leak through such an error to be caught.
export const PROVIDER_MARKER = 'QZLEAK7';

/** How `POST /v2/generations` answers. */
export type SubmitBehaviour =
  | 'accept'
  | 'server-error'
  | 'unavailable'
  /** 429 with Retry-After: 7. */
  | 'rate-limited'
  | 'bad-request'
  | 'unauthorized'
  /** 402: the operator's account is out of credits. */
  | 'quota'
  /** Accepts the request and never answers. */
  | 'hang'
  /** Holds each answer until `release()`, then accepts: a submit in flight. */
  | 'gated'
  /** 202 whose body is not JSON. */
  | 'garbage-json'
  /** 202 with a JSON body that has no job id. */
  | 'no-id';

/** How a job runs once accepted. */
export type JobBehaviour =
  /** Runs for `jobDurationMs`, its progress rising with time, then succeeds. */
  | 'succeed'
  /** Runs for `jobDurationMs`, then fails. */
  | 'fail'
  /** Runs until `release()`, reporting `gatedProgress`; then succeeds. */
  | 'gated'
  /** Never finishes. */
  | 'never';

/** What the result's files are like. */
export type ResultBehaviour =
  | 'ok'
  | 'corrupt-glb'
  | 'invalid-view'
  | 'no-view'
  | 'no-files'
  | 'oversized'
  | 'oversized-chunked'
  /** The file arrives in eight parts 100 ms apart: slow, but never silent for long. */
  | 'slow-file'
  /** Half the file, then silence. */
  | 'stalled-file';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

interface FakeJob {
  id: string;
  idempotencyKey: string | null;
  request: GenerationRequest;
  body: Record<string, unknown>;
  createdAt: number;
  behaviour: JobBehaviour;
  durationMs: number;
  released: boolean;
  cancelled: boolean;
  scene: Promise<GeneratedScene> | null;
}

export class FakeGenerationProvider {
  submitBehaviour: SubmitBehaviour = 'accept';
  jobBehaviour: JobBehaviour = 'succeed';
  /** How long a `succeed` or `fail` job runs; 0 finishes it by the first poll. */
  jobDurationMs = 0;
  /** What a `gated` job reports as its progress until released. */
  gatedProgress = 0.5;
  /** While true, polls answer 503 (the provider is briefly away). */
  pollsFailing = false;
  result: ResultBehaviour = 'ok';
  oversizeBytes = 2 * 1024 * 1024;
  /**
   * Where results list their files: this fake's own origin by default; another origin (say,
   * this same server under another name) stands for a file host the provider hands back.
   */
  fileOrigin: string | null = null;
  /** When set, a file asked for on this fake's own origin answers 302 to the same file under this origin. */
  redirectFilesTo: string | null = null;
  /**
   * How `DELETE /v2/generations/{id}` answers: `delete` forgets the job (then 404 for it),
   * `unsupported` is a provider without the optional delete (405), `fail` answers 503.
   */
  deleteBehaviour: 'delete' | 'unsupported' | 'fail' = 'delete';
  /** Ids of the jobs deleted through the API. */
  readonly deleted: string[] = [];
  readonly requests: ReceivedRequest[] = [];
  readonly jobs = new Map<string, FakeJob>();
  private waiters: Array<(request: ReceivedRequest) => void> = [];
  private gate = deferred();

  private server!: FakeServer;

  private constructor(private readonly generator: SceneGenerator & { generate(request: GenerationRequest): Promise<GeneratedScene> }) {}

  static async start(
    generator: SceneGenerator & { generate(request: GenerationRequest): Promise<GeneratedScene> },
  ): Promise<FakeGenerationProvider> {
    const fake = new FakeGenerationProvider(generator);
    fake.server = await FakeServer.listen((req, res) => fake.handle(req, res));
    return fake;
  }

  get url(): string {
    return this.server.url;
  }

  get lastRequest(): ReceivedRequest | undefined {
    return this.requests[this.requests.length - 1];
  }

  /** Submits received (each `POST /v2/generations`, repeated ones included). */
  submitsFor(prompt: string): ReceivedRequest[] {
    return this.requests.filter(
      (r) => r.method === 'POST' && r.path === '/v2/generations' && (r.body as { prompt?: string })?.prompt === prompt,
    );
  }

  /** Distinct jobs started for a prompt (an idempotent repeat is the same job). */
  jobsFor(prompt: string): FakeJob[] {
    return [...this.jobs.values()].filter((j) => j.request.prompt === prompt);
  }

  /** Resolves when the next request has been received in full (before it is answered). */
  nextRequest(filter: (r: ReceivedRequest) => boolean = () => true): Promise<ReceivedRequest> {
    return new Promise((resolve) => {
      const wait = (r: ReceivedRequest) => (filter(r) ? resolve(r) : this.waiters.push(wait));
      this.waiters.push(wait);
    });
  }

  /** Lets every held `gated` submit and job go (and the next ones until `hold()`). */
  release(): void {
    this.gate.resolve();
    for (const job of this.jobs.values()) job.released = true;
  }

  /** Holds `gated` submits and jobs again. */
  hold(): void {
    this.gate = deferred();
  }

  close(): Promise<void> {
    return this.server.close();
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: unknown = text;
    try {
      body = text === '' ? null : JSON.parse(text);
    } catch {
      // recorded as text
    }
    const received = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body };
    this.requests.push(received);
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve(received);

    const path = req.url ?? '';
    if (req.method === 'POST' && path === '/v2/generations') return this.submit(req, res, body as Record<string, unknown>);
    const job = /^\/v2\/generations\/([^/:]+)(:cancel)?$/.exec(path);
    if (job && req.method === 'GET' && !job[2]) return this.poll(res, decodeURIComponent(job[1]));
    if (job && req.method === 'POST' && job[2]) return this.cancel(res, decodeURIComponent(job[1]));
    if (job && req.method === 'DELETE' && !job[2]) return this.delete(res, decodeURIComponent(job[1]));
    const file = /^\/files\/([^/]+)\/([a-z]+)(\?moved)?$/.exec(path);
    if (file && req.method === 'GET' && this.redirectFilesTo && !file[3] && req.headers.host === new URL(this.url).host) {
      res.writeHead(302, { location: `${this.redirectFilesTo}/files/${file[1]}/${file[2]}?moved`, 'content-length': '0' }).end();
      return;
    }
    if (file && req.method === 'GET') return this.file(res, file[1], file[2]);
    return this.problem(res, 404, 'not found');
  }

  private async submit(req: IncomingMessage, res: ServerResponse, body: Record<string, unknown>): Promise<void> {
    switch (this.submitBehaviour) {
      case 'server-error':
        return this.problem(res, 500, 'model crashed');
      case 'unavailable':
        return this.problem(res, 503, 'overloaded');
      case 'rate-limited':
        return this.problem(res, 429, 'slow down', { 'retry-after': '7' });
      case 'bad-request':
        return this.problem(res, 400, 'prompt refused by content policy');
      case 'unauthorized':
        return this.problem(res, 401, 'bad key');
      case 'quota':
        return this.problem(res, 402, 'no credits');
      case 'hang':
        return; // the socket stays open until the client gives up or close() destroys it
      case 'gated':
        // A real provider starts the job it was asked for even if the client is gone by the time it answers.
        await this.gate.promise;
        break;
      case 'garbage-json':
        res.writeHead(202, { 'content-type': 'application/json' });
        res.end(`${PROVIDER_MARKER} {"id": not json at all`);
        return;
      case 'no-id':
        return this.json(res, 202, { status: 'queued', note: PROVIDER_MARKER });
      case 'accept':
        break;
    }
    const key = typeof req.headers['idempotency-key'] === 'string' ? req.headers['idempotency-key'] : null;
    const existing = key ? [...this.jobs.values()].find((j) => j.idempotencyKey === key) : undefined;
    const job = existing ?? this.newJob(key, body);
    if (res.destroyed) return;
    return this.json(res, 202, { id: job.id, status: 'queued', progress: 0 });
  }

  private newJob(idempotencyKey: string | null, body: Record<string, unknown>): FakeJob {
    const job: FakeJob = {
      id: `gen_${randomUUID()}`,
      idempotencyKey,
      request: toGenerationRequest(body),
      body,
      createdAt: Date.now(),
      behaviour: this.jobBehaviour,
      durationMs: this.jobDurationMs,
      released: false,
      cancelled: false,
      scene: null,
    };
    this.jobs.set(job.id, job);
    return job;
  }

  /** A job's state, computed from the clock: no timers, so thousands of jobs cost nothing. */
  private stateOf(job: FakeJob): { status: string; progress: number | null } {
    if (job.cancelled) return { status: 'cancelled', progress: null };
    const elapsed = Date.now() - job.createdAt;
    switch (job.behaviour) {
      case 'never':
        return { status: 'running', progress: Math.min(0.99, elapsed / 60_000) };
      case 'gated':
        return job.released ? { status: 'succeeded', progress: 1 } : { status: 'running', progress: this.gatedProgress };
      case 'succeed':
      case 'fail':
        if (elapsed < job.durationMs) return { status: elapsed === 0 ? 'queued' : 'running', progress: elapsed / job.durationMs };
        return job.behaviour === 'succeed' ? { status: 'succeeded', progress: 1 } : { status: 'failed', progress: null };
    }
  }

  private async poll(res: ServerResponse, id: string): Promise<void> {
    if (this.pollsFailing) return this.problem(res, 503, 'briefly away');
    const job = this.jobs.get(id);
    if (!job) return this.problem(res, 404, 'no such job');
    const state = this.stateOf(job);
    const answer: Record<string, unknown> = { id, ...state, error: null, result: null };
    if (state.status === 'failed') answer.error = { retryable: true, reason: `GPU fell over ${PROVIDER_MARKER}` };
    if (state.status === 'succeeded') answer.result = await this.resultOf(job);
    return this.json(res, 200, answer);
  }

  /** The finished job's files (served by this fake) and view (the generated scene's spec). */
  private async resultOf(job: FakeJob): Promise<Record<string, unknown>> {
    job.scene ??= this.generator.generate(job.request);
    const scene = await job.scene;
    const files = this.result === 'no-files' ? [] : [{ kind: 'mesh', url: `${this.fileOrigin ?? this.url}/files/${job.id}/mesh` }];
    const view =
      this.result === 'no-view' ? null : this.result === 'invalid-view' ? { schemaVersion: 1, prompt: PROVIDER_MARKER } : scene.spec;
    return { files, view };
  }

  private async cancel(res: ServerResponse, id: string): Promise<void> {
    const job = this.jobs.get(id);
    if (!job) return this.problem(res, 404, 'no such job');
    job.cancelled = true;
    return this.json(res, 200, { id, status: 'cancelled' });
  }

  /** The protocol's optional delete: the job, its request and its files are forgotten; 409 while it runs. */
  private delete(res: ServerResponse, id: string): void {
    if (this.deleteBehaviour === 'unsupported') return this.problem(res, 405, 'no deletes here');
    if (this.deleteBehaviour === 'fail') return this.problem(res, 503, 'briefly away');
    const job = this.jobs.get(id);
    if (!job) return this.problem(res, 404, 'no such job');
    if (['queued', 'running'].includes(this.stateOf(job).status)) return this.problem(res, 409, 'still running');
    this.jobs.delete(id);
    this.deleted.push(id);
    res.writeHead(204).end();
  }

  private async file(res: ServerResponse, id: string, kind: string): Promise<void> {
    const job = this.jobs.get(id);
    if (!job?.scene || kind !== 'mesh') return this.problem(res, 404, 'no such file');
    switch (this.result) {
      case 'corrupt-glb':
        return this.bytes(res, brokenGlb(PROVIDER_MARKER));
      case 'oversized':
        res.writeHead(200, { 'content-type': 'model/gltf-binary', 'content-length': String(this.oversizeBytes) });
        res.end(Buffer.alloc(this.oversizeBytes, 0x20));
        return;
      case 'oversized-chunked':
        res.writeHead(200, { 'content-type': 'model/gltf-binary' });
        return streamFiller(res, this.oversizeBytes);
      case 'slow-file':
      case 'stalled-file': {
        const bytes = (await job.scene).artifacts[0].bytes;
        res.writeHead(200, { 'content-type': 'model/gltf-binary', 'content-length': String(bytes.length) });
        const part = Math.ceil(bytes.length / 8);
        for (let i = 0; i < 8 && !res.destroyed; i++) {
          if (this.result === 'stalled-file' && i === 4) return; // the socket stays open, silent
          res.write(bytes.subarray(i * part, (i + 1) * part));
          await new Promise((r) => setTimeout(r, 100));
        }
        res.end();
        return;
      }
      default:
        return this.bytes(res, (await job.scene).artifacts[0].bytes);
    }
  }

  private bytes(res: ServerResponse, bytes: Buffer): void {
    res.writeHead(200, { 'content-type': 'model/gltf-binary', 'content-length': String(bytes.length) });
    res.end(bytes);
  }

  private json(res: ServerResponse, status: number, value: unknown): void {
    const bytes = Buffer.from(JSON.stringify(value));
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(bytes.length) });
    res.end(bytes);
  }

  /** An error answer whose status text and body both carry the marker. */
  private problem(res: ServerResponse, status: number, detail: string, headers: Record<string, string> = {}): void {
    const bytes = Buffer.from(JSON.stringify({ error: `${detail} ${PROVIDER_MARKER}`, trace: `at provider.py:42 ${PROVIDER_MARKER}` }));
    res.writeHead(status, `Failed ${PROVIDER_MARKER}`, {
      'content-type': 'application/json',
      'content-length': String(bytes.length),
      ...headers,
    });
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
    edit: body.instruction === null ? null : { previous: body.previousView, instruction: body.instruction },
    idempotencyKey: 'fake',
  };
}
