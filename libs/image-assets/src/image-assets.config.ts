import { defineConfigSlice, toInt } from '@app/core';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

/**
 * The upload route's variables (README, "Environment"). Each property name is the variable's, so
 * a validation failure names exactly the variable an operator must fix.
 */
export class UploadVariables {
  /** Uploads handled at once per api process; the rest wait unread, which bounds memory. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(256)
  UPLOAD_CONCURRENCY: number;

  /** How long an upload may wait for a slot before it is answered 503. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(600)
  UPLOAD_QUEUE_TIMEOUT_SECONDS: number;

  /** Uploads one organization may have in flight in one api process; empty: half of UPLOAD_CONCURRENCY, rounded up. */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(64)
  UPLOAD_SLOTS_PER_ORGANIZATION?: number;

  /** An upload whose body stops arriving for this long is answered 408 and frees its slot. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(600)
  UPLOAD_IDLE_TIMEOUT_SECONDS: number;

  /** The longest an upload's body may take to arrive once it has a slot. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(3600)
  UPLOAD_BODY_TIMEOUT_SECONDS: number;
}

export interface UploadSettings {
  concurrency: number;
  queueTimeoutMs: number;
  slotsPerOrganization: number;
  idleTimeoutMs: number;
  bodyTimeoutMs: number;
}

/**
 * The image-assets lib's slice of the configuration: how the api takes uploads in (its upload
 * gate and reader), validated at boot with the rest (core's `loadConfig`).
 */
export const UPLOADS_CONFIG = defineConfigSlice({
  name: 'uploads',
  variables: UploadVariables,
  defaults: {
    UPLOAD_CONCURRENCY: '4',
    UPLOAD_QUEUE_TIMEOUT_SECONDS: '30',
    UPLOAD_SLOTS_PER_ORGANIZATION: undefined,
    UPLOAD_IDLE_TIMEOUT_SECONDS: '10',
    UPLOAD_BODY_TIMEOUT_SECONDS: '120',
  },
  build: (v): UploadSettings => ({
    concurrency: v.UPLOAD_CONCURRENCY,
    queueTimeoutMs: v.UPLOAD_QUEUE_TIMEOUT_SECONDS * 1000,
    slotsPerOrganization: Math.min(v.UPLOAD_CONCURRENCY, v.UPLOAD_SLOTS_PER_ORGANIZATION ?? Math.ceil(v.UPLOAD_CONCURRENCY / 2)),
    idleTimeoutMs: v.UPLOAD_IDLE_TIMEOUT_SECONDS * 1000,
    bodyTimeoutMs: v.UPLOAD_BODY_TIMEOUT_SECONDS * 1000,
  }),
});
