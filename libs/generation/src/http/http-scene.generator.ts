import { HostResolver } from '@app/core';
import { downloadArtifact } from '../providers/artifacts';
import { invalidResult, jobFailed, ProviderHttp } from '../providers/provider-http';
import { editsAfter, providerView } from '../providers/provider-view';
import {
  ARTIFACT_KINDS,
  ArtifactKind,
  GeneratedScene,
  GenerationRequest,
  JobPoll,
  ProviderErasure,
  ProviderJob,
  SceneArtifact,
  SceneGenerator,
  SubmitOutcome,
} from '../scene-generator';
import { parseSceneView, SceneSpecError, SceneView } from '@scene-studio/world-engine';

export interface HttpSceneGeneratorOptions {
  /** e.g. `https://provider.example`; the protocol lives under `${baseUrl}/v2/generations`. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>`; null sends no Authorization header. */
  apiKey: string | null;
  /** For one call (submit, poll, cancel, or a file download's wait for headers and body). */
  timeoutMs: number;
  /** The largest file the provider may hand back. */
  maxArtifactBytes: number;
  /** Resolves the hosts of file URLs the provider hands back (see ProviderHttp). */
  resolver: HostResolver;
}

/** The body of `POST /v2/generations` (docs/generation-provider.md). */
export interface ProviderGenerationRequest {
  sceneId: string;
  version: number;
  prompt: string;
  instruction: string | null;
  previousView: SceneView | null;
  sourceImage: { format: 'png' | 'jpeg' | 'webp'; width: number; height: number; sha256: string; dataBase64: string } | null;
}

const JOB_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const STATUSES = ['queued', 'running', 'succeeded', 'failed', 'cancelled'] as const;

/**
 * A SceneGenerator backed by an operator's own generation service speaking our asynchronous
 * protocol, version 2 (docs/generation-provider.md): submit with an Idempotency-Key (the
 * operation's id, so a submit repeated after a crash is the same job), poll the job, download
 * the files it lists and check each by its bytes, cancel on request.
 */
export class HttpSceneGenerator extends SceneGenerator {
  readonly name = 'http';
  private readonly http: ProviderHttp;

  constructor(private readonly options: HttpSceneGeneratorOptions) {
    super();
    this.http = new ProviderHttp({
      baseUrl: options.baseUrl,
      headers: options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {},
      timeoutMs: options.timeoutMs,
      resolver: options.resolver,
    });
  }

  async submit(request: GenerationRequest, signal?: AbortSignal): Promise<SubmitOutcome> {
    const { body } = await this.http.json('POST', '/v2/generations', providerRequest(request), {
      signal,
      headers: { 'idempotency-key': request.idempotencyKey },
    });
    return { job: { id: jobIdOf(body) } };
  }

  override async poll(job: ProviderJob, signal?: AbortSignal): Promise<JobPoll> {
    const { body, headers } = await this.http.json('GET', `/v2/generations/${encodeURIComponent(job.id)}`, undefined, { signal });
    const answer = record(body);
    const status = answer.status;
    if (!STATUSES.includes(status as (typeof STATUSES)[number])) throw invalidResult(new Error('unknown job status'));
    switch (status as (typeof STATUSES)[number]) {
      case 'queued':
      case 'running': {
        const retryAfter = Number(headers.get('retry-after'));
        return {
          status: 'running',
          progress: progressOf(answer.progress),
          ...(Number.isFinite(retryAfter) && retryAfter > 0 ? { retryAfterMs: Math.min(retryAfter, 3600) * 1000 } : {}),
        };
      }
      case 'succeeded':
        return { status: 'succeeded' };
      case 'failed': {
        const error = answer.error !== null && typeof answer.error === 'object' ? (answer.error as Record<string, unknown>) : {};
        return { status: 'failed', error: jobFailed(error.retryable === true) };
      }
      case 'cancelled':
        return { status: 'failed', error: jobFailed(true) };
    }
  }

  override async fetch(job: ProviderJob, request: GenerationRequest, signal?: AbortSignal): Promise<GeneratedScene> {
    const { body } = await this.http.json('GET', `/v2/generations/${encodeURIComponent(job.id)}`, undefined, { signal });
    const answer = record(body);
    if (answer.status !== 'succeeded') throw invalidResult(new Error('job is not finished'));
    const result = record(answer.result);
    const files = Array.isArray(result.files) ? (result.files as unknown[]) : null;
    if (!files || files.length === 0 || files.length > ARTIFACT_KINDS.length) throw invalidResult(new Error('no files'));
    const wanted = new Map<ArtifactKind, string>();
    for (const f of files) {
      const file = record(f);
      const kind = file.kind as ArtifactKind;
      if (!ARTIFACT_KINDS.includes(kind) || wanted.has(kind) || typeof file.url !== 'string')
        throw invalidResult(new Error('bad file entry'));
      wanted.set(kind, file.url);
    }
    if (!wanted.has('mesh') && !wanted.has('splat')) throw invalidResult(new Error('neither a mesh nor a splat'));
    const artifacts: SceneArtifact[] = [];
    // One at a time: a worker holds at most one large file per generation in memory while it downloads.
    for (const [kind, url] of wanted) artifacts.push(await downloadArtifact(this.http, kind, url, this.options.maxArtifactBytes, signal));
    let view: SceneView;
    try {
      view =
        result.view == null
          ? providerView({ prompt: request.prompt, bounds: null, edits: editsAfter(request) })
          : parseSceneView(result.view);
    } catch (e) {
      throw invalidResult(e instanceof SceneSpecError ? e : new Error('bad view'));
    }
    return { spec: view, artifacts };
  }

  override async cancel(job: ProviderJob, signal?: AbortSignal): Promise<boolean> {
    const { status } = await this.http.json('POST', `/v2/generations/${encodeURIComponent(job.id)}:cancel`, undefined, {
      signal,
      accept: [404, 409],
    });
    return status >= 200 && status < 300;
  }

  /**
   * The protocol's optional delete, `DELETE /v2/generations/{id}`: the provider forgets the job,
   * its request (prompt, instruction, source image) and its files. `2xx`: deleted; `404`: nothing
   * to delete (forgotten already); `409`: the job still runs (asked again later); `405` or `501`:
   * this provider does not delete, and says so (the job is reported as kept).
   */
  override async delete(job: ProviderJob, _owner: unknown, signal?: AbortSignal): Promise<ProviderErasure> {
    const { status } = await this.http.json('DELETE', `/v2/generations/${encodeURIComponent(job.id)}`, undefined, {
      signal,
      accept: [404, 405, 409, 501],
    });
    if (status === 409) return { status: 'pending' };
    const outcome = status === 404 ? 'absent' : status === 405 || status === 501 ? 'kept' : 'deleted';
    return { status: 'done', objects: [{ kind: 'generation', id: job.id, outcome }] };
  }
}

export function providerRequest(request: GenerationRequest): ProviderGenerationRequest {
  const source = request.source;
  return {
    sceneId: request.sceneId,
    version: request.version,
    prompt: request.prompt,
    instruction: request.edit?.instruction ?? null,
    previousView: request.edit?.previous ?? null,
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

function record(v: unknown): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw invalidResult(new Error('answer is not an object'));
  return v as Record<string, unknown>;
}

function jobIdOf(body: unknown): string {
  const id = record(body).id;
  if (typeof id !== 'string' || !JOB_ID.test(id)) throw invalidResult(new Error('no usable job id'));
  return id;
}

/** 0 to 1, or null when the provider does not say (or says something else). */
export function progressOf(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? Math.min(1, Math.max(0, v)) : null;
}
