import { DomainError, FieldError } from '@app/core';
import { CAMERA_PATH_LIMITS } from '@scene-studio/camera-path';

export const CameraPathErrors = {
  /** Rules that span fields (camera-path-rules.ts), answered like the DTO's own field errors. */
  invalidDocument: (errors: FieldError[]) => DomainError.validation(errors, 'The camera path document breaks the rules of its format.'),
  /**
   * The scene keeps as many paths as it may. No code of docs/api.md's table fits better than a validation
   * failure; `errors[0].field` names the collection, so a page can say what to do.
   */
  tooMany: () =>
    DomainError.validation(
      [
        {
          field: 'cameraPaths',
          code: 'too_many',
          message: `a scene keeps at most ${CAMERA_PATH_LIMITS.perScene} saved camera paths and views; delete one to save another`,
        },
      ],
      `This scene already has ${CAMERA_PATH_LIMITS.perScene} saved camera paths and views.`,
    ),
};
