import type { components } from './generated/openapi';

type Schemas = components['schemas'];

/** RFC 9457 problem details, as every error of the api carries them. */
export type Problem = Schemas['Problem'];
export type ProblemCode = Problem['code'];
export type ImageAsset = Schemas['ImageAssetResponse'];
export type AcceptedOperation = Schemas['OperationAcceptedResponse'];
export type Operation = Schemas['OperationResponse'];
export type Scene = Schemas['SceneResponse'];
export type EmbedSession = Schemas['EmbedSessionResponse'];
export type CreateSceneInput = Schemas['CreateSceneDto'];
export type CreateEmbedSessionInput = Schemas['CreateEmbedSessionDto'];
export type EmbedMode = CreateEmbedSessionInput['mode'];
export type EmbedTheme = Schemas['EmbedThemeDto'];
export type ExtendedEmbedSession = Schemas['ExtendedEmbedSessionResponse'];
export type WebhookEndpoint = Schemas['WebhookEndpointResponse'];
export type WebhookEndpointWithSecret = Schemas['WebhookEndpointWithSecretResponse'];
export type CreateWebhookEndpointInput = Schemas['CreateWebhookEndpointDto'];
export type WebhookEventType = CreateWebhookEndpointInput['events'][number];
export type Usage = Schemas['UsageResponse'];
export type ExpiredImageAsset = Schemas['ExpiredImageAssetResponse'];
export type WebhookTestResult = Schemas['WebhookTestResponse'];

/** An operation that has finished: `succeeded` (with `sceneId` and `version`) or `failed` (with `error`). */
export type FinishedOperation = Operation & { status: 'succeeded' | 'failed' };
