import { randomUUID } from 'node:crypto';
import { OperationTimeoutError, SceneStudioError, toProblem } from './errors';
import { createApiClient, type ApiClient } from './http';
import {
  backoffMs,
  DEFAULT_RETRY_POLICY,
  defaultSleep,
  isNetworkError,
  parseRetryAfter,
  RETRYABLE_STATUSES,
  type RetryPolicy,
  type Sleep,
} from './retry';
import type {
  AcceptedOperation,
  CreateEmbedSessionInput,
  CreateSceneInput,
  CreateWebhookEndpointInput,
  EmbedSession,
  ExpiredImageAsset,
  ExtendedEmbedSession,
  FinishedOperation,
  ImageAsset,
  Operation,
  Scene,
  Usage,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
  WebhookTestResult,
} from './types';
import { toUploadBlob, type UploadOptions, type UploadSource } from './uploads';

export interface SceneStudioClientOptions {
  /** `sk_test_…` or `sk_live_…`. Keep it on your server. */
  apiKey: string;
  /** The api's base URL. Default `http://localhost:3000`. */
  baseUrl?: string;
  /** Retries of requests that got no decision (network errors, 429, 502, 503, 504). */
  retry?: Partial<RetryPolicy>;
  /** A fetch implementation (default: the global one). */
  fetch?: typeof fetch;
  /** How the client waits between attempts and polls (default: a timer). For tests and custom schedulers. */
  sleep?: Sleep;
  /**
   * Abandon an attempt that has not been answered after this long, and retry it like a lost
   * connection. Default 60 s (an upload of 20 MiB over a slow link needs most of it).
   */
  requestTimeoutMs?: number;
}

export interface RequestOptions {
  signal?: AbortSignal;
}

export interface CreatedScene extends AcceptedOperation {
  /** The Idempotency-Key sent on every attempt: store it with your record to retry after a crash. */
  idempotencyKey: string;
  /** True when the api replayed the answer to an earlier request with this key. */
  replayed: boolean;
}

export interface ResumedScene {
  operationId: string;
  /** True when a scene with this externalRef already existed (a crash after creation, or a race). */
  resumed: boolean;
  /** Set when resumed: the existing scene. */
  scene: Scene | null;
  /** Set when created: the key that created it. */
  idempotencyKey: string | null;
}

export interface WaitOptions extends RequestOptions {
  /** Give up (OperationTimeoutError) after this long. Default 10 minutes. */
  timeoutMs?: number;
  /** Called with each processing state whose progress or stage changed; progress never goes back. */
  onProgress?: (state: { progress: number; stage: string | null; operation: Operation }) => void;
  /** Upper bound of one wait between polls, whatever Retry-After says. Default 10 s. */
  maxPollIntervalMs?: number;
}

/** What a request answers: data or error, and the raw response. */
interface FetchResult<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

const codeOf = (body: unknown) => (body as { code?: string } | undefined)?.code;

/**
 * Statuses that ask for the same request again, per call: the create also waits out a concurrent
 * twin, but not a spent daily quota (`quota_exceeded`: its Retry-After is hours, up to midnight
 * UTC; the caller decides).
 */
const SCENE_CREATE_RETRY = (status: number, body: unknown) =>
  (RETRYABLE_STATUSES.has(status) && codeOf(body) !== 'quota_exceeded') ||
  (status === 409 && codeOf(body) === 'idempotency_request_in_progress');
const TRANSIENT = (status: number) => RETRYABLE_STATUSES.has(status);

/**
 * The Scene Studio partner API for Node (≥ 20.19). Each method is one partner task, with the
 * retries a partner would otherwise write: failed connections and 429/502/503/504 are retried
 * with the answer's Retry-After (else exponential backoff with jitter); scene creation reuses one
 * Idempotency-Key across its retries, so it never creates twins. Any other non-2xx answer throws
 * SceneStudioError with the RFC 9457 problem. `raw` is the typed request layer (openapi-fetch's
 * shape) for everything else.
 */
export class SceneStudioClient {
  readonly raw: ApiClient;
  private readonly policy: RetryPolicy;
  private readonly sleep: Sleep;
  private readonly requestTimeoutMs: number;

  constructor(options: SceneStudioClientOptions) {
    if (!options.apiKey) throw new TypeError('SceneStudioClient needs an apiKey');
    this.raw = createApiClient({
      baseUrl: (options.baseUrl ?? 'http://localhost:3000').replace(/\/+$/, ''),
      headers: { authorization: `Bearer ${options.apiKey}` },
      fetch: options.fetch,
    });
    this.policy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.sleep = options.sleep ?? defaultSleep;
    this.requestTimeoutMs = options.requestTimeoutMs ?? 60_000;
  }

  /** POST /v1/image-assets from a path, bytes, a Blob or a stream. */
  async uploadImage(source: UploadSource, options: UploadOptions & RequestOptions = {}): Promise<ImageAsset> {
    const { blob, filename } = await toUploadBlob(source, options);
    return this.call(
      (signal) => {
        const form = new FormData();
        form.append('file', blob, filename);
        return this.raw.POST('/v1/image-assets', { body: form as never, signal });
      },
      TRANSIENT,
      options.signal,
    );
  }

  /** GET /v1/image-assets/{id}. */
  getImageAsset(imageAssetId: string, options: RequestOptions = {}): Promise<ImageAsset> {
    return this.call(
      (signal) => this.raw.GET('/v1/image-assets/{imageAssetId}', { params: { path: { imageAssetId } }, signal }),
      TRANSIENT,
      options.signal,
    );
  }

  /**
   * POST /v1/scenes with one Idempotency-Key for all its attempts (a fresh UUID v4, or
   * `idempotencyKey` when you stored one before calling, to survive your own crash): a retried
   * request replays the first answer instead of creating a second scene.
   */
  async createScene(input: CreateSceneInput & { idempotencyKey?: string }, options: RequestOptions = {}): Promise<CreatedScene> {
    const { idempotencyKey = randomUUID(), ...body } = input;
    let replayed = false;
    const accepted = await this.call(
      async (signal) => {
        const result = await this.raw.POST('/v1/scenes', {
          params: { header: { 'Idempotency-Key': idempotencyKey } },
          body,
          signal,
        });
        replayed = result.response.headers.get('idempotent-replayed') === 'true';
        return result;
      },
      SCENE_CREATE_RETRY,
      options.signal,
    );
    return { ...accepted, idempotencyKey, replayed };
  }

  /**
   * The scene for `externalRef`, created only if none exists: the recovery path after a crash
   * between sending a create and storing its operation id. Looks the reference up first; if
   * another create won a race in between (`external_ref_conflict`), resumes that one.
   */
  async createOrResumeScene(
    input: CreateSceneInput & { externalRef: string; idempotencyKey?: string },
    options: RequestOptions = {},
  ): Promise<ResumedScene> {
    const existing = await this.findSceneByExternalRef(input.externalRef, options);
    if (existing) return { operationId: existing.operationId, resumed: true, scene: existing, idempotencyKey: null };
    try {
      const created = await this.createScene(input, options);
      return { operationId: created.operationId, resumed: false, scene: null, idempotencyKey: created.idempotencyKey };
    } catch (e) {
      if (!(e instanceof SceneStudioError && e.code === 'external_ref_conflict')) throw e;
      const winner = await this.findSceneByExternalRef(input.externalRef, options);
      if (!winner) throw e;
      return { operationId: winner.operationId, resumed: true, scene: winner, idempotencyKey: null };
    }
  }

  /** GET /v1/scenes?externalRef=…: the active scene with that reference, or null. */
  async findSceneByExternalRef(externalRef: string, options: RequestOptions = {}): Promise<Scene | null> {
    try {
      return await this.call(
        (signal) => this.raw.GET('/v1/scenes', { params: { query: { externalRef } }, signal }),
        TRANSIENT,
        options.signal,
      );
    } catch (e) {
      if (e instanceof SceneStudioError && e.code === 'not_found') return null;
      throw e;
    }
  }

  /** GET /v1/scenes/{id}. */
  getScene(sceneId: string, options: RequestOptions = {}): Promise<Scene> {
    return this.call(
      (signal) => this.raw.GET('/v1/scenes/{sceneId}', { params: { path: { sceneId } }, signal }),
      TRANSIENT,
      options.signal,
    );
  }

  /** DELETE /v1/scenes/{id}: succeeds for any well-formed id, even an unknown one. */
  async deleteScene(sceneId: string, options: RequestOptions = {}): Promise<void> {
    await this.call(
      (signal) => this.raw.DELETE('/v1/scenes/{sceneId}', { params: { path: { sceneId } }, signal }),
      TRANSIENT,
      options.signal,
    );
  }

  /** GET /v1/operations/{id}, with the answer's Retry-After (set while processing). */
  async getOperation(
    operationId: string,
    options: RequestOptions = {},
  ): Promise<{ operation: Operation; retryAfterSeconds: number | null }> {
    let retryAfterSeconds: number | null = null;
    const operation = await this.call(
      async (signal) => {
        const result = await this.raw.GET('/v1/operations/{operationId}', { params: { path: { operationId } }, signal });
        retryAfterSeconds = parseRetryAfter(result.response.headers.get('retry-after'));
        return result;
      },
      TRANSIENT,
      options.signal,
    );
    return { operation, retryAfterSeconds };
  }

  /**
   * Polls an operation until it succeeds or fails, waiting what each answer's Retry-After says
   * (at most `maxPollIntervalMs`) and reporting progress. A failed operation is returned, not
   * thrown: its `error.code` and `error.retryable` say what to do next.
   */
  async waitForOperation(operationId: string, options: WaitOptions = {}): Promise<FinishedOperation> {
    const { timeoutMs = 10 * 60_000, maxPollIntervalMs = 10_000, onProgress, signal } = options;
    const deadline = Date.now() + timeoutMs;
    let reported: { progress: number; stage: string | null } | null = null;
    for (;;) {
      const { operation, retryAfterSeconds } = await this.getOperation(operationId, { signal });
      if (operation.status !== 'processing') return operation as FinishedOperation;
      // The api promises a progress that never decreases; the max keeps that true for the
      // caller even across replicas that answer from slightly different moments.
      const progress = Math.max(reported?.progress ?? 0, operation.progress ?? 0);
      const stage = operation.stage ?? null;
      if (onProgress && (!reported || reported.progress !== progress || reported.stage !== stage)) {
        onProgress({ progress, stage, operation });
      }
      reported = { progress, stage };
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new OperationTimeoutError(operationId, timeoutMs);
      const wait = Math.min(retryAfterSeconds !== null ? retryAfterSeconds * 1000 : 1000, maxPollIntervalMs, remaining);
      await this.sleep(wait, signal);
    }
  }

  /** POST /v1/operations/{id}:cancel: the operation as it stands after the call. */
  cancelOperation(operationId: string, options: RequestOptions = {}): Promise<Operation> {
    return this.call(
      (signal) => this.raw.POST('/v1/operations/{operationId}:cancel', { params: { path: { operationId } }, signal }),
      TRANSIENT,
      options.signal,
    );
  }

  /**
   * POST /v1/embed-sessions. The answer's `url` is a bearer secret: hand it to the browser only in
   * an authenticated `Cache-Control: private, no-store` response, and never log it. Not retried
   * after a lost connection (a session is not idempotent); 429 and 503 are.
   */
  createEmbedSession(input: CreateEmbedSessionInput, options: RequestOptions = {}): Promise<EmbedSession> {
    return this.call(
      (signal) => this.raw.POST('/v1/embed-sessions', { body: input, signal }),
      (status) => status === 429 || status === 503,
      options.signal,
      { retryNetworkErrors: false },
    );
  }

  /** DELETE /v1/embed-sessions/{id}: the URL stops working. */
  async revokeEmbedSession(embedSessionId: string, options: RequestOptions = {}): Promise<void> {
    await this.call(
      (signal) => this.raw.DELETE('/v1/embed-sessions/{embedSessionId}', { params: { path: { embedSessionId } }, signal }),
      TRANSIENT,
      options.signal,
    );
  }

  /**
   * POST /v1/embed-sessions/{id}:extend: a new expiry, `expiresInSeconds` (300 to 86400) from now,
   * for an active session; the open studio learns it without a reload. A 404 (SceneStudioError,
   * `not_found`) means the session already ended: issue a new one.
   */
  extendEmbedSession(embedSessionId: string, expiresInSeconds: number, options: RequestOptions = {}): Promise<ExtendedEmbedSession> {
    return this.call(
      (signal) =>
        this.raw.POST('/v1/embed-sessions/{embedSessionId}:extend', {
          params: { path: { embedSessionId } },
          body: { expiresInSeconds },
          signal,
        }),
      TRANSIENT,
      options.signal,
    );
  }

  /**
   * POST /v1/embed-sessions/{id}:expire (test organizations only): the session expires now, as if
   * its time had run out — the studio shows its ended page (`session.ended`, reason `expired`) and
   * `embed_session.ended` is sent. A live key gets SceneStudioError `403 test_mode_only`.
   */
  expireEmbedSession(embedSessionId: string, options: RequestOptions = {}): Promise<ExtendedEmbedSession> {
    return this.call(
      (signal) => this.raw.POST('/v1/embed-sessions/{embedSessionId}:expire', { params: { path: { embedSessionId } }, signal }),
      TRANSIENT,
      options.signal,
    );
  }

  /**
   * POST /v1/image-assets/{id}:expire (test organizations only): an unattached asset expires now,
   * as if its 24 hours had passed. A live key gets SceneStudioError `403 test_mode_only`.
   */
  expireImageAsset(imageAssetId: string, options: RequestOptions = {}): Promise<ExpiredImageAsset> {
    return this.call(
      (signal) => this.raw.POST('/v1/image-assets/{imageAssetId}:expire', { params: { path: { imageAssetId } }, signal }),
      TRANSIENT,
      options.signal,
    );
  }

  /**
   * POST /v1/webhook-endpoints/{id}:test (test organizations only): sends a signed `webhook.test`
   * event to the endpoint now and answers with the attempt (`delivered`, the status code or our
   * word for what went wrong). Not retried by the client: each call is one more send.
   */
  testWebhookEndpoint(webhookEndpointId: string, options: RequestOptions = {}): Promise<WebhookTestResult> {
    return this.call(
      (signal) => this.raw.POST('/v1/webhook-endpoints/{webhookEndpointId}:test', { params: { path: { webhookEndpointId } }, signal }),
      () => false,
      options.signal,
      { retryNetworkErrors: false },
    );
  }

  /** POST /v1/webhook-endpoints. The answer's `secret` is shown this once: store it (verifyWebhook needs it). */
  createWebhookEndpoint(input: CreateWebhookEndpointInput, options: RequestOptions = {}): Promise<WebhookEndpointWithSecret> {
    return this.call(
      (signal) => this.raw.POST('/v1/webhook-endpoints', { body: input, signal }),
      (status) => status === 429 || status === 503,
      options.signal,
      { retryNetworkErrors: false },
    );
  }

  /** GET /v1/webhook-endpoints (no secrets): every endpoint, following `nextCursor` across pages. */
  async listWebhookEndpoints(options: RequestOptions = {}): Promise<WebhookEndpoint[]> {
    const all: WebhookEndpoint[] = [];
    let after: string | undefined;
    for (;;) {
      const query = { limit: 100, ...(after && { after }) };
      const page = await this.call(
        (signal) => this.raw.GET('/v1/webhook-endpoints', { params: { query }, signal }),
        TRANSIENT,
        options.signal,
      );
      all.push(...page.items);
      if (!page.nextCursor) return all;
      after = page.nextCursor;
    }
  }

  /** GET /v1/usage: the organization's usage per UTC day (default: this month up to today), its limits and today's quota. */
  usage(period: { from?: string; to?: string } = {}, options: RequestOptions = {}): Promise<Usage> {
    return this.call((signal) => this.raw.GET('/v1/usage', { params: { query: period }, signal }), TRANSIENT, options.signal);
  }

  /** DELETE /v1/webhook-endpoints/{id}. */
  async deleteWebhookEndpoint(webhookEndpointId: string, options: RequestOptions = {}): Promise<void> {
    await this.call(
      (signal) => this.raw.DELETE('/v1/webhook-endpoints/{webhookEndpointId}', { params: { path: { webhookEndpointId } }, signal }),
      TRANSIENT,
      options.signal,
    );
  }

  /**
   * Runs `attempt` until it answers 2xx (its data), a status `retryable` refuses (thrown as
   * SceneStudioError), or the attempts run out (the last error thrown). Each attempt gets a
   * signal that aborts on the caller's signal or after `requestTimeoutMs`.
   */
  private async call<T>(
    attempt: (signal: AbortSignal) => Promise<FetchResult<T>>,
    retryable: (status: number, body: unknown) => boolean,
    signal: AbortSignal | undefined,
    { retryNetworkErrors = true }: { retryNetworkErrors?: boolean } = {},
  ): Promise<T> {
    for (let n = 1; ; n++) {
      const timeout = AbortSignal.timeout(this.requestTimeoutMs);
      let result: FetchResult<T>;
      try {
        result = await attempt(signal ? AbortSignal.any([signal, timeout]) : timeout);
      } catch (e) {
        // A timed-out attempt may have reached the api, like a lost connection: the same rules.
        const unanswered = isNetworkError(e) || (timeout.aborted && !signal?.aborted);
        if (!retryNetworkErrors || !unanswered || n >= this.policy.maxAttempts || signal?.aborted) throw e;
        await this.sleep(backoffMs(this.policy, n, null), signal);
        continue;
      }
      const { response } = result;
      if (response.ok) return result.data as T;
      const retryAfter = parseRetryAfter(response.headers.get('retry-after'));
      if (n < this.policy.maxAttempts && retryable(response.status, result.error)) {
        await this.sleep(backoffMs(this.policy, n, retryAfter), signal);
        continue;
      }
      throw new SceneStudioError(
        response.status,
        toProblem(response.status, result.error, response.headers.get('x-request-id')),
        retryAfter,
      );
    }
  }
}
