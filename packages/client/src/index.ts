/**
 * @scene-studio/client: the typed client of the Scene Studio partner API. The types come from
 * the api's OpenAPI document (`npm run client:generate`); the helpers are the ones every partner
 * would otherwise write. No runtime dependency: a partner installs this package alone. See the
 * README's "TypeScript client" section.
 */
export { SceneStudioClient } from './client';
export type { CreatedScene, RequestOptions, ResumedScene, SceneStudioClientOptions, WaitOptions } from './client';
export { OperationTimeoutError, SceneStudioError } from './errors';
export { DEFAULT_RETRY_POLICY, parseRetryAfter } from './retry';
export type { RetryPolicy, Sleep } from './retry';
export { MAX_UPLOAD_BYTES } from './uploads';
export type { UploadOptions, UploadSource } from './uploads';
export { testPrompt } from './test-mode';
export type { TestFailureCode, TestOutcome } from './test-mode';
export { verifyWebhook, WEBHOOK_TOLERANCE_SECONDS, WebhookVerificationError } from './webhooks';
export type { SceneStudioWebhookEvent, UnknownWebhookEvent, VerifiedWebhook, WebhookEvent, WebhookHeaders } from './webhooks';
export type * from './types';
export type { ApiClient, ApiRequest, ApiResult, PathsWith } from './http';
export type { components, operations, paths } from './generated/openapi';
