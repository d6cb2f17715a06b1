/**
 * Shapes of the studio API (`/studio-api/v1`), as docs/embed.md describes them: named views of
 * the types generated from the studio's OpenAPI document (generated/studio-api.ts, written by
 * `npm run studio-api:generate`; a drift test holds it to the server), never written by hand.
 */
import type { components } from './generated/studio-api';

type Schemas = components['schemas'];

export type StudioSession = Schemas['StudioSession'];
export type StudioMode = StudioSession['mode'];
export type StudioTheme = Schemas['StudioTheme'];
export type ColorScheme = StudioTheme['colorScheme'];
export type SceneState = Schemas['SceneState'];
export type SceneStatus = SceneState['status'];
export type GenerationStage = NonNullable<SceneState['stage']>;
export type SafeError = Schemas['SafeError'];
export type EndedReason = NonNullable<Problem['reason']>;

/** The files of a scene version, as `GET /scene/versions/{v}/artifacts` lists them. */
export type SceneArtifactInfo = Schemas['SceneArtifactInfo'];
export type ArtifactKind = SceneArtifactInfo['kind'];

export type EditTurn = Schemas['EditTurn'];
export type EditStatus = EditTurn['status'];
export type CreatedEdit = Schemas['CreatedEdit'];

/**
 * Saved camera paths as the API sends them. The page's model (model/camera-path-store.ts, the
 * format's types from packages/camera-path) takes them as they are: server-camera-path-store.ts
 * hands one to the other, so a difference fails the type-check.
 */
export type CameraPathSummary = Schemas['CameraPathSummary'];
export type SavedCameraPath = Schemas['SavedCameraPath'];
export type CameraPathKind = SavedCameraPath['kind'];
export type CameraPathDocument = Schemas['CameraPathDocument'];

/**
 * RFC 9457 problem details, with the fields the studio API adds: any may be missing from a broken
 * answer, and `code` may be one this build does not know yet.
 */
export type Problem = Partial<Omit<Schemas['Problem'], 'code'>> & { code?: string };

// The scene spec is the server's own type, imported for its types only: nothing of the
// generation library is bundled. The API serves it as stored (an object, in the document).
import type { SceneDrawing } from '@scene-studio/world-engine/scene-spec';
export type { CameraPreset, Vec3 } from '@scene-studio/world-engine/scene-spec';

/**
 * The part of the scene spec the studio reads: its drawing, all that a perform session receives
 * (the edit modes get the prompt and the edit history too, which the page never reads from the
 * spec). docs/embed.md, "What each mode receives".
 */
export type SceneSpec = Omit<SceneDrawing, 'schemaVersion'>;
