import { createGltfIO, Splat, writeSpz } from '@app/generation';
import { Document } from '@gltf-transform/core';
import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';
import { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { FakeServer, glbWithText, jpegWithComment, pngWithText, PROVIDER_FILE_MARKER, streamFiller } from './fake-server';
import { gzipSync } from 'node:zlib';
import sharp from 'sharp';

/**
 * A stand-in for World Labs' Marble API v1, written from the protocol reference
 * (shared-notes/provider-protocols.md, section 1) and served by a real HTTP server on
 * 127.0.0.1: `worlds:generate`, operations, worlds (get, list), the media-asset upload flow with
 * a signed-URL-like upload endpoint, and the world's files (a real SPZ, a collider GLB, a
 * panorama PNG and a thumbnail JPEG) on the same server.
 *
 * Operations keep no timers: each one's state is computed from its creation time when it is
 * read, so thousands can run at once for the price of a map entry each.
 *
 * Every error body and status text carries WORLDLABS_MARKER, and so do failed operations and
 * corrupt files, so a test can prove that nothing Marble says reaches our error messages.
 */
// Short on purpose: V8's JSON.parse errors quote only about ten characters of their input.
export const WORLDLABS_MARKER = 'QZWLK9X';

export const MARBLE_MODELS = [
  'marble-1.0-draft',
  'marble-1.0',
  'marble-1.1',
  'marble-1.1-plus',
  'Marble 0.1-mini',
  'Marble 0.1-plus',
  'Marble 1.1-plus',
];

/**
 * The `semantics_metadata` of the fake's worlds, in the shape World Labs documents ("Rendering
 * Marble SPZ files in third-party engines": `metric_scale_factor` converts raw units to metres,
 * `ground_plane_offset` places the metric ground plane at y = 0). The fake's files are written
 * for these values in Marble's raw frame (OpenCV: y down, z forward), as the API hands them over.
 */
export const FAKE_WORLD_SEMANTICS = { metric_scale_factor: 1.25, ground_plane_offset: 0.4 } as const;

type Vec3 = [number, number, number];

/**
 * A point of the fake's world, designed in studio units (metres, +Y up, ground at y = 0, ahead
 * towards −Z), as Marble writes it: the inverse of World Labs' recipe (raw × scale, then the
 * ground offset off y, then y and z negated for OpenGL), so the studio must apply all three to
 * see the world as designed.
 */
function toMarbleRaw([x, y, z]: readonly number[]): Vec3 {
  const { metric_scale_factor: s, ground_plane_offset: g } = FAKE_WORLD_SEMANTICS;
  return [x / s, (g - y) / s, -z / s];
}

/** Points in the fake's SPZ for each resolution key, so a test can tell which one was downloaded. */
export const FAKE_SPLAT_POINTS: Record<string, number> = { '100k': 1_000, '150k': 1_500, '500k': 3_000, full_res: 6_000 };
const OTHER_SPLAT_POINTS = 2_000;

/**
 * What the fake does. API errors (`unauthorized` … `polls-unavailable`)
 * apply to the calls made while they are set. Outcomes of a job (`job-fails` … `no-splat`) are
 * fixed when its generate is accepted: switching back to `success` afterwards does not heal it.
 */
export type WorldLabsBehaviour =
  /** Worlds are generated in `jobDurationMs`, progress rising with time. */
  | 'success'
  /** 401 on every API call, whatever the key (a revoked key). A wrong key always gets 401. */
  | 'unauthorized'
  /** 402 on `worlds:generate`: the account has no credits. */
  | 'no-credits'
  /** 422 on `worlds:generate`, FastAPI-shaped, whatever the body. */
  | 'unprocessable'
  /** 429 on `worlds:generate`, with `Retry-After: retryAfterSeconds` (unless null). */
  | 'rate-limited'
  /** 500 on `worlds:generate`. */
  | 'server-error'
  /** `worlds:generate` never answers (until the client gives up or `close()`). */
  | 'hang'
  /** `worlds:generate` answers 200 with an object that is not an operation. */
  | 'malformed-operation'
  /** The signed upload URL answers 403 (an expired signature, say). */
  | 'upload-refused'
  /** 503 on the next `pollFailures` operation reads, then answers as usual. */
  | 'polls-unavailable'
  /** The job ends `done: true` with an `error` (at `jobDurationMs`). */
  | 'job-fails'
  /** The job never ends: `done: false`, progress stuck at 99. */
  | 'never-finishes'
  /** The world's SPZ URLs serve a file announcing `oversizeBytes` in Content-Length. */
  | 'oversized-splat'
  /** The world's SPZ URLs stream `oversizeBytes` without a Content-Length. */
  | 'oversized-splat-chunked'
  /** The world's SPZ URLs serve gzip whose SPZ header lies about its size. */
  | 'corrupt-splat'
  /** The world has no splats at all (`assets.splats: null`). */
  | 'no-splat';

type Outcome = 'success' | 'job-fails' | 'never-finishes' | 'oversized-splat' | 'oversized-splat-chunked' | 'corrupt-splat' | 'no-splat';
const OUTCOMES: readonly WorldLabsBehaviour[] = [
  'job-fails',
  'never-finishes',
  'oversized-splat',
  'oversized-splat-chunked',
  'corrupt-splat',
  'no-splat',
];

export interface WorldLabsReceivedRequest {
  method: string;
  /** With the query string. */
  path: string;
  headers: IncomingHttpHeaders;
  /** Parsed JSON; the text when it is not JSON; `{ byteLength, sha256 }` for binary bodies (uploads). */
  body: unknown;
}

interface FakeOperation {
  id: string;
  worldId: string;
  createdAt: number;
  durationMs: number;
  outcome: Outcome;
  displayName: string;
  model: string;
  tags: string[];
  worldPrompt: Record<string, unknown>;
}

interface FakeMediaAsset {
  id: string;
  fileName: string;
  kind: string;
  extension: string | null;
  createdAt: number;
  token: string;
  upload: { byteLength: number; sha256: string; contentType: string } | null;
}

interface FakeFiles {
  spz: Map<string, Buffer>;
  otherSpz: Buffer;
  corruptSpz: Buffer;
  collider: Buffer;
  pano: Buffer;
  thumbnail: Buffer;
}

const API = '/marble/v1';

/**
 * World Labs' default start-rate limit per account (docs.worldlabs.ai/api/rate-limits: about 3
 * world generation starts a minute, "tracked in a rolling window"), for tests and benchmarks
 * that need the provider to push back as Marble does.
 */
export const WORLDLABS_DEFAULT_START_RATE = { starts: 3, windowMs: 60_000 } as const;
const UPLOAD_RANGE = '0,104857600';
const EXPIRY_MS = 3_600_000;

export interface FakeWorldLabsOptions {
  apiKey?: string;
  jobDurationMs?: number;
  startRate?: { starts: number; windowMs: number } | null;
}

export class FakeWorldLabs {
  /** The key the fake accepts in `WLT-Api-Key`. */
  readonly apiKey: string;
  behaviour: WorldLabsBehaviour = 'success';
  /** How long a job takes, from its generate; fixed per job when it is accepted. */
  jobDurationMs: number;
  /** `Retry-After` (seconds) of `rate-limited`; null sends no header. */
  retryAfterSeconds: number | null = 7;
  /** How many operation reads `polls-unavailable` still fails. */
  pollFailures = 3;
  /** The size of the oversized splat. */
  oversizeBytes = 4 * 1024 * 1024;
  /** The `spz_urls` keys a finished world lists. */
  splatResolutions: string[] = ['100k', '500k', 'full_res'];
  /**
   * `assets.splats.semantics_metadata` of finished worlds; null leaves it out. The files are
   * written for FAKE_WORLD_SEMANTICS whatever this says (they are built once per process).
   */
  semantics: { metric_scale_factor: number; ground_plane_offset: number } | null = { ...FAKE_WORLD_SEMANTICS };
  /** Off for benchmarks: `requests` grows by one entry per request. */
  recordRequests = true;

  /**
   * Starts allowed per account in a rolling window; past it, `worlds:generate` answers 429 with
   * `Retry-After` (the seconds until the oldest start leaves the window), as Marble does. Null:
   * unlimited (the protocol tests, which start many worlds at once).
   */
  startRate: { starts: number; windowMs: number } | null;
  /** Generates refused by `startRate` (429). */
  rateLimited = 0;
  /** Every `worlds:generate` that passed validation: when it arrived and, when refused for the rate, its Retry-After. */
  readonly generateAttempts: { at: number; retryAfterSeconds: number | null }[] = [];
  /** When each accepted generate arrived (ms), oldest first. */
  readonly startTimes: number[] = [];

  /** `worlds:generate` calls accepted (each one a billed world at Marble). */
  submits = 0;
  /** The most worlds ever being generated at once (accepted, not yet done), counted at each accepted generate. */
  maxGenerating = 0;
  /** Uploads to a signed URL accepted. */
  uploads = 0;
  /** What each accepted upload carried, byte for byte, oldest first (kept while `recordRequests` is on). */
  readonly uploadedFiles: { mediaAssetId: string; contentType: string; bytes: Buffer }[] = [];
  /** Operation reads (polls) answered, whatever their outcome. */
  operationReads = 0;
  /** `DELETE /worlds/{id}` answers this status instead, `times` times (then the fake recovers; without `times`, until reset). */
  deleteFailure: { status: number; times?: number } | null = null;
  /** Worlds deleted through the API, oldest first. */
  readonly deletedWorlds: string[] = [];
  readonly requests: WorldLabsReceivedRequest[] = [];

  private readonly operations = new Map<string, FakeOperation>();
  private readonly worlds = new Map<string, FakeOperation>();
  private readonly assets = new Map<string, FakeMediaAsset>();
  private readonly signingKey = randomBytes(16);

  private server!: FakeServer;

  private constructor(
    private readonly files: FakeFiles,
    options: FakeWorldLabsOptions,
  ) {
    this.apiKey = options.apiKey ?? `wlt_fake_${randomBytes(12).toString('hex')}`;
    this.jobDurationMs = options.jobDurationMs ?? 2_000;
    this.startRate = options.startRate ?? null;
  }

  static async start(options: FakeWorldLabsOptions = {}): Promise<FakeWorldLabs> {
    const fake = new FakeWorldLabs(await fakeFiles(), options);
    fake.server = await FakeServer.listen((req, res) => fake.handle(req, res));
    return fake;
  }

  /** The base URL to configure (`WORLDLABS_BASE_URL`). */
  /**
   * A worker's settings for generating through this fake, polling it fast (tests wait on the
   * outcome, not on production's pacing); `extra` adds or overrides settings.
   */
  workerConfig(extra: Record<string, string> = {}): Record<string, string> {
    return {
      GENERATOR: 'worldlabs',
      WORLDLABS_BASE_URL: this.url,
      WORLDLABS_API_KEY: this.apiKey,
      GENERATION_POLL_INTERVAL_MS: '100',
      GENERATION_POLL_MAX_MS: '200',
      ...extra,
    };
  }

  get url(): string {
    return this.server.url;
  }

  /** Requests whose path (without the query) is `path`, optionally of one method. */
  requestsTo(path: string, method?: string): WorldLabsReceivedRequest[] {
    return this.requests.filter((r) => r.path.split('?')[0] === path && (!method || r.method === method));
  }

  /** What the signed upload of a media asset received, or null before it. */
  uploaded(mediaAssetId: string): { byteLength: number; sha256: string; contentType: string } | null {
    return this.assets.get(mediaAssetId)?.upload ?? null;
  }

  /** Whether a world exists (generated and not deleted). */
  hasWorld(worldId: string): boolean {
    return this.worlds.has(worldId);
  }

  /** The worlds that exist, and the media assets (never deleted: Marble has no way to). */
  worldIds(): string[] {
    return [...this.worlds.keys()];
  }
  mediaAssetIds(): string[] {
    return [...this.assets.keys()];
  }

  /** Ends a job now (as its outcome says: `never-finishes` becomes a success). */
  finish(operationId: string): void {
    const op = this.operations.get(operationId);
    if (!op) throw new Error(`no operation ${operationId}`);
    // Ended as of now, so its updated_at reads as the moment it finished.
    op.durationMs = Math.min(op.durationMs, Date.now() - op.createdAt);
    if (op.outcome === 'never-finishes') op.outcome = 'success';
  }

  close(): Promise<void> {
    return this.server.close();
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req, 32 * 1024 * 1024);
    if (raw === null) return this.detail(res, 413, 'Request body too large');
    const url = new URL(req.url ?? '/', 'http://fake');
    const isJson = (req.headers['content-type'] ?? '').startsWith('application/json');
    const body = parseBody(raw, isJson);
    if (this.recordRequests) this.requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
    const path = url.pathname;

    if (path.startsWith('/uploads/')) return this.upload(req, res, url, raw);
    if (path.startsWith('/files/')) return this.file(req, res, path);
    if (!path.startsWith(`${API}/`)) return this.detail(res, 404, 'Not Found');
    if (req.headers['wlt-api-key'] !== this.apiKey || this.behaviour === 'unauthorized') {
      return this.detail(res, 401, 'Invalid or missing API key');
    }
    const route = `${req.method} ${path.slice(API.length)}`;
    if (route === 'POST /worlds:generate') return this.generate(res, raw, body);
    if (route === 'POST /worlds:list') return this.list(res, body);
    if (route === 'POST /media-assets:prepare_upload') return this.prepareUpload(res, raw, body);
    const [, collection, id] = /^\/(operations|worlds|media-assets)\/([^/:]+)$/.exec(path.slice(API.length)) ?? [];
    if (req.method === 'GET' && collection === 'operations') {
      this.operationReads++;
      return this.getOperation(res, decodeURIComponent(id));
    }
    if (req.method === 'GET' && collection === 'worlds') {
      const op = this.worlds.get(decodeURIComponent(id));
      return op ? this.json(res, 200, this.world(op, Date.now())) : this.detail(res, 404, 'World not found');
    }
    if (req.method === 'DELETE' && collection === 'worlds') return this.deleteWorld(res, decodeURIComponent(id));
    if (req.method === 'GET' && collection === 'media-assets') {
      const asset = this.assets.get(decodeURIComponent(id));
      return asset ? this.json(res, 200, mediaAssetJson(asset)) : this.detail(res, 404, 'Media asset not found');
    }
    return this.detail(res, 404, 'Not Found');
  }

  private async generate(res: ServerResponse, raw: Buffer, body: unknown): Promise<void> {
    const invalid = raw.length === 0 || body === undefined ? jsonInvalid() : this.validateGenerate(body);
    if (invalid) return invalid.status === 422 ? this.validation(res, invalid.issues) : this.detail(res, invalid.status, invalid.message);
    const arrived = Date.now();
    const waitMs = this.startWaitMs(arrived);
    const retryAfterSeconds = waitMs > 0 ? Math.ceil(waitMs / 1000) : null;
    this.generateAttempts.push({ at: arrived, retryAfterSeconds });
    if (retryAfterSeconds !== null) {
      this.rateLimited++;
      return this.detail(res, 429, 'Too many generation requests', { 'retry-after': String(retryAfterSeconds) });
    }
    switch (this.behaviour) {
      case 'no-credits':
        return this.detail(res, 402, 'Insufficient API credits to start this request.');
      case 'unprocessable':
        return this.validation(res, [{ loc: ['body', 'world_prompt', 'type'], msg: 'Field required', type: 'missing' }]);
      case 'rate-limited':
        return this.detail(
          res,
          429,
          'Too many generation requests',
          this.retryAfterSeconds === null ? {} : { 'retry-after': String(this.retryAfterSeconds) },
        );
      case 'server-error':
        return this.detail(res, 500, 'Generation could not be started');
      case 'hang':
        return; // the socket stays open until the client gives up or close() destroys it
      case 'malformed-operation':
        return this.json(res, 200, { done: 'maybe', note: WORLDLABS_MARKER });
      default:
        break;
    }
    const b = body as Record<string, unknown>;
    const now = Date.now();
    const op: FakeOperation = {
      id: randomUUID(),
      worldId: randomUUID(),
      createdAt: now,
      durationMs: this.jobDurationMs,
      outcome: OUTCOMES.includes(this.behaviour) ? (this.behaviour as Outcome) : 'success',
      displayName: typeof b.display_name === 'string' ? b.display_name : 'Untitled world',
      model: typeof b.model === 'string' ? b.model : 'marble-1.1',
      tags: Array.isArray(b.tags) ? (b.tags as string[]) : [],
      worldPrompt: b.world_prompt as Record<string, unknown>,
    };
    this.operations.set(op.id, op);
    this.worlds.set(op.worldId, op);
    this.maxGenerating = Math.max(this.maxGenerating, [...this.operations.values()].filter((o) => !isDone(o, now)).length);
    this.submits++;
    this.startTimes.push(now);
    // As the quickstart shows: not done, no metadata yet.
    return this.json(res, 200, {
      ...this.operationTimes(op, now),
      operation_id: op.id,
      done: false,
      error: null,
      metadata: null,
      response: null,
      cost: null,
    });
  }

  /**
   * `DELETE /marble/v1/worlds/{world_id}` as documented: `{"deleted": true, "world_id": …}`, 404 for
   * a world that does not exist (or no longer does). Its files go with it.
   */
  private deleteWorld(res: ServerResponse, worldId: string): void {
    const failure = this.deleteFailure;
    if (failure) {
      if (failure.times !== undefined && --failure.times <= 0) this.deleteFailure = null;
      return this.detail(res, failure.status, 'World deletion failed');
    }
    if (!this.worlds.delete(worldId)) return this.detail(res, 404, 'World not found');
    this.deletedWorlds.push(worldId);
    return this.json(res, 200, { deleted: true, world_id: worldId });
  }

  /** 0 when a start is allowed now, else how long until the rolling window has room. */
  private startWaitMs(now: number): number {
    if (!this.startRate) return 0;
    const inWindow = this.startTimes.filter((t) => t > now - this.startRate!.windowMs);
    if (inWindow.length < this.startRate.starts) return 0;
    return inWindow[inWindow.length - this.startRate.starts] + this.startRate.windowMs - now;
  }

  private validateGenerate(body: unknown): Invalid | null {
    if (!isObject(body)) return unprocessable(['body'], 'Input should be a valid dictionary', 'model_attributes_type');
    const wp = body.world_prompt;
    if (wp === undefined) return unprocessable(['body', 'world_prompt'], 'Field required', 'missing');
    if (!isObject(wp) || !['text', 'image', 'multi-image', 'video'].includes(wp.type as string)) {
      return unprocessable(['body', 'world_prompt'], 'Input tag does not match any of the expected tags', 'union_tag_invalid');
    }
    if (wp.text_prompt !== undefined && wp.text_prompt !== null && typeof wp.text_prompt !== 'string') {
      return unprocessable(['body', 'world_prompt', wp.type as string, 'text_prompt'], 'Input should be a valid string', 'string_type');
    }
    if (wp.type === 'image') {
      const ref = wp.image_prompt;
      if (ref === undefined) return unprocessable(['body', 'world_prompt', 'image', 'image_prompt'], 'Field required', 'missing');
      if (!isObject(ref) || !['media_asset', 'uri', 'data_base64'].includes(ref.source as string)) {
        return unprocessable(
          ['body', 'world_prompt', 'image', 'image_prompt'],
          'Input tag does not match any of the expected tags',
          'union_tag_invalid',
        );
      }
      if (ref.source === 'media_asset') {
        if (typeof ref.media_asset_id !== 'string') {
          return unprocessable(
            ['body', 'world_prompt', 'image', 'image_prompt', 'media_asset', 'media_asset_id'],
            'Field required',
            'missing',
          );
        }
        if (!this.assets.get(ref.media_asset_id)?.upload) return { status: 400, message: 'Media asset not found or not ready' };
      }
    }
    if (body.model !== undefined && !MARBLE_MODELS.includes(body.model as string)) return { status: 400, message: 'Invalid model' };
    if (body.display_name !== undefined && body.display_name !== null) {
      if (typeof body.display_name !== 'string')
        return unprocessable(['body', 'display_name'], 'Input should be a valid string', 'string_type');
      if (Array.from(body.display_name).length > 64) return { status: 400, message: 'display_name must be at most 64 characters' };
    }
    if (body.tags !== undefined && body.tags !== null) {
      if (!Array.isArray(body.tags) || body.tags.some((t) => typeof t !== 'string')) {
        return unprocessable(['body', 'tags'], 'Input should be a valid list of strings', 'list_type');
      }
      if (body.tags.length > 10 || body.tags.some((t: string) => t.length > 32))
        return { status: 400, message: 'At most 10 tags of 32 characters' };
    }
    if (
      body.seed !== undefined &&
      body.seed !== null &&
      !(Number.isInteger(body.seed) && (body.seed as number) >= 0 && (body.seed as number) <= 4294967295)
    ) {
      return unprocessable(['body', 'seed'], 'Input should be a valid integer', 'int_type');
    }
    return null;
  }

  private getOperation(res: ServerResponse, id: string): void {
    if (this.behaviour === 'polls-unavailable' && this.pollFailures > 0) {
      this.pollFailures--;
      return this.detail(res, 503, 'Service temporarily unavailable');
    }
    const op = this.operations.get(id);
    if (!op) return this.detail(res, 404, 'Operation not found');
    return this.json(res, 200, this.operationJson(op, Date.now()));
  }

  private operationJson(op: FakeOperation, now: number): Record<string, unknown> {
    const base = { ...this.operationTimes(op, now), operation_id: op.id };
    if (!isDone(op, now)) {
      const progress = op.durationMs <= 0 ? 99 : Math.min(99, Math.floor(((now - op.createdAt) / op.durationMs) * 100));
      return {
        ...base,
        done: false,
        error: null,
        metadata: { progress_percentage: progress, world_id: op.worldId },
        response: null,
        cost: null,
      };
    }
    if (op.outcome === 'job-fails') {
      return {
        ...base,
        done: true,
        error: { code: 13, message: `World generation failed: internal error ${WORLDLABS_MARKER}` },
        metadata: { progress_percentage: 100, world_id: op.worldId },
        response: null,
        cost: null,
      };
    }
    const credits = op.model === 'marble-1.0-draft' || op.model === 'Marble 0.1-mini' ? 150 : 1_500;
    return {
      ...base,
      done: true,
      error: null,
      metadata: { progress_percentage: 100, world_id: op.worldId },
      response: this.world(op, now),
      cost: { total_credits: credits, line_items: [{ name: 'world_generation', credits }] },
    };
  }

  private operationTimes(op: FakeOperation, now: number): Record<string, string> {
    const updated = isDone(op, now) ? op.createdAt + op.durationMs : now;
    return {
      created_at: new Date(op.createdAt).toISOString(),
      updated_at: new Date(updated).toISOString(),
      expires_at: new Date(op.createdAt + EXPIRY_MS).toISOString(),
    };
  }

  private world(op: FakeOperation, now: number): Record<string, unknown> {
    const done = isDone(op, now);
    return {
      world_id: op.worldId,
      display_name: op.displayName,
      world_marble_url: `https://marble.worldlabs.ai/world/${op.worldId}`,
      model: op.model,
      tags: op.tags,
      created_at: new Date(op.createdAt).toISOString(),
      updated_at: new Date(done ? op.createdAt + op.durationMs : now).toISOString(),
      permission: { public: false, allow_id_access: false, allowed_readers: [], allowed_writers: [] },
      world_prompt: op.worldPrompt,
      assets: done && op.outcome !== 'job-fails' ? this.worldAssets(op) : null,
    };
  }

  private worldAssets(op: FakeOperation): Record<string, unknown> {
    const files = `${this.url}/files/${op.worldId}`;
    const splatFile = (resolution: string) =>
      ({
        'oversized-splat': 'oversized.spz',
        'oversized-splat-chunked': 'oversized-chunked.spz',
        'corrupt-splat': 'corrupt.spz',
      })[op.outcome as string] ?? `splat-${resolution}.spz`;
    return {
      caption: 'A generated world',
      thumbnail_url: `${files}/thumbnail.jpg`,
      imagery: { pano_url: `${files}/pano.png` },
      mesh: { collider_mesh_url: `${files}/collider.glb`, full_res_mesh_url: null, hq_mesh_url: null },
      splats:
        op.outcome === 'no-splat'
          ? null
          : {
              spz_urls: Object.fromEntries(this.splatResolutions.map((r) => [r, `${files}/${splatFile(r)}`])),
              ...(this.semantics ? { semantics_metadata: this.semantics } : {}),
            },
    };
  }

  private list(res: ServerResponse, body: unknown): void {
    const b = isObject(body) ? body : {};
    const pageSize = Number.isInteger(b.page_size) ? Math.min(100, Math.max(1, b.page_size as number)) : 20;
    const offset = typeof b.page_token === 'string' ? Number(b.page_token) || 0 : 0;
    const now = Date.now();
    const tags = Array.isArray(b.tags) ? (b.tags as string[]) : null;
    const matching = [...this.operations.values()]
      .filter((op) => this.worlds.has(op.worldId))
      .filter((op) => !tags || op.tags.some((t) => tags.includes(t)))
      .filter((op) => typeof b.model !== 'string' || op.model === b.model)
      .filter((op) => typeof b.status !== 'string' || statusOf(op, now) === b.status)
      .sort((x, y) => y.createdAt - x.createdAt);
    const page = matching.slice(offset, offset + pageSize);
    return this.json(res, 200, {
      worlds: page.map((op) => this.world(op, now)),
      next_page_token: offset + pageSize < matching.length ? String(offset + pageSize) : null,
    });
  }

  private prepareUpload(res: ServerResponse, raw: Buffer, body: unknown): void {
    if (raw.length === 0 || body === undefined) return this.validation(res, jsonInvalid().issues);
    if (!isObject(body))
      return this.validation(res, [{ loc: ['body'], msg: 'Input should be a valid dictionary', type: 'model_attributes_type' }]);
    if (typeof body.file_name !== 'string')
      return this.validation(res, [{ loc: ['body', 'file_name'], msg: 'Field required', type: 'missing' }]);
    if (Array.from(body.file_name).length > 64) {
      return this.validation(res, [
        { loc: ['body', 'file_name'], msg: 'String should have at most 64 characters', type: 'string_too_long' },
      ]);
    }
    if (body.kind !== 'image' && body.kind !== 'video') {
      return this.validation(res, [{ loc: ['body', 'kind'], msg: "Input should be 'image' or 'video'", type: 'enum' }]);
    }
    if (body.extension !== undefined && body.extension !== null && typeof body.extension !== 'string') {
      return this.validation(res, [{ loc: ['body', 'extension'], msg: 'Input should be a valid string', type: 'string_type' }]);
    }
    const asset: FakeMediaAsset = {
      id: randomUUID(),
      fileName: body.file_name,
      kind: body.kind,
      extension: (body.extension as string | null | undefined) ?? null,
      createdAt: Date.now(),
      token: randomBytes(8).toString('hex'),
      upload: null,
    };
    this.assets.set(asset.id, asset);
    return this.json(res, 200, {
      media_asset: mediaAssetJson(asset),
      upload_info: {
        upload_url: `${this.url}/uploads/${asset.id}?X-Fake-Signature=${this.sign(asset.id)}`,
        upload_method: 'PUT',
        required_headers: { 'x-goog-content-length-range': UPLOAD_RANGE, 'X-Fake-Upload-Token': asset.token },
        curl_example: null,
      },
    });
  }

  /** The signed URL: no API key (a client sending one is leaking it), every announced header, an image type. */
  private upload(req: IncomingMessage, res: ServerResponse, url: URL, raw: Buffer): void {
    const asset = this.assets.get(decodeURIComponent(url.pathname.slice('/uploads/'.length)));
    if (
      req.method !== 'PUT' ||
      !asset ||
      url.searchParams.get('X-Fake-Signature') !== this.sign(asset.id) ||
      this.behaviour === 'upload-refused'
    ) {
      return this.detail(res, 403, 'SignatureDoesNotMatch');
    }
    if (req.headers['wlt-api-key'] !== undefined) return this.detail(res, 400, 'Unexpected credentials on a signed URL');
    if (req.headers['x-goog-content-length-range'] !== UPLOAD_RANGE || req.headers['x-fake-upload-token'] !== asset.token) {
      return this.detail(res, 403, 'Missing a required header of the signed URL');
    }
    const contentType = req.headers['content-type'] ?? '';
    if (!contentType.startsWith(`${asset.kind}/`)) return this.detail(res, 400, 'Content-Type does not match the asset kind');
    const [, max] = UPLOAD_RANGE.split(',').map(Number);
    if (raw.length > max) return this.detail(res, 400, 'EntityTooLarge');
    asset.upload = { byteLength: raw.length, sha256: sha256(raw), contentType };
    this.uploads++;
    if (this.recordRequests) this.uploadedFiles.push({ mediaAssetId: asset.id, contentType, bytes: raw });
    res.writeHead(200, { 'content-length': '0' });
    res.end();
  }

  /** A world's files, as a CDN would serve them: no API key needed. */
  private async file(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    const [, worldId, name] = /^\/files\/([^/]+)\/([^/]+)$/.exec(path) ?? [];
    if (req.method !== 'GET' || !worldId || !this.worlds.has(worldId)) return this.detail(res, 404, 'No such object');
    const splat = /^splat-(.+)\.spz$/.exec(name);
    if (splat) return this.bytes(res, this.files.spz.get(splat[1]) ?? this.files.otherSpz, 'application/octet-stream');
    switch (name) {
      case 'collider.glb':
        return this.bytes(res, this.fileOf(worldId, 'collider'), 'model/gltf-binary');
      case 'pano.png':
        return this.bytes(res, this.fileOf(worldId, 'pano'), 'image/png');
      case 'thumbnail.jpg':
        return this.bytes(res, this.fileOf(worldId, 'thumbnail'), 'image/jpeg');
      case 'corrupt.spz':
        return this.bytes(res, this.files.corruptSpz, 'application/octet-stream');
      case 'oversized.spz':
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(this.oversizeBytes) });
        return streamFiller(res, this.oversizeBytes);
      case 'oversized-chunked.spz':
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        return streamFiller(res, this.oversizeBytes);
      default:
        return this.detail(res, 404, 'No such object');
    }
  }

  /**
   * The world's collider, panorama and thumbnail, their metadata quoting its prompt and
   * PROVIDER_FILE_MARKER; made per download (a few copies of small files), so that a benchmark's
   * thousands of worlds hold nothing.
   */
  private fileOf(worldId: string, name: 'collider' | 'pano' | 'thumbnail'): Buffer {
    const op = this.worlds.get(worldId)!;
    const prompt = typeof op.worldPrompt?.text_prompt === 'string' ? op.worldPrompt.text_prompt : '';
    const text = `${PROVIDER_FILE_MARKER} ${op.displayName} ${prompt}`;
    if (name === 'collider') return glbWithText(this.files.collider, text);
    return name === 'pano' ? pngWithText(this.files.pano, text) : jpegWithComment(this.files.thumbnail, text);
  }

  private sign(id: string): string {
    return createHmac('sha256', this.signingKey).update(id).digest('hex');
  }

  private json(res: ServerResponse, status: number, value: unknown): void {
    const bytes = Buffer.from(JSON.stringify(value));
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(bytes.length) });
    res.end(bytes);
  }

  private bytes(res: ServerResponse, bytes: Buffer, contentType: string): void {
    res.writeHead(200, { 'content-type': contentType, 'content-length': String(bytes.length) });
    res.end(bytes);
  }

  /** Marble's error shape, `{"detail": …}`; the body, the request id and the status text carry the marker. */
  private detail(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
    const bytes = Buffer.from(JSON.stringify({ detail: `${message} ${WORLDLABS_MARKER}`, request_id: `req_${WORLDLABS_MARKER}` }));
    res.writeHead(status, `Marble ${WORLDLABS_MARKER}`, {
      ...headers,
      'content-type': 'application/json',
      'content-length': String(bytes.length),
    });
    res.end(bytes);
  }

  /** FastAPI's 422: a list of issues, each message carrying the marker. */
  private validation(res: ServerResponse, issues: Issue[]): void {
    const bytes = Buffer.from(JSON.stringify({ detail: issues.map((i) => ({ ...i, msg: `${i.msg} ${WORLDLABS_MARKER}` })) }));
    res.writeHead(422, `Unprocessable ${WORLDLABS_MARKER}`, { 'content-type': 'application/json', 'content-length': String(bytes.length) });
    res.end(bytes);
  }
}

interface Issue {
  loc: (string | number)[];
  msg: string;
  type: string;
}
type Invalid = { status: 422; issues: Issue[] } | { status: 400; message: string };

const unprocessable = (loc: (string | number)[], msg: string, type: string): Invalid => ({ status: 422, issues: [{ loc, msg, type }] });
const jsonInvalid = (): { status: 422; issues: Issue[] } => ({
  status: 422,
  issues: [{ loc: ['body', 0], msg: 'JSON decode error', type: 'json_invalid' }],
});

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isDone(op: FakeOperation, now: number): boolean {
  return op.outcome !== 'never-finishes' && now - op.createdAt >= op.durationMs;
}

function statusOf(op: FakeOperation, now: number): string {
  if (!isDone(op, now)) return now - op.createdAt < 50 ? 'PENDING' : 'RUNNING';
  return op.outcome === 'job-fails' ? 'FAILED' : 'SUCCEEDED';
}

function mediaAssetJson(asset: FakeMediaAsset): Record<string, unknown> {
  return {
    media_asset_id: asset.id,
    file_name: asset.fileName,
    kind: asset.kind,
    extension: asset.extension,
    metadata: null,
    created_at: new Date(asset.createdAt).toISOString(),
    updated_at: null,
  };
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** The body, or null past `max` bytes. */
async function readBody(req: IncomingMessage, max: number): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of req) {
    total += (chunk as Buffer).length;
    if (total > max) return null;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks, total);
}

/** JSON bodies parsed (undefined when they do not parse); others summarised, so records stay small. */
function parseBody(raw: Buffer, isJson: boolean): unknown {
  if (isJson) {
    try {
      return JSON.parse(raw.toString('utf8'));
    } catch {
      return undefined;
    }
  }
  return raw.length === 0 ? null : { byteLength: raw.length, sha256: sha256(raw) };
}

let built: Promise<FakeFiles> | null = null;

/** Built once per test process: the same files for every fake. */
function fakeFiles(): Promise<FakeFiles> {
  built ??= buildFiles();
  return built;
}

async function buildFiles(): Promise<FakeFiles> {
  const spz = new Map(Object.entries(FAKE_SPLAT_POINTS).map(([resolution, n]) => [resolution, writeSpz(worldSplats(n))]));
  // A gzip SPZ header claiming more points than it holds, followed by text that quotes the marker.
  const header = Buffer.alloc(16);
  header.writeUInt32LE(0x5053474e, 0);
  header.writeUInt32LE(3, 4);
  header.writeUInt32LE(5_000, 8);
  header[13] = 12;
  const corruptSpz = gzipSync(Buffer.concat([header, Buffer.from(`truncated splat data ${WORLDLABS_MARKER}`)]));
  const gradient = (width: number, height: number) => {
    const raw = Buffer.alloc(width * height * 3);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const i = (y * width + x) * 3;
        raw[i] = Math.round(90 + (120 * y) / height);
        raw[i + 1] = Math.round(140 + (60 * x) / width);
        raw[i + 2] = Math.round(230 - (150 * y) / height);
      }
    }
    return sharp(raw, { raw: { width, height, channels: 3 } });
  };
  return {
    spz,
    otherSpz: writeSpz(worldSplats(OTHER_SPLAT_POINTS)),
    corruptSpz,
    collider: await colliderGlb(),
    // Marble's panoramas are 2560×1280 equirectangular PNGs; a smaller one of the same shape will do.
    pano: await gradient(1024, 512).png().toBuffer(),
    thumbnail: await gradient(320, 180).jpeg({ quality: 80 }).toBuffer(),
  };
}

/**
 * A small world: a green-brown ground disc of radius 6 m at y = 0 and a few coloured blobs
 * above it (designed in metres, +Y up; written in Marble's raw frame and units, toMarbleRaw).
 */
function worldSplats(n: number): Splat[] {
  let seed = n;
  const random = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const blobs = [
    { at: [2, 1, -3], color: [0.8, 0.2, 0.2] },
    { at: [-2.5, 1.5, -2], color: [0.2, 0.4, 0.85] },
    { at: [0, 2.5, -5], color: [0.9, 0.8, 0.3] },
  ] as const;
  // Splat sizes scale with positions (World Labs: "Apply scale to Gaussian centers and Gaussian
  // sizes"); the axis-aligned ellipsoids need no rotation for the 180° turn about X.
  const size = (v: Vec3): Vec3 => v.map((c) => c / FAKE_WORLD_SEMANTICS.metric_scale_factor) as Vec3;
  const splats: Splat[] = [];
  for (let i = 0; i < n; i++) {
    if (i % 3 !== 0) {
      const r = 6 * Math.sqrt(random());
      const a = 2 * Math.PI * random();
      const shade = 0.8 + 0.4 * random();
      splats.push({
        position: toMarbleRaw([r * Math.cos(a), 0, r * Math.sin(a)]),
        opacity: 0.9,
        color: [0.35 * shade, 0.5 * shade, 0.2 * shade],
        scale: size([0.08, 0.01, 0.08]),
        rotation: [0, 0, 0, 1],
      });
    } else {
      const blob = blobs[i % blobs.length];
      const jitter = () => (random() - 0.5) * 0.8;
      splats.push({
        position: toMarbleRaw([blob.at[0] + jitter(), blob.at[1] + jitter(), blob.at[2] + jitter()]),
        opacity: 0.7,
        color: [...blob.color],
        scale: size([0.05, 0.05, 0.05]),
        rotation: [0, 0, 0, 1],
      });
    }
  }
  return splats;
}

/**
 * A collider as Marble ships one: a GLB of plain triangles, in the splat's raw frame and units
 * (here a ground disc of radius 6 m at y = 0 and a 1 m box standing on it 2.5–3.5 m ahead, at −Z;
 * toMarbleRaw turns them into Marble's frame, a proper rotation, so the winding stays).
 */
async function colliderGlb(): Promise<Buffer> {
  const positions: number[] = [0, 0, 0];
  const indices: number[] = [];
  const segments = 32;
  for (let i = 0; i < segments; i++) {
    const a = (2 * Math.PI * i) / segments;
    positions.push(6 * Math.cos(a), 0, 6 * Math.sin(a));
    indices.push(0, 1 + ((i + 1) % segments), 1 + i);
  }
  const base = positions.length / 3;
  for (const [x, y, z] of [
    [-0.5, 0, -3.5],
    [0.5, 0, -3.5],
    [0.5, 1, -3.5],
    [-0.5, 1, -3.5],
    [-0.5, 0, -2.5],
    [0.5, 0, -2.5],
    [0.5, 1, -2.5],
    [-0.5, 1, -2.5],
  ]) {
    positions.push(x, y, z);
  }
  const faces = [0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4, 3, 7, 6, 3, 6, 2, 0, 4, 7, 0, 7, 3, 1, 2, 6, 1, 6, 5];
  indices.push(...faces.map((f) => base + f));
  const raw: number[] = [];
  for (let i = 0; i < positions.length; i += 3) raw.push(...toMarbleRaw(positions.slice(i, i + 3)));
  const doc = new Document();
  const buffer = doc.createBuffer();
  const position = doc.createAccessor().setType('VEC3').setArray(new Float32Array(raw)).setBuffer(buffer);
  const index = doc.createAccessor().setType('SCALAR').setArray(new Uint16Array(indices)).setBuffer(buffer);
  const mesh = doc.createMesh('collider').addPrimitive(doc.createPrimitive().setAttribute('POSITION', position).setIndices(index));
  doc.createScene('world').addChild(doc.createNode('collider').setMesh(mesh));
  return Buffer.from(await createGltfIO().writeBinary(doc));
}
