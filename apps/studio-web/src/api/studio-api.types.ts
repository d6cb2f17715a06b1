/** Shapes of the studio API (`/studio-api/v1`), as docs/embed.md describes them. */

export type StudioMode = 'edit' | 'perform' | 'edit_and_perform';
export type SceneStatus = 'generating' | 'ready' | 'failed';
export type ColorScheme = 'dark' | 'light';
export type EndedReason = 'expired' | 'revoked';

export interface StudioTheme {
  partnerName: string | null;
  accentColor: string;
  colorScheme: ColorScheme;
  helpText: string | null;
}

export interface SafeError {
  code: string;
  message: string;
}

export interface SceneState {
  status: SceneStatus;
  version: number | null;
  hasSourceImage: boolean;
  /** Present when the scene failed, if the server says why. */
  error?: SafeError | null;
  /** 0..1 when the server reports generation progress. */
  progress?: number | null;
  /** While generating: where the generation is. */
  stage?: GenerationStage | null;
}

export type GenerationStage = 'queued' | 'generating' | 'downloading' | 'storing';

/** The files of a scene version, as `GET /scene/versions/{v}/artifacts` lists them. */
export type ArtifactKind = 'mesh' | 'splat' | 'splat-preview' | 'collider' | 'panorama' | 'thumbnail';

export interface SceneArtifactInfo {
  kind: ArtifactKind;
  contentType: string;
  bytes: number;
  sha256: string;
}

export interface StudioSession {
  embedSessionId: string;
  mode: StudioMode;
  origin: string;
  expiresAt: string;
  theme: StudioTheme;
  capabilities: { edit: boolean; perform: boolean };
  scene: SceneState;
}

export type EditStatus = 'processing' | 'succeeded' | 'failed';

export interface EditTurn {
  operationId: string;
  instruction: string;
  /** A revert's restored version (its instruction then reads "Revert to version n"); null for an edit. */
  revertTo: number | null;
  status: EditStatus;
  version: number | null;
  error: SafeError | null;
  createdAt: string;
  completedAt: string | null;
}

export interface CreatedEdit {
  operationId: string;
  status: 'processing';
  createdAt: string;
}

// The scene spec is the server's own type, imported for its types only: nothing of the
// generation library is bundled.
import type { SceneDrawing } from '@scene-studio/world-engine/scene-spec';
export type { CameraPreset, Vec3 } from '@scene-studio/world-engine/scene-spec';

/**
 * The part of the scene spec the studio reads: its drawing, all that a perform session receives
 * (the edit modes get the prompt and the edit history too, which the page never reads from the
 * spec). docs/embed.md, "What each mode receives".
 */
export type SceneSpec = Omit<SceneDrawing, 'schemaVersion'>;

/** RFC 9457 problem details, with the fields the studio API adds. */
export interface Problem {
  status?: number;
  code?: string;
  title?: string;
  detail?: string;
  reason?: string;
}
