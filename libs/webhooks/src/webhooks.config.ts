import { defineConfigSlice, toInt } from '@app/core';
import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, Matches, Max, Min } from 'class-validator';

const DAY_MS = 86_400_000;

/**
 * The webhooks' variables (README, "Environment"). Each property name is the variable's, so a
 * validation failure names exactly the variable an operator must fix.
 */
export class WebhookVariables {
  /**
   * The key that seals webhook signing secrets at rest (AES-256-GCM): base64 of 32 bytes. Required
   * in production; elsewhere a development key is used, with a warning when it first seals or opens one.
   */
  @IsOptional()
  @Matches(/^[A-Za-z0-9+/]{43}=$/, { message: 'must be base64 of exactly 32 bytes (openssl rand -base64 32)' })
  WEBHOOK_SECRETS_KEY?: string;

  /** The longest one delivery may take, from resolving the target's name to the end of the answer's headers. */
  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(60_000)
  WEBHOOK_TIMEOUT_MS: number;

  /**
   * `true` lets test organizations' http://localhost:<port> webhook targets be delivered in
   * production too (a staging installation, say); outside production they always may.
   */
  @IsIn(['true', 'false'])
  WEBHOOK_ALLOW_LOOPBACK: string;

  /** Deliveries one worker sends at once. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(256)
  WEBHOOK_CONCURRENCY: number;

  /** How often an idle worker looks for due deliveries (an event waits at most about this long). */
  @Transform(toInt)
  @IsInt()
  @Min(10)
  @Max(60_000)
  WEBHOOK_POLL_INTERVAL_MS: number;

  /** Waits before each retry, in milliseconds, comma-separated; after the last one a delivery fails for good. */
  @Matches(/^\d{1,9}(,\d{1,9}){0,19}$/, { message: 'must be 1 to 20 comma-separated millisecond counts, e.g. 5000,300000' })
  WEBHOOK_RETRY_SCHEDULE_MS: string;

  /** An endpoint with no successful delivery for this long, while deliveries keep failing, is disabled (`failing`). */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(90 * 86_400)
  WEBHOOK_DISABLE_AFTER_SECONDS: number;

  /**
   * Retention (docs/operations.md, "Data we keep"): days a webhook delivery (with its attempt log)
   * is kept after it ended (delivered, or failed for good), and a partner-deleted endpoint after
   * its deletion; then erased by `webhooks.purge-old`.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(3650)
  WEBHOOK_RETENTION_DAYS: number;
}

/**
 * Seals webhook secrets where no key is configured (development, tests). Public by nature: a
 * database sealed with it is as readable as one not sealed, which is why production refuses it.
 */
const DEVELOPMENT_SECRETS_KEY = Buffer.from('scene-studio development key!!!!').toString('base64');

export interface WebhookSettings {
  /** 32 bytes; a fixed development key unless WEBHOOK_SECRETS_KEY is set (required in production). */
  secretsKey: Buffer;
  secretsKeyIsDevelopment: boolean;
  timeoutMs: number;
  concurrency: number;
  pollIntervalMs: number;
  retryScheduleMs: number[];
  disableAfterMs: number;
  /** Whether test organizations' http://localhost:<port> targets may be delivered: always outside production, there only with WEBHOOK_ALLOW_LOOPBACK. */
  allowLoopback: boolean;
  /** How long a delivery, and a deleted endpoint, is kept once it has ended (WEBHOOK_RETENTION_DAYS). */
  retentionMs: number;
}

/** The webhooks lib's slice of the configuration, validated at boot with the rest (core's `loadConfig`). */
export const WEBHOOKS_CONFIG = defineConfigSlice({
  name: 'webhooks',
  variables: WebhookVariables,
  defaults: {
    WEBHOOK_SECRETS_KEY: undefined,
    WEBHOOK_TIMEOUT_MS: '10000',
    WEBHOOK_CONCURRENCY: '16',
    WEBHOOK_POLL_INTERVAL_MS: '500',
    // About 27 hours in all, as in the Standard Webhooks reference schedule.
    WEBHOOK_RETRY_SCHEDULE_MS: '5000,300000,1800000,7200000,18000000,36000000,36000000',
    WEBHOOK_DISABLE_AFTER_SECONDS: String(5 * 86_400),
    WEBHOOK_ALLOW_LOOPBACK: 'false',
    // Webhook deliveries are kept 30 days (docs/api.md, "Webhooks").
    WEBHOOK_RETENTION_DAYS: '30',
  },
  // Production must not seal webhook secrets with the development key everyone can read here.
  check: (v, core) =>
    core.NODE_ENV === 'production' && !v.WEBHOOK_SECRETS_KEY
      ? ['WEBHOOK_SECRETS_KEY must be set when NODE_ENV is "production" (openssl rand -base64 32)']
      : [],
  build: (v, core): WebhookSettings => ({
    secretsKey: Buffer.from(v.WEBHOOK_SECRETS_KEY ?? DEVELOPMENT_SECRETS_KEY, 'base64'),
    secretsKeyIsDevelopment: !v.WEBHOOK_SECRETS_KEY,
    timeoutMs: v.WEBHOOK_TIMEOUT_MS,
    concurrency: v.WEBHOOK_CONCURRENCY,
    pollIntervalMs: v.WEBHOOK_POLL_INTERVAL_MS,
    retryScheduleMs: v.WEBHOOK_RETRY_SCHEDULE_MS.split(',').map(Number),
    disableAfterMs: v.WEBHOOK_DISABLE_AFTER_SECONDS * 1000,
    allowLoopback: core.NODE_ENV !== 'production' || v.WEBHOOK_ALLOW_LOOPBACK === 'true',
    retentionMs: v.WEBHOOK_RETENTION_DAYS * DAY_MS,
  }),
});
