import type { GenerationStage, SafeError, SceneStatus } from '../api/studio-api.types';
import { h } from './dom';

/** What the studio knows about its scene: the server's state plus what the viewport shows. */
export interface SceneDisplayState {
  status: SceneStatus;
  /** The scene's current version on the server (null before the first one exists). */
  version: number | null;
  /** The version on screen. */
  loadedVersion: number | null;
  /** A version is being fetched and parsed. */
  loadingVersion: number | null;
  /** The last version failed to load (network, bad file): shown with a retry. */
  loadError: string | null;
  error: SafeError | null;
  progress: number | null;
  stage: GenerationStage | null;
}

const STAGE_LABELS: Record<GenerationStage, string> = {
  queued: 'Waiting to start',
  generating: 'Generating',
  downloading: 'Fetching the files',
  storing: 'Saving',
};

/** "Generating… 45%", or "Waiting to start…", as the stage and progress say. */
export function generatingLabel(stage: GenerationStage | null, progress: number | null): string {
  const pct = progress !== null && progress > 0 ? ` ${Math.round(progress * 100)}%` : '';
  return `${STAGE_LABELS[stage ?? 'generating']}…${pct}`;
}

export function describeScene(state: SceneDisplayState): { label: string; detail: string; tone: 'busy' | 'ok' | 'bad' } {
  if (state.status === 'failed') {
    return { label: 'Generation failed', detail: state.error?.message ?? 'The scene could not be generated.', tone: 'bad' };
  }
  if (state.status === 'generating') {
    return {
      label: generatingLabel(state.stage, state.progress),
      detail: 'Your scene is being generated. It appears here as soon as it is ready.',
      tone: 'busy',
    };
  }
  if (state.loadError) return { label: 'Could not load', detail: state.loadError, tone: 'bad' };
  if (state.loadingVersion !== null)
    return { label: `Loading v${state.loadingVersion}…`, detail: `Loading version ${state.loadingVersion}.`, tone: 'busy' };
  if (state.loadedVersion !== null)
    return { label: `Ready · v${state.loadedVersion}`, detail: `Showing version ${state.loadedVersion}.`, tone: 'ok' };
  return { label: 'Ready', detail: 'The scene is ready.', tone: 'ok' };
}

/** The status pill in the header: always visible, in every mode. */
export class SceneStatusPill {
  readonly element = h('div', { className: 'scene-pill', attrs: { id: 'scene-status' } });
  private readonly dot = h('span', { className: 'scene-pill-dot', attrs: { 'aria-hidden': 'true' } });
  private readonly label = h('span', { className: 'scene-pill-label' });

  constructor() {
    this.element.append(h('span', { className: 'sr-only', text: 'Scene status: ' }), this.dot, this.label);
  }

  update(state: SceneDisplayState): void {
    const d = describeScene(state);
    this.element.dataset.tone = d.tone;
    this.element.dataset.status = state.status;
    this.label.textContent = d.label;
    this.element.title = d.detail;
  }
}

/** The scene card of the edit panel: status, version, progress, and the safe failure message. */
export class SceneStatusCard {
  readonly element = h('div', { className: 'scene-card' });
  private readonly title = h('p', { className: 'scene-card-title' });
  private readonly detail = h('p', { className: 'scene-card-detail' });
  private readonly progress = h(
    'div',
    { className: 'progress', attrs: { role: 'progressbar', 'aria-label': 'Scene generation progress' } },
    [h('div', { className: 'progress-bar' })],
  );

  constructor() {
    this.element.append(this.title, this.detail, this.progress);
  }

  /** `viewing`: an earlier version the edit workflow holds on screen instead of the latest. */
  update(state: SceneDisplayState, viewing: number | null = null): void {
    const d = describeScene(state);
    this.element.dataset.tone = d.tone;
    this.title.textContent = d.label;
    this.detail.textContent =
      viewing !== null && d.tone === 'ok' && viewing !== state.loadedVersion
        ? `Viewing version ${viewing}; the latest is version ${state.loadedVersion ?? state.version}.`
        : d.detail;
    const busy = d.tone === 'busy';
    this.progress.hidden = !busy;
    const bar = this.progress.firstElementChild as HTMLElement;
    if (busy && state.status === 'generating' && state.progress !== null) {
      this.progress.dataset.mode = 'determinate';
      this.progress.setAttribute('aria-valuemin', '0');
      this.progress.setAttribute('aria-valuemax', '100');
      this.progress.setAttribute('aria-valuenow', String(Math.round(state.progress * 100)));
      bar.style.width = `${Math.round(state.progress * 100)}%`;
    } else {
      this.progress.dataset.mode = 'indeterminate';
      this.progress.removeAttribute('aria-valuenow');
      bar.style.removeProperty('width');
    }
  }
}
