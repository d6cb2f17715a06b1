import { invalidResult, jobFailed } from '../provider-http';
import { promptWithEdits } from '../provider-view';
import { GenerationError, GenerationRequest, ProviderJob } from '../../scene-generator';

/**
 * Meshy's protocol as the adapter reads and writes it (docs/providers/meshy.md): the persisted
 * job state, the prompt limit, the task object and its statuses. Pure functions, so each rule is
 * tested on its own.
 */

/** Meshy refuses longer `prompt` and `texture_prompt` values. */
export const MESHY_PROMPT_MAX = 600;

/**
 * Where a job is, persisted as `ProviderJob.state` so any worker can continue it:
 * - `preview`: a text-to-3d preview (mesh only); `refine` says whether a refine follows it;
 * - `refine`: the text-to-3d refine (texturing) of the preview `previewId`;
 * - `image`: an image-to-3d task (one phase, textured).
 * `refine` is fixed at submit so a job keeps its plan (and its progress scale) if the operator
 * flips MESHY_REFINE while it runs.
 */
export type MeshyJobState = { phase: 'preview'; refine: boolean } | { phase: 'refine'; previewId: string } | { phase: 'image' };

/** Task ids go into URL paths: Meshy says to assume no format, so only a sane length and charset are required. */
const TASK_ID = /^[A-Za-z0-9._~:-]{1,128}$/;

export function isTaskId(v: unknown): v is string {
  return typeof v === 'string' && TASK_ID.test(v);
}

/** The state of a persisted job; a job we cannot read fails the generation rather than guessing. */
export function parseJobState(job: ProviderJob): MeshyJobState {
  const s = job.state ?? {};
  if (!isTaskId(job.id)) throw invalidResult(new Error('persisted Meshy job has no usable id'));
  if (s.phase === 'preview' && typeof s.refine === 'boolean') return { phase: 'preview', refine: s.refine };
  if (s.phase === 'refine' && isTaskId(s.previewId)) return { phase: 'refine', previewId: s.previewId };
  if (s.phase === 'image') return { phase: 'image' };
  throw invalidResult(new Error('persisted Meshy job state is not one we wrote'));
}

/** The API path of a job's task: text-to-3d (preview and refine share it) or image-to-3d. */
export function taskPath(state: MeshyJobState, id: string): string {
  const root = state.phase === 'image' ? '/openapi/v1/image-to-3d' : '/openapi/v2/text-to-3d';
  return `${root}/${encodeURIComponent(id)}`;
}

/**
 * The job's share of the whole generation, 0 to 1: with a refine the preview is the first half
 * and the refine the second (they take comparable time: ≈30 s and ≈2 min, but the refine starts
 * at 0 again, so an even split keeps progress monotonic and simple); a lone task is the whole.
 * `percent` is Meshy's integer progress; anything but a number gives null (unknown).
 */
export function overallProgress(state: MeshyJobState, percent: unknown): number | null {
  if (typeof percent !== 'number' || !Number.isFinite(percent)) return null;
  const p = Math.min(1, Math.max(0, percent / 100));
  if (state.phase === 'preview' && state.refine) return p / 2;
  if (state.phase === 'refine') return 0.5 + p / 2;
  return p;
}

export type TaskStatus = 'running' | 'succeeded' | 'failed';

/**
 * Meshy's status as ours. PENDING and IN_PROGRESS run; SUCCEEDED is done; FAILED, CANCELED and
 * EXPIRED (only in Meshy's FAQ) are terminal failures. Anything else is taken as still running,
 * as the reference advises: the worker's deadline ends a job that never settles.
 */
export function taskStatus(status: unknown): TaskStatus {
  switch (status) {
    case 'SUCCEEDED':
      return 'succeeded';
    case 'FAILED':
    case 'CANCELED':
    case 'EXPIRED':
      return 'failed';
    default:
      return 'running';
  }
}

/**
 * A terminal failure, in our words only: `task_error.message` is provider text and stays out.
 * Retryable, because what Meshy documents for FAILED is overload or an internal error, and a
 * cancelled or expired task (someone else's action at Meshy) would run again if resubmitted.
 */
export function taskFailure(): GenerationError {
  return jobFailed(true);
}

/** The fields of a task object the adapter reads (§2.3); the rest is ignored. */
export interface MeshyTask {
  status: unknown;
  progress: unknown;
  glbUrl: string | null;
  thumbnailUrl: string | null;
}

export function parseTask(body: unknown): MeshyTask {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalidResult(new Error('Meshy task is not an object'));
  const task = body as Record<string, unknown>;
  const urls = typeof task.model_urls === 'object' && task.model_urls !== null ? (task.model_urls as Record<string, unknown>) : {};
  const url = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);
  return { status: task.status, progress: task.progress, glbUrl: url(urls.glb), thumbnailUrl: url(task.thumbnail_url) };
}

/** The id in a create answer (`202 {"result": id}`). */
export function createdTaskId(body: unknown): string {
  const id = typeof body === 'object' && body !== null ? (body as Record<string, unknown>).result : undefined;
  if (!isTaskId(id)) throw invalidResult(new Error('Meshy create answer has no usable task id'));
  return id;
}

const length = (text: string) => Array.from(text).length;

/**
 * `text` when it has at most `max` characters (code points: Meshy counts characters, and no
 * surrogate pair may be split); otherwise its whitespace runs collapsed (they cost characters and
 * mean nothing to the model) and, if still too long, the text cut at the last word boundary in
 * its second half, else mid-word, without trailing punctuation.
 */
export function truncateOnWord(text: string, max: number): string {
  if (length(text) <= max) return text;
  const clean = text.replace(/\s+/g, ' ').trim();
  const chars = Array.from(clean);
  if (chars.length <= max) return clean;
  const cut = chars.slice(0, max + 1).join('');
  const space = cut.lastIndexOf(' ');
  const kept = space >= Math.floor(cut.length / 2) ? cut.slice(0, space) : Array.from(cut).slice(0, max).join('');
  return kept.replace(/[\s,;:.-]+$/u, '') || kept;
}

/**
 * The prompt Meshy receives for a request, within its 600-character limit. A creation sends
 * the prompt, cut on a word boundary. An edit sends `promptWithEdits`' text (the prompt, then
 * one `Change: …` line per instruction so far) when it fits; when it does not, the newest
 * instruction is kept first (it is what the partner just asked for), then as much of the prompt
 * as fits, then older instructions, newest first, while they fit whole.
 */
export function meshyPrompt(request: Pick<GenerationRequest, 'prompt' | 'edit'>, max = MESHY_PROMPT_MAX): string {
  if (!request.edit) return truncateOnWord(request.prompt, max);
  const whole = promptWithEdits(request);
  if (length(whole) <= max) return whole;
  const turns = [...request.edit.previous.edits.map((e) => e.instruction), request.edit.instruction]
    .map((t) => t.replace(/\s+/g, ' ').trim())
    .filter((t) => t !== '');
  if (turns.length === 0) return truncateOnWord(request.prompt, max);
  const line = (t: string) => `Change: ${t}`;
  // The newest instruction gets at most half the room, so the prompt keeps its subject.
  const newest = truncateOnWord(line(turns[turns.length - 1]), Math.floor(max / 2));
  const head = truncateOnWord(request.prompt, max - length(newest) - 1);
  const older: string[] = [];
  for (let i = turns.length - 2; i >= 0; i--) {
    if (length([head, line(turns[i]), ...older, newest].join('\n')) > max) break;
    older.unshift(line(turns[i]));
  }
  return [head, ...older, newest].join('\n');
}
