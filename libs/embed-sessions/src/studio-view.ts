import { sceneDrawing } from '@app/scenes';
import { EditTurn, SceneFailure, SceneState } from '@app/operations';
import { capabilitiesOf, EmbedMode, EMBED_MODES, EmbedTheme } from './embed-session.entity';
import { EmbedSessionErrors, EndedReason } from './embed-sessions.errors';
import { SessionWithScene } from './embed-sessions.repository';

/** The scene's state as the studio shows it: in the session's answer and in `scene.status`. */
export interface StudioSceneStatus {
  status: SceneState['status'];
  version: number | null;
  progress: number | null;
  stage: SceneState['stage'];
  error: SceneFailure | null;
}

/** `GET /studio-api/v1/session`. */
export interface StudioSessionView {
  embedSessionId: string;
  mode: EmbedMode;
  origin: string;
  expiresAt: string;
  theme: EmbedTheme;
  capabilities: { edit: boolean; perform: boolean };
  scene: StudioSceneStatus & { hasSourceImage: boolean };
}

/** Every event the studio's stream sends (`GET /studio-api/v1/events`). */
export type StudioEvent =
  | { type: 'scene.status'; data: StudioSceneStatus }
  | { type: 'edit.updated'; data: { turns: EditTurn[] } }
  | { type: 'session.updated'; data: { expiresAt: string } }
  | { type: 'session.ended'; data: { reason: EndedReason } };

export type StudioEventType = StudioEvent['type'];

/** The events that carry authoring data; every type is listed, so a new one needs a decision here. */
const CARRIES_AUTHORING: Record<StudioEventType, boolean> = {
  'scene.status': false,
  'edit.updated': true,
  'session.updated': false,
  'session.ended': false,
};

/**
 * What a studio session receives, by its mode: the one place that decides it (docs/embed.md,
 * "What each mode receives"). The studio API's answers and its event stream are built here.
 *
 * The scene's authoring data — its prompt, the edit instructions and the edit history, and what
 * a generator derived from them — goes only to modes that edit (`edit`, `edit_and_perform`), which
 * need it to write the next instruction. A `perform` session gets what draws and films the scene:
 * its state, its files, the spec's environment and camera presets (`sceneDrawing`), and its
 * saved camera paths. The routes a mode may not call at all are refused before any of this
 * (`403 forbidden`, the studio's capability guard); a refused call reaching a view is refused
 * again, not answered.
 */
export class StudioView {
  private static readonly views = new Map<EmbedMode, StudioView>(EMBED_MODES.map((mode) => [mode, new StudioView(mode)]));

  static of(mode: EmbedMode): StudioView {
    const view = StudioView.views.get(mode);
    if (!view) throw new Error(`no studio view for mode ${String(mode)}`);
    return view;
  }

  /** Whether the session receives the scene's authoring data. */
  readonly authoring: boolean;

  private constructor(readonly mode: EmbedMode) {
    this.authoring = capabilitiesOf(mode).edit;
  }

  session({ session, scene }: SessionWithScene): StudioSessionView {
    return {
      embedSessionId: session.id,
      mode: session.mode,
      origin: session.origin,
      expiresAt: session.expiresAt.toISOString(),
      theme: session.theme,
      capabilities: capabilitiesOf(session.mode),
      scene: { ...this.sceneStatus(scene), hasSourceImage: scene.sourceAssetId !== null },
    };
  }

  /** The creation's error is one of our fixed messages, never a provider's words or the prompt. */
  sceneStatus(scene: SceneState): StudioSceneStatus {
    return { status: scene.status, version: scene.version, progress: scene.progress, stage: scene.stage, error: scene.error };
  }

  /** A version's spec: whole for the edit modes, its drawing for perform. */
  spec(spec: Record<string, unknown>): Record<string, unknown> {
    return this.authoring ? spec : sceneDrawing(spec);
  }

  editHistory(turns: EditTurn[]): { turns: EditTurn[] } {
    if (!this.authoring) throw EmbedSessionErrors.forbidden();
    return { turns };
  }

  /** Whether the session's stream carries events of this type at all (the studio skips the work for others). */
  receives(type: StudioEventType): boolean {
    return this.authoring || !CARRIES_AUTHORING[type];
  }

  /** The event as this session receives it, or null when its mode does not. */
  event<E extends StudioEvent>(event: E): E | null {
    return this.receives(event.type) ? event : null;
  }
}
