import { HostResolver } from '@app/core';
import { ImageMedia } from '@app/image-assets';
import { readGlb } from '@scene-studio/world-engine';
import {
  GeneratedScene,
  GenerationError,
  GenerationRequest,
  JobPoll,
  ProviderErasure,
  ProviderJob,
  ProviderObjectErasure,
  SceneGenerator,
  SourceImageInput,
  SubmitOutcome,
} from '../../scene-generator';
import { downloadArtifact } from '../artifacts';
import { invalidResult, ProviderHttp } from '../provider-http';
import { editsAfter, glbBounds, providerView } from '../provider-view';
import {
  createdTaskId,
  MeshyJobState,
  meshyPrompt,
  overallProgress,
  parseJobState,
  parseTask,
  taskFailure,
  taskPath,
  taskStatus,
} from './meshy-protocol';

export interface MeshySceneGeneratorOptions {
  /** Sent as `Authorization: Bearer <apiKey>` to the API only (never to file URLs); never logged nor put in an error. */
  apiKey: string;
  /** `https://api.meshy.ai`, or a local fake's `http://127.0.0.1:<port>` (which also lets downloads use http). */
  baseUrl: string;
  /** Meshy's `ai_model`, passed through (`latest`, `meshy-6`, `meshy-5`). */
  aiModel: string;
  /** Whether a text preview is refined (textured) before it becomes the scene. */
  refine: boolean;
  /** For one call (create, poll, delete, or one file download). */
  timeoutMs: number;
  /** The largest file (model or thumbnail) taken from Meshy. */
  maxArtifactBytes: number;
  /** Resolves the hosts of file URLs the provider hands back (see ProviderHttp). */
  resolver: HostResolver;
}

const TEXT_TO_3D = '/openapi/v2/text-to-3d';
const IMAGE_TO_3D = '/openapi/v1/image-to-3d';

/**
 * Geometry asked of every task: remeshed to 30k triangles. Meshy-6 does not remesh by default and
 * its raw meshes are far heavier than a browser viewer wants; triangles are what a GLB holds
 * anyway (quads matter only for FBX and OBJ exports).
 */
const GEOMETRY = { should_remesh: true, topology: 'triangle', target_polycount: 30_000 } as const;

/** WebP sources are re-encoded for Meshy; a wider image would add upload bytes, not detail. */
const REENCODED_MAX_WIDTH = 2048;

/**
 * A SceneGenerator backed by Meshy's API (docs/providers/meshy.md), producing a single textured
 * model per scene:
 *
 * - a text scene is a text-to-3d **preview** (mesh), then, with `refine`, a **refine** of that
 *   preview (textures, PBR) submitted by `poll` once the preview succeeds; the refine replaces the
 *   job, so the worker persists it and whichever worker polls next follows the refine;
 * - an image scene is one **image-to-3d** task with the source inlined as a data URI;
 * - an edit regenerates (Meshy cannot edit a model): text scenes from the prompt with the
 *   instructions so far; image scenes from the same image with those as `texture_prompt` (see the doc).
 *
 * Every call stands alone: what a later call needs is in `ProviderJob.state` (MeshyJobState).
 * Meshy has no idempotency key, so a submit repeated after a crash before the worker recorded
 * its job is a second (billed) task; the worker's record-first ordering keeps that window short.
 */
export class MeshySceneGenerator extends SceneGenerator {
  readonly name = 'meshy';
  private readonly http: ProviderHttp;

  constructor(
    private readonly options: MeshySceneGeneratorOptions,
    private readonly media: ImageMedia,
  ) {
    super();
    this.http = new ProviderHttp({
      baseUrl: options.baseUrl,
      headers: { authorization: `Bearer ${options.apiKey}` },
      timeoutMs: options.timeoutMs,
      resolver: options.resolver,
    });
  }

  async submit(request: GenerationRequest, signal?: AbortSignal): Promise<SubmitOutcome> {
    if (request.source) {
      const id = await this.create(
        IMAGE_TO_3D,
        {
          image_url: await this.dataUri(request.source),
          ai_model: this.options.aiModel,
          should_texture: true,
          enable_pbr: true,
          ...GEOMETRY,
          // A creation keeps the image's own look; an edit re-textures the same shape as asked.
          ...(request.edit ? { texture_prompt: meshyPrompt(request) } : {}),
        },
        signal,
      );
      return { job: jobOf(id, { phase: 'image' }) };
    }
    const id = await this.create(
      TEXT_TO_3D,
      { mode: 'preview', prompt: meshyPrompt(request), ai_model: this.options.aiModel, ...GEOMETRY },
      signal,
    );
    return { job: jobOf(id, { phase: 'preview', refine: this.options.refine }) };
  }

  override async poll(job: ProviderJob, signal?: AbortSignal): Promise<JobPoll> {
    const state = parseJobState(job);
    const { body } = await this.http.json('GET', taskPath(state, job.id), undefined, { signal });
    const task = parseTask(body);
    switch (taskStatus(task.status)) {
      case 'running':
        return { status: 'running', progress: overallProgress(state, task.progress) };
      case 'failed':
        return { status: 'failed', error: taskFailure() };
      case 'succeeded': {
        if (state.phase !== 'preview' || !state.refine) return { status: 'succeeded' };
        // The preview is only the mesh: texture it. Should this worker die before the new job is
        // recorded, the next poll finds the preview succeeded again and submits another refine.
        const refineId = await this.create(
          TEXT_TO_3D,
          { mode: 'refine', preview_task_id: job.id, enable_pbr: true, ai_model: this.options.aiModel },
          signal,
        );
        return { status: 'running', progress: 0.5, job: jobOf(refineId, { phase: 'refine', previewId: job.id }) };
      }
    }
  }

  override async fetch(job: ProviderJob, request: GenerationRequest, signal?: AbortSignal): Promise<GeneratedScene> {
    const state = parseJobState(job);
    if (state.phase === 'preview' && state.refine) throw invalidResult(new Error('Meshy preview fetched before its refine'));
    const { body } = await this.http.json('GET', taskPath(state, job.id), undefined, { signal });
    const task = parseTask(body);
    if (taskStatus(task.status) !== 'succeeded') throw invalidResult(new Error('Meshy task is not finished'));
    if (!task.glbUrl) throw invalidResult(new Error('Meshy task has no GLB'));
    const max = this.options.maxArtifactBytes;
    const mesh = await downloadArtifact(this.http, 'mesh', task.glbUrl, max, signal);
    // Parsed a second time for its bounds: the artifact check keeps no document, and Meshy's
    // remeshed models are a few megabytes.
    const bounds = glbBounds(await readGlb(mesh.bytes));
    if (!bounds) throw invalidResult(new Error('Meshy model has no geometry'));
    const artifacts = [mesh];
    // Optional: a task without one is fine; one that is there is checked like any file.
    if (task.thumbnailUrl) artifacts.push(await downloadArtifact(this.http, 'thumbnail', task.thumbnailUrl, max, signal));
    return { spec: providerView({ prompt: request.prompt, bounds, edits: editsAfter(request) }), artifacts };
  }

  /**
   * Meshy's only way to stop a task is to delete it ("permanently deletes a task and all
   * associated data"): it stops working on it and forgets it, and a later poll answers 404. A
   * task already gone (404: deleted, or expired after three days) is reported as not cancelled.
   */
  override async cancel(job: ProviderJob, signal?: AbortSignal): Promise<boolean> {
    const state = parseJobState(job);
    const { status } = await this.http.json('DELETE', taskPath(state, job.id), undefined, { signal, accept: [404] });
    return status >= 200 && status < 300;
  }

  /**
   * Deletes the job's tasks ("permanently deletes a task and all associated data"; 404 once
   * gone), the preview a refine was made from included: a preview holds the prompt too. A task
   * submitted twice (a worker killed between Meshy's answer and our record) is not known here, and
   * stays until Meshy expires it.
   */
  override async delete(job: ProviderJob, _owner: unknown, signal?: AbortSignal): Promise<ProviderErasure> {
    const state = parseJobState(job);
    const tasks: [MeshyJobState, string][] = [[state, job.id]];
    if (state.phase === 'refine') tasks.push([{ phase: 'preview', refine: true }, state.previewId]);
    const objects: ProviderObjectErasure[] = [];
    for (const [of, id] of tasks) {
      const { status } = await this.http.json('DELETE', taskPath(of, id), undefined, { signal, accept: [404] });
      objects.push({ kind: 'task', id, outcome: status === 404 ? 'absent' : 'deleted' });
    }
    return { status: 'done', objects };
  }

  private async create(path: string, body: Record<string, unknown>, signal?: AbortSignal): Promise<string> {
    const { body: answer } = await this.http.json('POST', path, body, { signal });
    return createdTaskId(answer);
  }

  /** Meshy reads JPEG and PNG data URIs only: those go as they are, a WebP source is re-encoded as JPEG. */
  private async dataUri(source: SourceImageInput): Promise<string> {
    if (source.format !== 'webp') return `data:image/${source.format};base64,${source.bytes.toString('base64')}`;
    let converted: { bytes: Buffer; mimeType: string };
    try {
      converted = await this.media.texture(source.bytes, REENCODED_MAX_WIDTH);
    } catch (e) {
      throw new GenerationError('generation_failed', 'The source image could not be prepared for the generation provider.', false, {
        cause: e,
      });
    }
    return `data:${converted.mimeType};base64,${converted.bytes.toString('base64')}`;
  }
}

function jobOf(id: string, state: MeshyJobState): ProviderJob {
  return { id, state: { ...state } };
}
