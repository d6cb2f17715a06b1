import { DomainError, ErrorCode } from '@app/core';

export const SceneErrors = {
  externalRefConflict: () =>
    new DomainError(ErrorCode.ExternalRefConflict, 'An active scene of this organization already uses this externalRef.'),
  notReady: () => new DomainError(ErrorCode.SceneNotReady, 'The scene has no version to edit yet; wait until its creation succeeds.'),
  editInProgress: () =>
    new DomainError(ErrorCode.EditInProgress, 'An edit of this scene is still in progress; wait until it finishes, then try again.'),
};

const UNIQUE_VIOLATION = '23505';

export function isExternalRefConflict(e: unknown): boolean {
  const driver = (e as { driverError?: { code?: string; constraint?: string } })?.driverError;
  return driver?.code === UNIQUE_VIOLATION && driver.constraint === 'scenes_active_external_ref_idx';
}
