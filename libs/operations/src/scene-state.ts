/**
 * A scene's state as other libs may read it: the `scene_states` view (migration
 * CreateSceneStatesView), the one read model of `scenes` and `operations` this lib publishes.
 * A lib that needs a scene's state next to its own rows joins the view on `scene_id` and selects
 * `SCENE_STATE_COLUMNS`, then maps them with `toSceneState`; the tables behind it stay private.
 */
export const SCENE_STATE_VIEW = 'scene_states';

export const SCENE_STATE_COLUMNS = [
  'scene_id',
  'scene_deleted',
  'scene_status',
  'scene_version',
  'scene_source_asset_id',
  'scene_progress',
  'scene_error_code',
  'scene_error_message',
  'scene_error_retryable',
  'scene_stage',
] as const;

/**
 * The last change to any edit of the scene, selected only by those who watch the edit history
 * (the studio's event streams): a subquery the view computes only when it is selected.
 */
export const SCENE_EDITS_UPDATED_AT = 'scene_edits_updated_at';

/**
 * When the scene was deleted (null while it is not): what tells a session that outlived its scene
 * (its end the deletion's) from one that expired before it. Not part of a scene's state.
 */
export const SCENE_DELETED_AT = 'scene_deleted_at';

/** The view's columns, as node-postgres returns them. */
export interface SceneStateRow {
  scene_id: string;
  scene_deleted: boolean;
  scene_status: SceneState['status'];
  scene_version: number | null;
  scene_source_asset_id: string | null;
  scene_progress: number | null;
  scene_error_code: string | null;
  scene_error_message: string | null;
  scene_error_retryable: boolean | null;
  scene_stage: SceneState['stage'];
}

/** The creating operation's safe error, when creation failed. */
export interface SceneFailure {
  code: string;
  message: string;
  retryable: boolean;
}

export interface SceneState {
  id: string;
  deleted: boolean;
  status: 'generating' | 'ready' | 'failed';
  version: number | null;
  sourceAssetId: string | null;
  /** While the first version is generating: 0 to 1. */
  progress: number | null;
  /** While the first version is generating: queued, generating, downloading or storing. */
  stage: 'queued' | 'generating' | 'downloading' | 'storing' | null;
  /** When creation failed: the creating operation's safe error. */
  error: SceneFailure | null;
}

/** `alias.column, …` for a SELECT list, with the view joined as `alias`. */
export function sceneStateColumns(alias: string): string {
  return SCENE_STATE_COLUMNS.map((c) => `${alias}.${c}`).join(', ');
}

export function toSceneState(r: SceneStateRow): SceneState {
  return {
    id: r.scene_id,
    deleted: r.scene_deleted,
    status: r.scene_status,
    version: r.scene_version,
    sourceAssetId: r.scene_source_asset_id,
    progress: r.scene_progress,
    stage: r.scene_stage,
    error: r.scene_error_code
      ? { code: r.scene_error_code, message: r.scene_error_message ?? '', retryable: r.scene_error_retryable ?? false }
      : null,
  };
}
