import { readGlb } from '../glb';
import { GeneratedScene, GenerationError, GenerationRequest, SceneGenerator } from '../scene-generator';
import { SceneSpec } from '../scene-spec';
import { parseSceneSpec } from '../scene-spec.parser';

export interface HttpSceneGeneratorOptions {
  /** e.g. `https://provider.example`; the generator POSTs to `${baseUrl}/v1/generations`. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>`; null sends no Authorization header. */
  apiKey: string | null;
  /** For the whole exchange: connecting, sending, waiting and reading the answer. */
  timeoutMs: number;
  /** Answers larger than this are refused without being read to the end. Default 64 MiB. */
  maxResponseBytes?: number;
}

/** The body of `POST /v1/generations` (docs/generation-provider.md). */
export interface ProviderGenerationRequest {
  sceneId: string;
  version: number;
  prompt: string;
  instruction: string | null;
  previousSpec: SceneSpec | null;
  sourceImage: { format: 'png' | 'jpeg' | 'webp'; width: number; height: number; sha256: string; dataBase64: string } | null;
}

export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

// Messages are ours and fixed: partners see them on failed operations, so nothing the provider
// said (bodies, status texts) and no exception text ever goes into them.
const MESSAGES = {
  provider_timeout: 'The generation provider did not answer in time.',
  provider_unavailable: 'The generation provider is unavailable. Try again later.',
  provider_rejected: 'The generation provider rejected the request.',
  generation_failed: 'The generation provider returned an invalid result.',
} as const;

/**
 * A SceneGenerator backed by an external generation service over HTTP. It sends the request
 * (with the source image inline, base64) and accepts only a well-formed answer: a valid scene
 * spec and a GLB that parses. Every failure becomes a GenerationError whose `retryable` tells
 * the worker whether BullMQ should try again.
 */
export class HttpSceneGenerator extends SceneGenerator {
  private readonly url: string;
  private readonly maxResponseBytes: number;

  constructor(private readonly options: HttpSceneGeneratorOptions) {
    super();
    this.url = `${options.baseUrl.replace(/\/+$/, '')}/v1/generations`;
    this.maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  }

  async generate(request: GenerationRequest, signal?: AbortSignal): Promise<GeneratedScene> {
    signal?.throwIfAborted();
    const timeout = AbortSignal.timeout(this.options.timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`;

    let body: Uint8Array;
    try {
      const response = await fetch(this.url, {
        method: 'POST',
        headers,
        body: JSON.stringify(providerRequest(request)),
        signal: combined,
        // A redirect would resend the request (and the image) somewhere we were not configured to use.
        redirect: 'manual',
      });
      if (response.status !== 200) {
        await response.body?.cancel().catch(() => undefined);
        throw statusError(response.status);
      }
      body = await readCapped(response, this.maxResponseBytes);
    } catch (e) {
      if (e instanceof GenerationError) throw e;
      // The caller cancelled (the scene was deleted, the worker is stopping): not a provider failure.
      if (signal?.aborted) throw signal.reason;
      if (timeout.aborted) throw failure('provider_timeout', true);
      throw failure('provider_unavailable', true, e);
    }
    return parseAnswer(body);
  }
}

export function providerRequest(request: GenerationRequest): ProviderGenerationRequest {
  const source = request.source;
  return {
    sceneId: request.sceneId,
    version: request.version,
    prompt: request.prompt,
    instruction: request.edit?.instruction ?? null,
    previousSpec: request.edit?.previousSpec ?? null,
    sourceImage: source
      ? {
          format: source.format,
          width: source.width,
          height: source.height,
          sha256: source.sha256,
          dataBase64: source.bytes.toString('base64'),
        }
      : null,
  };
}

/** 408 and 429 and 5xx may pass on retry; any other non-200 answer will not. */
export function statusError(status: number): GenerationError {
  const cause = { status };
  if (status === 408) return failure('provider_timeout', true, cause);
  if (status === 429 || status >= 500) return failure('provider_unavailable', true, cause);
  if (status >= 300) return failure('provider_rejected', false, cause);
  return failure('generation_failed', false, cause);
}

async function readCapped(response: Response, max: number): Promise<Uint8Array> {
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > max) {
    await response.body?.cancel().catch(() => undefined);
    throw failure('generation_failed', false, { reason: 'response too large' });
  }
  if (!response.body) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let total = 0;
  // Leaving the loop early (the throw) cancels the stream, so the rest is never downloaded.
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    total += chunk.byteLength;
    if (total > max) throw failure('generation_failed', false, { reason: 'response too large' });
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, total);
}

async function parseAnswer(body: Uint8Array): Promise<GeneratedScene> {
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8'));
  } catch {
    // No cause: a JSON SyntaxError quotes the provider's text.
    throw failure('generation_failed', false, { reason: 'response is not JSON' });
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw failure('generation_failed', false, { reason: 'response is not an object' });
  }
  const answer = json as Record<string, unknown>;

  let spec: SceneSpec;
  try {
    spec = parseSceneSpec(answer.spec);
  } catch (e) {
    throw failure('generation_failed', false, e);
  }

  const glbBase64 = answer.glbBase64;
  if (typeof glbBase64 !== 'string' || glbBase64.length === 0 || glbBase64.length % 4 !== 0 || !BASE64.test(glbBase64)) {
    throw failure('generation_failed', false, { reason: 'glbBase64 is not base64' });
  }
  const glb = Buffer.from(glbBase64, 'base64');
  try {
    await readGlb(glb);
  } catch {
    throw failure('generation_failed', false, { reason: 'glb does not parse' });
  }
  return { spec, glb };
}

function failure(code: keyof typeof MESSAGES, retryable: boolean, cause?: unknown): GenerationError {
  return new GenerationError(code, MESSAGES[code], retryable, cause === undefined ? undefined : { cause });
}
