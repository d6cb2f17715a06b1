import { HostResolver } from '@app/core';
import {
  ArtifactKind,
  GeneratedScene,
  GenerationRequest,
  JobPoll,
  ProviderErasure,
  ProviderJob,
  ProviderJobOwner,
  ProviderObjectErasure,
  SceneArtifact,
  SceneGenerator,
  SourceImageInput,
  SubmitOutcome,
} from '../../scene-generator';
import { downloadArtifact } from '../artifacts';
import { invalidResult, jobFailed, ProviderHttp } from '../provider-http';
import { editsAfter, promptWithEdits, providerView } from '../provider-view';
import {
  displayName,
  imageUploadType,
  isProviderId,
  operationCost,
  operationProgress,
  pickSplatUrl,
  uploadFileName,
  uploadHeaders,
  worldTags,
  worldTransform,
} from './worldlabs-protocol';

export interface WorldLabsSceneGeneratorOptions {
  /** Sent as `WLT-Api-Key` on API calls only (never to upload or download URLs); never logged. */
  apiKey: string;
  /** `https://api.worldlabs.ai`, or a local fake's `http://127.0.0.1:…` (which also allows http downloads). */
  baseUrl: string;
  /** A Marble model name, always sent: Marble's documented default has changed before. */
  model: string;
  /** The `spz_urls` key to download (`100k`, `500k`, `full_res`); the nearest available otherwise. */
  splatResolution: string;
  /** For one call: an API call, the upload, or one file's download. */
  timeoutMs: number;
  /** The largest file accepted from Marble (a full-resolution SPZ is tens of megabytes). */
  maxArtifactBytes: number;
  /** Resolves the hosts of file and upload URLs the provider hands back (see ProviderHttp). */
  resolver: HostResolver;
}

const API = '/marble/v1';
/** Pages of `worlds:list` read for one operation's worlds: there are one or two, never pages of them. */
const MAX_LIST_PAGES = 5;

type Json = Record<string, unknown>;

/**
 * A SceneGenerator backed by World Labs' Marble API v1 (docs/providers/worldlabs.md): a world is
 * generated from the prompt (and the source image, uploaded as a media asset), polled as a
 * long-running operation, and downloaded as a Gaussian-splat SPZ with its collider mesh,
 * panorama and thumbnail. Everything a later call needs travels in `ProviderJob.state`, so any
 * worker process can poll or fetch a job another one submitted.
 *
 * Marble cannot edit a world: an edit generates a new one from the prompt with every
 * instruction so far (and the source image), and its history is carried into the view.
 */
export class WorldLabsSceneGenerator extends SceneGenerator {
  readonly name = 'worldlabs';
  private readonly http: ProviderHttp;
  private readonly model: string;
  private readonly splatResolution: string;
  private readonly maxArtifactBytes: number;

  constructor(options: WorldLabsSceneGeneratorOptions) {
    super();
    // Checked here because fetch would reject it on every call, as a network error we would retry.
    if (!/^[\x21-\x7e]+$/.test(options.apiKey)) throw new Error('The World Labs API key is empty or not a valid header value.');
    // The key lives only inside ProviderHttp's API headers: no field of ours holds it to be logged.
    this.http = new ProviderHttp({
      baseUrl: options.baseUrl,
      headers: { 'wlt-api-key': options.apiKey },
      timeoutMs: options.timeoutMs,
      resolver: options.resolver,
    });
    this.model = options.model;
    this.splatResolution = options.splatResolution;
    this.maxArtifactBytes = options.maxArtifactBytes;
  }

  /**
   * Starts a world. Marble has no idempotency key (none in its API, by absence): a submit
   * repeated after a crash between Marble's answer and the worker's write of the job starts a
   * second, billed world. The tags (scene id, operation id) let an operator find such a
   * duplicate with `worlds:list`; the worker narrows the window by persisting the job first.
   */
  async submit(request: GenerationRequest, signal?: AbortSignal): Promise<SubmitOutcome> {
    const textPrompt = promptWithEdits(request);
    const mediaAssetId = request.source ? await this.uploadSource(request, request.source, signal) : null;
    const worldPrompt = mediaAssetId
      ? { type: 'image', image_prompt: { source: 'media_asset', media_asset_id: mediaAssetId }, text_prompt: textPrompt }
      : { type: 'text', text_prompt: textPrompt };
    const { body } = await this.http.json(
      'POST',
      `${API}/worlds:generate`,
      {
        display_name: displayName(request.prompt, request.version),
        model: this.model,
        world_prompt: worldPrompt,
        tags: worldTags(request),
      },
      { signal },
    );
    const operationId = record(body).operation_id;
    if (!isProviderId(operationId)) throw invalidResult(new Error('no usable operation id'));
    return { job: { id: operationId, state: { model: this.model, mediaAssetId, worldId: null } } };
  }

  /**
   * Reads the operation. A 404 (the operation expired, about an hour after creation, or the key
   * changed to another account) is final like any 4xx, through `errorForStatus`: nothing in
   * Marble's API leads back to the world from there, and the worker's deadline is far shorter.
   */
  override async poll(job: ProviderJob, signal?: AbortSignal): Promise<JobPoll> {
    const operation = await this.operation(job.id, signal);
    const worldId = worldIdOf(operation);
    if (operation.done === false) {
      // The world id shows up in the metadata while the world is made: kept once, for operators.
      const learned = worldId && job.state?.worldId !== worldId ? { job: withWorld(job, worldId) } : {};
      return { status: 'running', progress: operationProgress(operation.metadata), ...learned };
    }
    // Marble's error codes are undocumented and its message is provider output: neither is read.
    // A world that started and then failed is worth another try, hence retryable.
    const costUnits = operationCost(operation);
    if (operation.error !== null && operation.error !== undefined) return { status: 'failed', error: jobFailed(true), costUnits };
    if (!worldId) throw invalidResult(new Error('a finished operation without a world'));
    return { status: 'succeeded', job: withWorld(job, worldId), costUnits };
  }

  /**
   * Downloads the world's files, one at a time (a worker holds one large file in memory at
   * once): the splat (required), then the collider mesh, panorama and thumbnail when listed.
   * The world is read with `GET /worlds/{id}` rather than from the operation: its asset URLs are
   * signed and may have expired since the operation finished.
   */
  override async fetch(job: ProviderJob, request: GenerationRequest, signal?: AbortSignal): Promise<GeneratedScene> {
    const known = job.state?.worldId;
    const worldId = isProviderId(known) ? known : await this.finishedWorldId(job.id, signal);
    const { body } = await this.http.json('GET', `${API}/worlds/${encodeURIComponent(worldId)}`, undefined, { signal });
    const assets = optionalRecord(record(body).assets);
    const splats = optionalRecord(assets?.splats);
    const splat = pickSplatUrl(optionalRecord(splats?.spz_urls) ?? {}, this.splatResolution);
    if (!splat) throw invalidResult(new Error('a world without a splat'));
    const files: [ArtifactKind, string | null][] = [
      ['splat', splat.url],
      ['collider', url(optionalRecord(assets?.mesh)?.collider_mesh_url)],
      ['panorama', url(optionalRecord(assets?.imagery)?.pano_url)],
      ['thumbnail', url(assets?.thumbnail_url)],
    ];
    const artifacts: SceneArtifact[] = [];
    for (const [kind, at] of files) {
      if (at) artifacts.push(await downloadArtifact(this.http, kind, at, this.maxArtifactBytes, signal));
    }
    // Recorded, not baked: the studio places splat, preview and collider by it when it loads them
    // (an SPZ v4 could not even be rewritten here), so the stored files stay Marble's bytes.
    const world = worldTransform(splats?.semantics_metadata);
    return { spec: providerView({ prompt: request.prompt, bounds: null, edits: editsAfter(request), world }), artifacts };
  }

  /**
   * Marble has no way to cancel an operation (no such endpoint): the world is generated and
   * billed anyway, and its result is never fetched. Its world is deleted with the scene's purge
   * (`delete`).
   */
  override async cancel(_job: ProviderJob, _signal?: AbortSignal): Promise<boolean> {
    return false;
  }

  /**
   * Deletes the job's worlds (`DELETE /marble/v1/worlds/{world_id}`: "Permanently deletes a world
   * and its associated assets"; 404 once it is gone). The worlds are the one recorded, the one the
   * operation names while Marble keeps it (about an hour), and every world tagged with our
   * operation id (`worlds:list`), so a world submitted twice (a worker killed between Marble's
   * answer and our record of it) goes too. While the operation still runs, its world is not
   * finished: `pending`, to be asked again. The source image's media asset stays: Marble documents
   * no way to delete one (docs/operations.md, "Data we keep").
   */
  override async delete(job: ProviderJob, owner: ProviderJobOwner, signal?: AbortSignal): Promise<ProviderErasure> {
    const worlds = new Set<string>();
    const recorded = job.state?.worldId;
    if (isProviderId(recorded)) worlds.add(recorded);
    const { status, body } = await this.http.json('GET', `${API}/operations/${encodeURIComponent(job.id)}`, undefined, {
      signal,
      accept: [404],
    });
    if (status !== 404) {
      const operation = record(body);
      if (operation.done === false) return { status: 'pending' };
      const worldId = worldIdOf(operation);
      if (worldId) worlds.add(worldId);
    }
    for (const worldId of await this.worldsTagged(owner.operationId, signal)) worlds.add(worldId);
    const objects: ProviderObjectErasure[] = [];
    for (const worldId of worlds) {
      const deleted = await this.http.json('DELETE', `${API}/worlds/${encodeURIComponent(worldId)}`, undefined, { signal, accept: [404] });
      objects.push({ kind: 'world', id: worldId, outcome: deleted.status === 404 ? 'absent' : 'deleted' });
    }
    const mediaAssetId = job.state?.mediaAssetId;
    if (isProviderId(mediaAssetId)) objects.push({ kind: 'media_asset', id: mediaAssetId, outcome: 'kept' });
    return { status: 'done', objects };
  }

  /** The ids of the worlds tagged with `tag`, every page (a handful at most: one operation's worlds). */
  private async worldsTagged(tag: string, signal?: AbortSignal): Promise<string[]> {
    const ids: string[] = [];
    let pageToken: string | null = null;
    for (let page = 0; page < MAX_LIST_PAGES; page++) {
      const { body } = await this.http.json(
        'POST',
        `${API}/worlds:list`,
        { tags: [tag], page_size: 100, ...(pageToken ? { page_token: pageToken } : {}) },
        { signal },
      );
      const answer = record(body);
      if (Array.isArray(answer.worlds)) {
        for (const world of answer.worlds) {
          const id = typeof world === 'object' && world !== null ? (world as Json).world_id : null;
          if (isProviderId(id)) ids.push(id);
        }
      }
      pageToken = typeof answer.next_page_token === 'string' && answer.next_page_token !== '' ? answer.next_page_token : null;
      if (!pageToken) break;
    }
    return ids;
  }

  /** Marble's media-asset flow: prepare, then PUT the bytes to the signed URL (without our key). */
  private async uploadSource(request: GenerationRequest, source: SourceImageInput, signal?: AbortSignal): Promise<string> {
    const { extension, contentType } = imageUploadType(source.format);
    const { body } = await this.http.json(
      'POST',
      `${API}/media-assets:prepare_upload`,
      { file_name: uploadFileName(request.sceneId, request.version, extension), kind: 'image', extension },
      { signal },
    );
    const answer = record(body);
    const mediaAssetId = record(answer.media_asset).media_asset_id;
    const info = record(answer.upload_info);
    if (!isProviderId(mediaAssetId)) throw invalidResult(new Error('no usable media asset id'));
    if (typeof info.upload_url !== 'string') throw invalidResult(new Error('no upload URL'));
    if (info.upload_method != null && (typeof info.upload_method !== 'string' || info.upload_method.toUpperCase() !== 'PUT'))
      throw invalidResult(new Error('an upload method other than PUT'));
    const headers = uploadHeaders(info.required_headers, contentType);
    if (!headers) throw invalidResult(new Error('unusable upload headers'));
    await this.http.upload(info.upload_url, source.bytes, headers, signal);
    return mediaAssetId;
  }

  private async operation(id: string, signal?: AbortSignal): Promise<Json> {
    const { body } = await this.http.json('GET', `${API}/operations/${encodeURIComponent(id)}`, undefined, { signal });
    const operation = record(body);
    if (typeof operation.done !== 'boolean') throw invalidResult(new Error('an operation without a done flag'));
    return operation;
  }

  /** For a job persisted before its world id was known (fetch without a poll's job). */
  private async finishedWorldId(operationId: string, signal?: AbortSignal): Promise<string> {
    const operation = await this.operation(operationId, signal);
    const worldId = worldIdOf(operation);
    if (!operation.done || (operation.error !== null && operation.error !== undefined) || !worldId) {
      throw invalidResult(new Error('the operation has no finished world'));
    }
    return worldId;
  }
}

function withWorld(job: ProviderJob, worldId: string): ProviderJob {
  return { id: job.id, state: { ...job.state, worldId } };
}

/** `response.world_id` once finished, else `metadata.world_id` (an undocumented key, read if there). */
function worldIdOf(operation: Json): string | null {
  for (const holder of [operation.response, operation.metadata]) {
    if (typeof holder === 'object' && holder !== null && isProviderId((holder as Json).world_id))
      return (holder as Json).world_id as string;
  }
  return null;
}

function record(v: unknown): Json {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw invalidResult(new Error('answer is not an object'));
  return v as Json;
}

/** Marble marks every asset field optional or nullable; a present one must still be an object. */
function optionalRecord(v: unknown): Json | null {
  return v === null || v === undefined ? null : record(v);
}

function url(v: unknown): string | null {
  return typeof v === 'string' && v !== '' ? v : null;
}
