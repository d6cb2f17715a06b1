import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, IsUrl, Matches, Max, Min } from 'class-validator';

/** For `@Transform`: an integer variable's text as a number (anything else is left for `@IsInt` to refuse). */
export const toInt = ({ value }: { value: unknown }) =>
  typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value.trim()) : value;

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const BLOB_STORES = ['postgres', 's3'] as const;
export type BlobStoreKind = (typeof BLOB_STORES)[number];

/**
 * Every environment variable the processes read, with its rule. Each property name is the
 * variable name, so a validation failure names exactly the variable an operator must fix.
 * Defaults live in `defaults` below so that `docs` and the README table can be checked against one place.
 */
export class EnvironmentVariables {
  @IsIn(['development', 'production', 'test'])
  NODE_ENV: string;

  @IsString()
  @Matches(/^\S+$/, { message: 'must be a host name or address without spaces' })
  HOST: string;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(65535)
  API_PORT: number;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(65535)
  STUDIO_PORT: number;

  /** The worker's health and metrics port. 0 picks any free port (logged at boot; a local replica). */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(65535)
  WORKER_PORT: number;

  /**
   * The api's and the studio's operations ports: `/metrics` (and `/healthz`, `/readyz`) for
   * Prometheus and orchestrators, kept off the public ports. 0 picks any free port (tests).
   */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(65535)
  API_OPS_PORT: number;

  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(65535)
  STUDIO_OPS_PORT: number;

  @IsUrl({ protocols: ['postgres', 'postgresql'], require_tld: false, require_protocol: true })
  DATABASE_URL: string;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(200)
  DATABASE_POOL_SIZE: number;

  /**
   * Sent as a connection parameter; `0` sends none, for PgBouncer in transaction mode, which
   * refuses unknown startup parameters (set it on the database role there instead).
   */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(3_600_000)
  DATABASE_STATEMENT_TIMEOUT_MS: number;

  @IsUrl({ protocols: ['redis', 'rediss'], require_tld: false, require_protocol: true })
  REDIS_URL: string;

  /**
   * How long a request-path Redis command (rate limits, places, broadcasts) may take before it
   * fails and the caller answers 503 or falls back; the queues' blocking connections never time
   * out. Raise it on a node where Redis answers slowly under load.
   */
  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(60_000)
  REDIS_COMMAND_TIMEOUT_MS: number;

  @IsUrl({ protocols: ['http', 'https'], require_tld: false, require_protocol: true })
  PUBLIC_API_URL: string;

  /** Must be a serialized origin (scheme://host[:port]) because it is compared and framed verbatim. */
  @Matches(/^https?:\/\/[^/?#\s@]+$/, {
    message: 'must be an origin such as https://embed.partner-studio.com (scheme, host and optional port only)',
  })
  PUBLIC_EMBED_ORIGIN: string;

  @IsIn(LOG_LEVELS)
  LOG_LEVEL: LogLevel;

  @Matches(/^[A-Za-z0-9_.-]{1,64}$/, { message: 'must be 1 to 64 letters, digits, dots, dashes or underscores' })
  QUEUE_PREFIX: string;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  RATE_LIMIT_REQUESTS: number;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(86_400)
  RATE_LIMIT_WINDOW_SECONDS: number;

  /** Upper bound 5: the product promises that a revoked key stops working everywhere within 5 seconds. */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(5)
  API_KEY_CACHE_TTL_SECONDS: number;

  /**
   * Database lookups that find nothing (API keys, embed secrets, embed page ids) per client
   * address and minute, shared by every api and studio replica: past it, requests with
   * credentials not found lately get `429 rate_limited` without reaching PostgreSQL. Lookups that
   * find a valid one are never counted.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  UNKNOWN_CREDENTIAL_LOOKUPS_PER_MINUTE: number;

  /**
   * Which proxies in front of api and studio may name the client (`X-Forwarded-For`), passed to
   * Express's `trust proxy`: a hop count (`1`: the nearest proxy), or comma-separated addresses,
   * CIDR ranges and `loopback`, `linklocal`, `uniquelocal`. Unset: none, the socket's address.
   */
  @IsOptional()
  @Matches(/^(\d{1,2}|[^,\s]+(,[^,\s]+){0,31})$/, {
    message: 'must be a hop count or up to 32 comma-separated addresses, CIDR ranges or loopback, linklocal, uniquelocal',
  })
  TRUSTED_PROXIES?: string;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(64)
  WORKER_CONCURRENCY: number;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(3600)
  SHUTDOWN_TIMEOUT_SECONDS: number;

  /** How long a running job's lock lasts; a killed worker's job is picked up after about this long. */
  @Transform(toInt)
  @IsInt()
  @Min(1000)
  @Max(600_000)
  WORKER_LOCK_DURATION_MS: number;

  @Transform(toInt)
  @IsInt()
  @Min(500)
  @Max(600_000)
  WORKER_STALLED_INTERVAL_MS: number;

  /** The longest a request's line and headers may take to arrive. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(600)
  HTTP_HEADERS_TIMEOUT_SECONDS: number;

  /** The longest a JSON body (at most 64 KiB) may take to arrive. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(600)
  JSON_BODY_TIMEOUT_SECONDS: number;

  /**
   * DNS servers for the names of outbound connections made for others (webhook targets, hosts a
   * generation provider hands back): comma-separated IP addresses with an optional port
   * (`10.0.0.2`, `10.0.0.2:5353`, `[fd00::53]:53`); unset: the system's (/etc/resolv.conf).
   */
  @IsOptional()
  @Matches(/^[^,\s]+(,[^,\s]+){0,9}$/, { message: 'must be 1 to 10 comma-separated DNS servers, e.g. 10.0.0.2,10.0.0.3:5353' })
  OUTBOUND_DNS_SERVERS?: string;

  /** The longest one such name may take to resolve, all servers and retries included. */
  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(60_000)
  OUTBOUND_DNS_TIMEOUT_MS: number;

  /** Where bytes live: the `blobs` table (default) or an S3-compatible bucket (docs/operations.md). */
  @IsIn(BLOB_STORES)
  BLOB_STORE: BlobStoreKind;

  @IsOptional()
  @Matches(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, { message: 'must be an S3 bucket name' })
  S3_BUCKET?: string;

  @IsString()
  @Matches(/^[a-z0-9-]{1,32}$/, { message: 'must be a region name such as us-east-1 or auto' })
  S3_REGION: string;

  /** An S3-compatible endpoint (MinIO, R2, a test server); unset for AWS itself. */
  @IsOptional()
  @IsUrl({ protocols: ['http', 'https'], require_tld: false, require_protocol: true })
  S3_ENDPOINT?: string;

  /** `true` for stores that address buckets by path (MinIO, most self-hosted ones). */
  @IsIn(['true', 'false'])
  S3_FORCE_PATH_STYLE: string;

  /** Static credentials; unset, the AWS SDK's default chain is used (IRSA, instance roles, …). */
  @IsOptional()
  @IsString()
  S3_ACCESS_KEY_ID?: string;

  @IsOptional()
  @IsString()
  S3_SECRET_ACCESS_KEY?: string;

  /** Prepended to every object key, so several installations can share a bucket. */
  @IsOptional()
  @Matches(/^[A-Za-z0-9._/-]{0,200}$/, { message: 'must be letters, digits and . _ / -' })
  S3_KEY_PREFIX?: string;
}

export type EnvName = keyof EnvironmentVariables;

export const ENV_DEFAULTS: Record<EnvName, string | undefined> = {
  NODE_ENV: 'development',
  HOST: '0.0.0.0',
  API_PORT: '3000',
  STUDIO_PORT: '3001',
  WORKER_PORT: '3002',
  API_OPS_PORT: '3003',
  STUDIO_OPS_PORT: '3004',
  DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/scene_studio',
  DATABASE_POOL_SIZE: '10',
  DATABASE_STATEMENT_TIMEOUT_MS: '30000',
  REDIS_URL: 'redis://127.0.0.1:6379',
  REDIS_COMMAND_TIMEOUT_MS: '1500',
  PUBLIC_API_URL: 'http://localhost:3000',
  PUBLIC_EMBED_ORIGIN: 'http://localhost:3001',
  LOG_LEVEL: 'info',
  QUEUE_PREFIX: 'scene-studio',
  RATE_LIMIT_REQUESTS: '1200',
  RATE_LIMIT_WINDOW_SECONDS: '60',
  API_KEY_CACHE_TTL_SECONDS: '5',
  UNKNOWN_CREDENTIAL_LOOKUPS_PER_MINUTE: '300',
  TRUSTED_PROXIES: undefined,
  WORKER_CONCURRENCY: '4',
  SHUTDOWN_TIMEOUT_SECONDS: '25',
  WORKER_LOCK_DURATION_MS: '30000',
  WORKER_STALLED_INTERVAL_MS: '15000',
  HTTP_HEADERS_TIMEOUT_SECONDS: '10',
  JSON_BODY_TIMEOUT_SECONDS: '10',
  OUTBOUND_DNS_SERVERS: undefined,
  OUTBOUND_DNS_TIMEOUT_MS: '5000',
  BLOB_STORE: 'postgres',
  S3_BUCKET: undefined,
  S3_REGION: 'us-east-1',
  S3_ENDPOINT: undefined,
  S3_FORCE_PATH_STYLE: 'false',
  S3_ACCESS_KEY_ID: undefined,
  S3_SECRET_ACCESS_KEY: undefined,
  S3_KEY_PREFIX: undefined,
};
