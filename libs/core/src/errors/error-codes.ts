/**
 * Every machine-readable error code the service can answer with (contract section 4).
 * Libraries throw `DomainError`s carrying one of these; only the HTTP layer knows status codes.
 */
export enum ErrorCode {
  BadRequest = 'bad_request',
  InvalidJson = 'invalid_json',
  InvalidId = 'invalid_id',
  IdempotencyKeyMissing = 'idempotency_key_missing',
  IdempotencyKeyInvalid = 'idempotency_key_invalid',
  Unauthenticated = 'unauthenticated',
  SessionEnded = 'session_ended',
  Forbidden = 'forbidden',
  MethodNotAllowed = 'method_not_allowed',
  RequestTimeout = 'request_timeout',
  NotFound = 'not_found',
  IdempotencyRequestInProgress = 'idempotency_request_in_progress',
  ExternalRefConflict = 'external_ref_conflict',
  SceneNotReady = 'scene_not_ready',
  EditInProgress = 'edit_in_progress',
  LimitExceeded = 'limit_exceeded',
  PayloadTooLarge = 'payload_too_large',
  ExpectationFailed = 'expectation_failed',
  HeadersTooLarge = 'headers_too_large',
  UnsupportedMediaType = 'unsupported_media_type',
  ValidationFailed = 'validation_failed',
  IdempotencyKeyReused = 'idempotency_key_reused',
  UnsupportedImageFormat = 'unsupported_image_format',
  ImageCorrupt = 'image_corrupt',
  ImageDimensionsExceeded = 'image_dimensions_exceeded',
  SourceAssetNotFound = 'source_asset_not_found',
  SourceImageTooSmall = 'source_image_too_small',
  SourceImageAspectRatio = 'source_image_aspect_ratio',
  OriginNotAllowed = 'origin_not_allowed',
  RateLimited = 'rate_limited',
  QuotaExceeded = 'quota_exceeded',
  Unavailable = 'unavailable',
  InternalError = 'internal_error',
}

/** One broken field rule inside a `validation_failed` problem. */
export interface FieldError {
  field: string;
  code: string;
  message: string;
}
