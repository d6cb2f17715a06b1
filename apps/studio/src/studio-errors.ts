import { ErrorTable } from '@app/core';
import { EMBED_SESSION_ERRORS } from '@app/embed-sessions';
import { IMAGE_ASSET_ERRORS } from '@app/image-assets';
import { SCENE_ERRORS } from '@app/scenes';
import { TENANCY_ERRORS } from '@app/tenancy';

/**
 * The error codes the studio answers with, besides core's: sessions (`session_ended`), the edits
 * it starts (scenes' codes, the source image's, the daily quota). Camera paths answer with core's.
 */
export const STUDIO_ERRORS = [EMBED_SESSION_ERRORS, SCENE_ERRORS, IMAGE_ASSET_ERRORS, TENANCY_ERRORS];

export const STUDIO_ERROR_TABLE = ErrorTable.of(...STUDIO_ERRORS);
export type StudioErrorCode = ReturnType<typeof STUDIO_ERROR_TABLE.codes>[number];
