import { DomainError, ErrorDeclarations } from '@app/core';

/** The scenes' own codes (docs/api.md, "Errors"). */
export enum SceneErrorCode {
  ExternalRefConflict = 'external_ref_conflict',
  SceneNotReady = 'scene_not_ready',
  EditInProgress = 'edit_in_progress',
}

/** What each answers over HTTP; the HTTP apps assemble it (CoreModule.forRoot({ errors })). */
export const SCENE_ERRORS: ErrorDeclarations<SceneErrorCode> = {
  [SceneErrorCode.ExternalRefConflict]: {
    status: 409,
    title: 'externalRef already in use',
    action: 'Use another externalRef, or find the scene that holds it with `GET /v1/scenes?externalRef=…` (delete it to free the value).',
  },
  [SceneErrorCode.SceneNotReady]: {
    status: 409,
    title: 'Scene not ready',
    action: "Wait until the scene's creation has succeeded (poll its operation), then try again.",
  },
  [SceneErrorCode.EditInProgress]: {
    status: 409,
    title: 'An edit is already in progress',
    action: 'Wait until the running edit finishes, then try again.',
  },
};

export const SceneErrors = {
  externalRefConflict: () =>
    new DomainError(SceneErrorCode.ExternalRefConflict, 'An active scene of this organization already uses this externalRef.'),
  notReady: () => new DomainError(SceneErrorCode.SceneNotReady, 'The scene has no version to edit yet; wait until its creation succeeds.'),
  editInProgress: () =>
    new DomainError(SceneErrorCode.EditInProgress, 'An edit of this scene is still in progress; wait until it finishes, then try again.'),
};

const UNIQUE_VIOLATION = '23505';

export function isExternalRefConflict(e: unknown): boolean {
  const driver = (e as { driverError?: { code?: string; constraint?: string } })?.driverError;
  return driver?.code === UNIQUE_VIOLATION && driver.constraint === 'scenes_active_external_ref_idx';
}
