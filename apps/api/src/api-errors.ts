import { ErrorTable } from '@app/core';
import { EMBED_SESSION_ERRORS } from '@app/embed-sessions';
import { IMAGE_ASSET_ERRORS } from '@app/image-assets';
import { ORGANIZATION_ERRORS } from '@app/organizations';
import { SCENE_ERRORS } from '@app/scenes';
import { TENANCY_ERRORS } from '@app/tenancy';
import { WEBHOOK_ERRORS } from '@app/webhooks';

/**
 * The error codes the api answers with, besides core's: those of every lib it serves (the
 * one without codes of its own, camera-paths, answers with core's).
 */
export const API_ERRORS = [ORGANIZATION_ERRORS, SCENE_ERRORS, IMAGE_ASSET_ERRORS, EMBED_SESSION_ERRORS, TENANCY_ERRORS, WEBHOOK_ERRORS];

/** The same, assembled: what the OpenAPI document lists and the tests check answers against. */
export const API_ERROR_TABLE = ErrorTable.of(...API_ERRORS);
export type ApiErrorCode = ReturnType<typeof API_ERROR_TABLE.codes>[number];
