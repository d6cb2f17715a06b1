import { createGltfIO } from '@app/generation';
import { Document } from '@gltf-transform/core';
import { randomUUID } from 'node:crypto';
import { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { FakeServer, streamFiller, brokenGlb, glbWithText, pngWithText, PROVIDER_FILE_MARKER } from './fake-server';
import sharp from 'sharp';

/**
 * A stand-in for Meshy's API, written from the protocol reference (shared-notes
 * provider-protocols.md, section 2): a real HTTP server on 127.0.0.1 that speaks the text-to-3d
 * (preview and refine) and image-to-3d endpoints, answers task polls with the documented task
 * object, deletes tasks, and serves the files a task hands back (a real GLB and a PNG thumbnail).
 *
 * A task's state is computed from its timestamps when it is read — PENDING for `pendingMs`, then
 * IN_PROGRESS with progress rising over `taskDurationMs`, then its outcome — so thousands of
 * tasks cost a map entry each and no timer. Every error body and status text carries
 * MESHY_MARKER, so a test can prove nothing Meshy says reaches our messages. The model and the
 * thumbnail carry the task's prompt and PROVIDER_FILE_MARKER in their metadata (glTF extras and
 * names, a PNG text chunk, in the model's texture too), as a provider's files may.
 */

// Short on purpose (see PROVIDER_MARKER): V8's JSON.parse errors quote about ten characters.
export const MESHY_MARKER = 'QZMESHY7';
/** Meshy's documented test-mode key (no credits, canned results); the fake's default key is another one. */
export const MESHY_TEST_MODE_KEY = 'msy_dummy_api_key_for_test_mode_12345678';
/** The box every GLB the fake serves spans: tests check that camera presets frame it. */
export const MESHY_FAKE_MODEL_BOUNDS = { min: [-0.4, 0, -0.3], max: [0.4, 1.2, 0.3] } as const;

export type MeshyTaskMode = 'preview' | 'refine' | 'image';
/** How a task ends once its time is up: SUCCEEDED, FAILED, CANCELED, EXPIRED, or never (IN_PROGRESS at 99 forever). */
export type MeshyTaskOutcome = 'succeed' | 'fail' | 'cancel' | 'expire' | 'never';
/**
 * The model a succeeded task hands back: a real GLB (untextured for a preview, textured
 * otherwise), one whose JSON chunk is broken (quoting the marker), none at all (no `glb` in
 * `model_urls`), or `oversizeBytes` of filler announced in Content-Length or streamed without it.
 */
export type MeshyGlbVariant = 'valid' | 'corrupt' | 'missing' | 'oversized' | 'oversized-chunked';
export type MeshyThumbnailVariant = 'png' | 'missing' | 'not-image';

/** An error answer: `status` with `{"message": …}`, `Retry-After` when given, for `times` requests (default: until reset). */
export interface MeshyFakeFailure {
  status: number;
  retryAfter?: string;
  times?: number;
}

export interface MeshyRecordedRequest {
  method: string;
  /** With the query string. */
  path: string;
  headers: IncomingHttpHeaders;
  /** Parsed JSON, or the raw text when it is not JSON ('' for none). */
  body: unknown;
}

interface FakeTask {
  id: string;
  mode: MeshyTaskMode;
  createdAt: number;
  pendingMs: number;
  durationMs: number;
  /** Queue position at creation; it counts down while the task is PENDING. */
  precedingAtCreate: number;
  outcome: MeshyTaskOutcome;
  glb: MeshyGlbVariant;
  thumbnail: MeshyThumbnailVariant;
  prompt: string | null;
}

const TEXT_ROOT = '/openapi/v2/text-to-3d';
const IMAGE_ROOT = '/openapi/v1/image-to-3d';
const THREE_DAYS_MS = 3 * 24 * 3600 * 1000;

export class MeshyFake {
  // ---- knobs: public, switched by tests at will; task knobs apply to tasks created afterwards ----
  /** The key accepted as `Authorization: Bearer <key>`; anything else is a 401. */
  apiKey = `msy_fake_${randomUUID().replace(/-/g, '')}`;
  /** IN_PROGRESS time of a task, after `pendingMs` in the queue. */
  taskDurationMs = 2_000;
  pendingMs = 200;
  outcome: MeshyTaskOutcome = 'succeed';
  /** Per-mode outcomes, over `outcome` (e.g. a preview that succeeds and a refine that fails). */
  outcomes: Partial<Record<MeshyTaskMode, MeshyTaskOutcome>> = {};
  glb: MeshyGlbVariant = 'valid';
  thumbnail: MeshyThumbnailVariant = 'png';
  oversizeBytes = 2 * 1024 * 1024;
  /** Failures of create calls (POST) and of task reads (GET task); `times` counts down, then the fake recovers. */
  createFailure: MeshyFakeFailure | null = null;
  pollFailure: MeshyFakeFailure | null = null;
  /** Failures of task deletes (DELETE), counted down like the others. */
  deleteFailure: MeshyFakeFailure | null = null;
  /**
   * API calls (all, or only creates or task reads) are read and never answered: the socket stays
   * open until the client gives up or close(). Files are still served.
   */
  hang: boolean | 'create' | 'poll' = false;
  /** Creates or task reads answer 200 with a body that is not JSON (and quotes the marker). */
  malformed: 'create' | 'poll' | null = null;
  /** Whether requests are kept in `requests` (a benchmark of thousands of image tasks may not want the bodies). */
  record = true;
  /** The fake's clock, in ms: replace it to move tasks through their states without waiting. */
  now: () => number = () => Date.now();

  // ---- counters ----
  /** Accepted create calls, by mode. */
  readonly creates: Record<MeshyTaskMode, number> = { preview: 0, refine: 0, image: 0 };
  readonly requests: MeshyRecordedRequest[] = [];
  /** Ids of tasks deleted through the API. */
  readonly deleted: string[] = [];

  private readonly tasks = new Map<string, FakeTask>();
  /** Creation times of recent tasks, oldest first: the queue ahead of a new task. */
  private recentCreates: number[] = [];

  private server!: FakeServer;

  private constructor(private readonly files: { previewGlb: Buffer; texturedGlb: Buffer; thumbnail: Buffer }) {}

  static async start(): Promise<MeshyFake> {
    const fake = new MeshyFake({ previewGlb: await modelGlb(false), texturedGlb: await modelGlb(true), thumbnail: await thumbnailPng() });
    fake.server = await FakeServer.listen((req, res) => fake.handle(req, res));
    return fake;
  }

  /** The base URL, for MESHY_BASE_URL. */
  /**
   * A worker's settings for generating through this fake, polling it fast (tests wait on the
   * outcome, not on production's pacing); `extra` adds or overrides settings.
   */
  workerConfig(extra: Record<string, string> = {}): Record<string, string> {
    return {
      GENERATOR: 'meshy',
      MESHY_BASE_URL: this.url,
      MESHY_API_KEY: this.apiKey,
      GENERATION_POLL_INTERVAL_MS: '100',
      GENERATION_POLL_MAX_MS: '200',
      ...extra,
    };
  }

  get url(): string {
    return this.server.url;
  }

  /** The task as `GET …/{id}` answers it now, or null when it does not exist (never created, or deleted). */
  task(id: string): Record<string, unknown> | null {
    const task = this.tasks.get(id);
    return task ? this.view(task) : null;
  }

  /** Ids of the tasks that exist, oldest first, optionally of one mode. */
  taskIds(mode?: MeshyTaskMode): string[] {
    return [...this.tasks.values()].filter((t) => !mode || t.mode === mode).map((t) => t.id);
  }

  /** Ends the queue and work time of one task (or all): it shows its outcome on the next read. */
  finishNow(id?: string): void {
    const now = this.now();
    for (const task of id ? [this.tasks.get(id)].filter((t) => t !== undefined) : this.tasks.values()) {
      task.pendingMs = 0;
      task.durationMs = Math.max(0, now - task.createdAt);
    }
  }

  /** Requests whose method and path (without the query) match. */
  requestsTo(method: string, path: string | RegExp): MeshyRecordedRequest[] {
    return this.requests.filter(
      (r) => r.method === method && (typeof path === 'string' ? r.path.split('?')[0] === path : path.test(r.path)),
    );
  }

  close(): Promise<void> {
    return this.server.close();
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    res.on('error', () => undefined);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: unknown = text;
    try {
      body = text === '' ? '' : JSON.parse(text);
    } catch {
      // kept as text
    }
    const method = req.method ?? '';
    const path = req.url ?? '';
    if (this.record) this.requests.push({ method, path, headers: { ...req.headers }, body });
    const pathname = path.split('?')[0];

    // Files sit behind signed URLs at Meshy: no Authorization there.
    const asset = /^\/assets\/([^/]+)\/(model\.glb|preview\.png)$/.exec(pathname);
    if (asset && method === 'GET') return this.serveAsset(res, asset[1], asset[2]);

    if (this.hang === true || (this.hang === 'create' && method === 'POST') || (this.hang === 'poll' && method === 'GET')) return;
    if (req.headers.authorization !== `Bearer ${this.apiKey}`) return this.error(res, 401, 'Invalid API key.');

    if (method === 'POST' && (pathname === TEXT_ROOT || pathname === IMAGE_ROOT)) {
      if (this.takeFailure('create', res)) return;
      if (this.malformed === 'create') return this.garbage(res, 202);
      if (typeof body !== 'object' || body === null || Array.isArray(body))
        return this.error(res, 400, 'Request body must be a JSON object.');
      return pathname === TEXT_ROOT
        ? this.createText(res, body as Record<string, unknown>)
        : this.createImage(res, body as Record<string, unknown>);
    }
    const taskRoute = /^(\/openapi\/v2\/text-to-3d|\/openapi\/v1\/image-to-3d)\/([^/]+)$/.exec(pathname);
    if (taskRoute && (method === 'GET' || method === 'DELETE')) {
      const task = this.tasks.get(decodeURIComponent(taskRoute[2]));
      const sameKind = task && (task.mode === 'image') === (taskRoute[1] === IMAGE_ROOT);
      if (method === 'GET' && this.takeFailure('poll', res)) return;
      if (method === 'DELETE' && this.takeFailure('delete', res)) return;
      if (method === 'GET' && this.malformed === 'poll') return this.garbage(res, 200);
      if (!task || !sameKind) return this.error(res, 404, 'Task not found.');
      if (method === 'GET') return this.json(res, 200, this.view(task));
      this.tasks.delete(task.id);
      this.deleted.push(task.id);
      res.writeHead(200, { 'content-length': '0' });
      res.end();
      return;
    }
    return this.error(res, 404, 'Not found.');
  }

  private createText(res: ServerResponse, body: Record<string, unknown>): void {
    if (body.mode === 'preview') {
      const prompt = body.prompt;
      if (typeof prompt !== 'string' || prompt.trim() === '') return this.error(res, 400, 'prompt is required.');
      if (Array.from(prompt).length > 600) return this.error(res, 400, 'prompt must be at most 600 characters.');
      return this.accept(res, 'preview', prompt);
    }
    if (body.mode === 'refine') {
      const preview = typeof body.preview_task_id === 'string' ? this.tasks.get(body.preview_task_id) : undefined;
      if (!preview || preview.mode !== 'preview' || this.view(preview).status !== 'SUCCEEDED') {
        return this.error(res, 400, 'preview_task_id must be a succeeded preview task.');
      }
      return this.accept(res, 'refine', preview.prompt);
    }
    return this.error(res, 400, 'mode must be preview or refine.');
  }

  private createImage(res: ServerResponse, body: Record<string, unknown>): void {
    const url = body.image_url;
    if (typeof url !== 'string') return this.error(res, 400, 'image_url is required.');
    if (!url.startsWith('https://')) {
      const data = /^data:image\/(png|jpeg);base64,([A-Za-z0-9+/=]+)$/.exec(url);
      const bytes = data ? Buffer.from(data[2], 'base64') : null;
      const png = bytes?.subarray(0, 4).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47]));
      const jpeg = bytes?.subarray(0, 3).equals(Buffer.from([0xff, 0xd8, 0xff]));
      if (!data || (data[1] === 'png' ? !png : !jpeg))
        return this.error(res, 400, 'image_url must be a public URL or a JPEG or PNG data URI.');
    }
    return this.accept(res, 'image', typeof body.texture_prompt === 'string' ? body.texture_prompt : null);
  }

  private accept(res: ServerResponse, mode: MeshyTaskMode, prompt: string | null): void {
    const now = this.now();
    const pendingMs = Math.max(0, this.pendingMs);
    while (this.recentCreates.length > 0 && this.recentCreates[0] <= now - pendingMs) this.recentCreates.shift();
    const task: FakeTask = {
      id: randomUUID(),
      mode,
      createdAt: now,
      pendingMs,
      durationMs: Math.max(1, this.taskDurationMs),
      precedingAtCreate: this.recentCreates.length,
      outcome: this.outcomes[mode] ?? this.outcome,
      glb: this.glb,
      thumbnail: this.thumbnail,
      prompt,
    };
    this.recentCreates.push(now);
    this.tasks.set(task.id, task);
    this.creates[mode]++;
    this.json(res, 202, { result: task.id });
  }

  /** The documented task object (§2.3), as it stands at `now()`. */
  private view(task: FakeTask): Record<string, unknown> {
    const now = this.now();
    const startedAt = task.createdAt + task.pendingMs;
    const endsAt = startedAt + task.durationMs;
    let status: string;
    let progress: number;
    if (now < startedAt) {
      status = 'PENDING';
      progress = 0;
    } else if (now < endsAt || task.outcome === 'never') {
      status = 'IN_PROGRESS';
      progress = task.durationMs > 0 ? Math.min(99, Math.floor(((now - startedAt) / task.durationMs) * 100)) : 99;
    } else {
      status = { succeed: 'SUCCEEDED', fail: 'FAILED', cancel: 'CANCELED', expire: 'EXPIRED' }[task.outcome];
      progress = task.outcome === 'succeed' ? 100 : 0;
    }
    const succeeded = status === 'SUCCEEDED';
    const finished = ['SUCCEEDED', 'FAILED', 'CANCELED', 'EXPIRED'].includes(status);
    const expires = `Expires=${task.createdAt + THREE_DAYS_MS}`;
    return {
      id: task.id,
      type: task.mode === 'image' ? 'image-to-3d' : `text-to-3d-${task.mode}`,
      ...(task.mode === 'image' ? {} : { mode: task.mode, prompt: task.prompt, art_style: 'realistic' }),
      model_urls: succeeded && task.glb !== 'missing' ? { glb: `${this.url}/assets/${task.id}/model.glb?${expires}` } : {},
      thumbnail_url: succeeded && task.thumbnail !== 'missing' ? `${this.url}/assets/${task.id}/preview.png?${expires}` : '',
      video_url: '',
      texture_urls: [],
      progress,
      status,
      preceding_tasks: status === 'PENDING' ? Math.ceil((task.precedingAtCreate * (startedAt - now)) / Math.max(1, task.pendingMs)) : 0,
      created_at: task.createdAt,
      started_at: now >= startedAt ? startedAt : 0,
      finished_at: finished ? endsAt : 0,
      task_error: { message: status === 'FAILED' ? `The server is busy. Please try again later. ${MESHY_MARKER}` : '' },
    };
  }

  private async serveAsset(res: ServerResponse, id: string, file: string): Promise<void> {
    const task = this.tasks.get(id);
    if (!task || this.view(task).status !== 'SUCCEEDED') return this.error(res, 404, 'Asset not found.');
    const text = `${PROVIDER_FILE_MARKER} ${task.prompt ?? `image task ${task.id}`}`;
    if (file === 'preview.png') {
      const bytes = task.thumbnail === 'png' ? pngWithText(this.files.thumbnail, text) : Buffer.from(`<html>${MESHY_MARKER}</html>`);
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(bytes.length) });
      res.end(bytes);
      return;
    }
    switch (task.glb) {
      case 'valid':
      case 'missing': {
        const bytes = glbWithText(task.mode === 'preview' ? this.files.previewGlb : this.files.texturedGlb, text);
        res.writeHead(200, { 'content-type': 'model/gltf-binary', 'content-length': String(bytes.length) });
        res.end(bytes);
        return;
      }
      case 'corrupt': {
        const bytes = brokenGlb(MESHY_MARKER);
        res.writeHead(200, { 'content-type': 'model/gltf-binary', 'content-length': String(bytes.length) });
        res.end(bytes);
        return;
      }
      case 'oversized':
        res.writeHead(200, { 'content-type': 'model/gltf-binary', 'content-length': String(this.oversizeBytes) });
        res.end(Buffer.alloc(this.oversizeBytes, 0x20));
        return;
      case 'oversized-chunked':
        res.writeHead(200, { 'content-type': 'model/gltf-binary' });
        return streamFiller(res, this.oversizeBytes);
    }
  }

  /** Answers with the configured failure when there is one for this kind of call, counting it down. */
  private takeFailure(kind: 'create' | 'poll' | 'delete', res: ServerResponse): boolean {
    const failure = { create: this.createFailure, poll: this.pollFailure, delete: this.deleteFailure }[kind];
    if (!failure) return false;
    if (failure.times !== undefined) {
      failure.times--;
      if (failure.times <= 0) {
        if (kind === 'create') this.createFailure = null;
        else if (kind === 'poll') this.pollFailure = null;
        else this.deleteFailure = null;
      }
    }
    this.error(res, failure.status, `Request failed with status ${failure.status}.`, failure.retryAfter);
    return true;
  }

  private json(res: ServerResponse, status: number, value: unknown): void {
    const bytes = Buffer.from(JSON.stringify(value));
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(bytes.length) });
    res.end(bytes);
  }

  private garbage(res: ServerResponse, status: number): void {
    const bytes = Buffer.from(`${MESHY_MARKER} {"result": not json`);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(bytes.length) });
    res.end(bytes);
  }

  /** Meshy's error shape, `{"message": …}`, with the marker in the message and the status text. */
  private error(res: ServerResponse, status: number, message: string, retryAfter?: string): void {
    const bytes = Buffer.from(JSON.stringify({ message: `${message} ${MESHY_MARKER}` }));
    res.writeHead(status, `Meshy ${MESHY_MARKER}`, {
      'content-type': 'application/json',
      'content-length': String(bytes.length),
      ...(retryAfter !== undefined ? { 'retry-after': retryAfter } : {}),
    });
    res.end(bytes);
  }
}

/** A box spanning MESHY_FAKE_MODEL_BOUNDS: grey for a preview, with a PNG base-colour texture (and PBR factors) otherwise. */
async function modelGlb(textured: boolean): Promise<Buffer> {
  const { min, max } = MESHY_FAKE_MODEL_BOUNDS;
  const { positions, normals, uvs, indices } = box([...min], [...max]);
  const doc = new Document();
  const buffer = doc.createBuffer();
  const material = doc.createMaterial('surface').setBaseColorFactor([0.7, 0.7, 0.7, 1]).setMetallicFactor(0).setRoughnessFactor(0.8);
  if (textured) {
    const png = pngWithText(
      await sharp({ create: { width: 64, height: 64, channels: 3, background: { r: 190, g: 90, b: 40 } } })
        .png()
        .toBuffer(),
      PROVIDER_FILE_MARKER,
    );
    material.setBaseColorFactor([1, 1, 1, 1]).setBaseColorTexture(doc.createTexture('base_color').setImage(png).setMimeType('image/png'));
  }
  const primitive = doc
    .createPrimitive()
    .setAttribute('POSITION', doc.createAccessor().setType('VEC3').setArray(positions).setBuffer(buffer))
    .setAttribute('NORMAL', doc.createAccessor().setType('VEC3').setArray(normals).setBuffer(buffer))
    .setAttribute('TEXCOORD_0', doc.createAccessor().setType('VEC2').setArray(uvs).setBuffer(buffer))
    .setIndices(doc.createAccessor().setType('SCALAR').setArray(indices).setBuffer(buffer))
    .setMaterial(material);
  const node = doc.createNode('model').setMesh(doc.createMesh('model').addPrimitive(primitive));
  doc.getRoot().setDefaultScene(doc.createScene('scene').addChild(node));
  return Buffer.from(await createGltfIO().writeBinary(doc));
}

/** Four vertices per face (each with its own normal and full UV square), two triangles each. */
function box(min: number[], max: number[]): { positions: Float32Array; normals: Float32Array; uvs: Float32Array; indices: Uint16Array } {
  const positions: number[] = [];
  const normals: number[] = [];
  const uvs: number[] = [];
  const indices: number[] = [];
  const corner = (bits: number[]) => bits.map((b, axis) => (b ? max[axis] : min[axis]));
  // For each axis and side: the two in-face axes, ordered so the winding faces outwards.
  for (let axis = 0; axis < 3; axis++) {
    for (const side of [0, 1]) {
      const [u, v] = side ? [(axis + 1) % 3, (axis + 2) % 3] : [(axis + 2) % 3, (axis + 1) % 3];
      const base = positions.length / 3;
      for (const [a, b] of [
        [0, 0],
        [1, 0],
        [1, 1],
        [0, 1],
      ]) {
        const bits = [0, 0, 0];
        bits[axis] = side;
        bits[u] = a;
        bits[v] = b;
        positions.push(...corner(bits));
        normals.push(...[0, 1, 2].map((i) => (i === axis ? (side ? 1 : -1) : 0)));
        uvs.push(a, 1 - b);
      }
      indices.push(base, base + 1, base + 2, base, base + 2, base + 3);
    }
  }
  return {
    positions: new Float32Array(positions),
    normals: new Float32Array(normals),
    uvs: new Float32Array(uvs),
    indices: new Uint16Array(indices),
  };
}

async function thumbnailPng(): Promise<Buffer> {
  return sharp({ create: { width: 64, height: 64, channels: 3, background: { r: 200, g: 200, b: 210 } } })
    .png()
    .toBuffer();
}
