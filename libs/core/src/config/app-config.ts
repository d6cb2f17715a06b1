import { plainToInstance } from 'class-transformer';
import { validateSync, ValidationError } from 'class-validator';
import { isIP } from 'node:net';
import { BlobStoreKind, ENV_DEFAULTS, EnvironmentVariables, EnvName, LogLevel } from './config.schema';
import { ConfigSlice, declaredConfigSlices } from './config-slice';

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * The validated configuration of a process. It is built once at boot by `loadConfig` and
 * injected everywhere by class token; nothing else in the code base reads `process.env`.
 */
export class AppConfig {
  readonly env: 'development' | 'production' | 'test';
  readonly host: string;
  readonly ports: { api: number; studio: number; worker: number; apiOps: number; studioOps: number };
  readonly database: { url: string; poolSize: number; statementTimeoutMs: number };
  readonly redis: { url: string; commandTimeoutMs: number };
  readonly publicApiUrl: string;
  readonly publicEmbedOrigin: string;
  readonly logLevel: LogLevel;
  readonly queuePrefix: string;
  readonly rateLimit: { requests: number; windowSeconds: number };
  readonly apiKeyCacheTtlMs: number;
  /** Lookups of credentials not seen valid lately, per client address and minute (UNKNOWN_CREDENTIAL_LOOKUPS_PER_MINUTE). */
  readonly unknownCredentialLookupsPerMinute: number;
  /** Express's `trust proxy`: false (the socket's address), a hop count, or the trusted addresses and ranges. */
  readonly trustProxy: false | number | string[];
  /** How long a stopping process lets running work finish: a worker's jobs, an HTTP server's requests. */
  readonly shutdownTimeoutMs: number;
  readonly worker: { concurrency: number; lockDurationMs: number; stalledIntervalMs: number };
  readonly http: { headersTimeoutMs: number; jsonBodyTimeoutMs: number };
  /** DNS for outbound connections made for others: webhook targets, hosts a provider hands back. */
  readonly outboundDns: { servers: string[] | null; timeoutMs: number };
  readonly blobStore: {
    kind: BlobStoreKind;
    s3: {
      bucket: string | null;
      region: string;
      endpoint: string | null;
      forcePathStyle: boolean;
      credentials: { accessKeyId: string; secretAccessKey: string } | null;
      keyPrefix: string;
    };
  };

  /** The libs' slices (`<lib>.config.ts`), validated with the rest. */
  private readonly slices: ReadonlyMap<ConfigSlice<unknown>, unknown>;

  constructor(v: EnvironmentVariables, slices: ReadonlyMap<ConfigSlice<unknown>, unknown> = new Map()) {
    this.slices = slices;
    this.env = v.NODE_ENV as AppConfig['env'];
    this.host = v.HOST;
    this.ports = { api: v.API_PORT, studio: v.STUDIO_PORT, worker: v.WORKER_PORT, apiOps: v.API_OPS_PORT, studioOps: v.STUDIO_OPS_PORT };
    this.database = { url: v.DATABASE_URL, poolSize: v.DATABASE_POOL_SIZE, statementTimeoutMs: v.DATABASE_STATEMENT_TIMEOUT_MS };
    this.redis = { url: v.REDIS_URL, commandTimeoutMs: v.REDIS_COMMAND_TIMEOUT_MS };
    this.publicApiUrl = v.PUBLIC_API_URL.replace(/\/+$/, '');
    this.publicEmbedOrigin = v.PUBLIC_EMBED_ORIGIN;
    this.logLevel = v.LOG_LEVEL;
    this.queuePrefix = v.QUEUE_PREFIX;
    this.rateLimit = { requests: v.RATE_LIMIT_REQUESTS, windowSeconds: v.RATE_LIMIT_WINDOW_SECONDS };
    this.apiKeyCacheTtlMs = v.API_KEY_CACHE_TTL_SECONDS * 1000;
    this.unknownCredentialLookupsPerMinute = v.UNKNOWN_CREDENTIAL_LOOKUPS_PER_MINUTE;
    this.trustProxy = trustProxyOf(v.TRUSTED_PROXIES);
    this.shutdownTimeoutMs = v.SHUTDOWN_TIMEOUT_SECONDS * 1000;
    this.worker = {
      concurrency: v.WORKER_CONCURRENCY,
      lockDurationMs: v.WORKER_LOCK_DURATION_MS,
      stalledIntervalMs: v.WORKER_STALLED_INTERVAL_MS,
    };
    this.http = { headersTimeoutMs: v.HTTP_HEADERS_TIMEOUT_SECONDS * 1000, jsonBodyTimeoutMs: v.JSON_BODY_TIMEOUT_SECONDS * 1000 };
    this.outboundDns = { servers: v.OUTBOUND_DNS_SERVERS ? v.OUTBOUND_DNS_SERVERS.split(',') : null, timeoutMs: v.OUTBOUND_DNS_TIMEOUT_MS };
    this.blobStore = {
      kind: v.BLOB_STORE,
      s3: {
        bucket: v.S3_BUCKET || null,
        region: v.S3_REGION,
        endpoint: v.S3_ENDPOINT || null,
        forcePathStyle: v.S3_FORCE_PATH_STYLE === 'true',
        credentials:
          v.S3_ACCESS_KEY_ID && v.S3_SECRET_ACCESS_KEY
            ? { accessKeyId: v.S3_ACCESS_KEY_ID, secretAccessKey: v.S3_SECRET_ACCESS_KEY }
            : null,
        keyPrefix: v.S3_KEY_PREFIX ?? '',
      },
    };
  }

  /** A lib's settings (`<lib>.config.ts`), validated at boot with everything else. */
  slice<T>(slice: ConfigSlice<T>): T {
    if (!this.slices.has(slice)) {
      throw new Error(`config slice "${slice.name}" was not declared when the configuration was loaded`);
    }
    return this.slices.get(slice) as T;
  }
}

/** Express's names for address ranges it knows. */
const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** TRUSTED_PROXIES as Express's `trust proxy` takes it: unset or 0 trusts no proxy. */
function trustProxyOf(value: string | undefined): false | number | string[] {
  if (!value) return false;
  if (/^\d+$/.test(value)) return Number(value) === 0 ? false : Number(value);
  return value.split(',');
}

/** `10.0.0.1`, `10.0.0.0/8`, `fd00::/8` or one of Express's range names. */
function isProxyEntry(entry: string): boolean {
  if (PROXY_RANGE_NAMES.has(entry)) return true;
  const [address, prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

/** Values that win over the environment (tests): core's variables and those of the libs' slices. */
export type ConfigOverrides = Partial<Record<EnvName, string | undefined>> & { readonly [variable: string]: string | undefined };

/**
 * Reads the environment once, applies defaults and validates every variable.
 * Messages name the variable and the rule but never echo the value: a bad DATABASE_URL may
 * still contain a password.
 */
export function loadConfig(overrides: ConfigOverrides = {}, source: NodeJS.ProcessEnv = process.env): AppConfig {
  const slices = declaredConfigSlices();
  const read = (defaults: Readonly<Record<string, string | undefined>>) => {
    const raw: Record<string, string | undefined> = {};
    for (const name of Object.keys(defaults)) {
      const fromOverride = Object.prototype.hasOwnProperty.call(overrides, name) ? overrides[name] : undefined;
      const fromEnv = source[name];
      raw[name] = fromOverride ?? (fromEnv === '' ? undefined : fromEnv) ?? defaults[name];
    }
    return raw;
  };
  // An override no schema reads is a typo in a test: it would silently test the default.
  const known = new Set([...Object.keys(ENV_DEFAULTS), ...slices.flatMap((s) => Object.keys(s.defaults))]);
  const unknown = Object.keys(overrides).filter((name) => !known.has(name));
  if (unknown.length > 0) throw new ConfigError(unknown.map((name) => `${name} is not a variable of this process`));
  const vars = plainToInstance(EnvironmentVariables, read(ENV_DEFAULTS));
  const problems = flatten(validateSync(vars, { skipMissingProperties: false, forbidUnknownValues: true }));
  const sliceValues = new Map<ConfigSlice<unknown>, unknown>();
  for (const slice of slices) {
    const sliceVars = plainToInstance(slice.variables, read(slice.defaults));
    const sliceProblems = [...flatten(validateSync(sliceVars, { skipMissingProperties: false, forbidUnknownValues: true }))];
    if (sliceProblems.length === 0) sliceProblems.push(...slice.check(sliceVars, vars));
    problems.push(...sliceProblems);
    if (sliceProblems.length === 0) sliceValues.set(slice, slice.build(sliceVars, vars));
  }
  problems.push(...checkCore(vars));
  if (problems.length > 0) throw new ConfigError(problems);
  return new AppConfig(vars, sliceValues);
}

/**
 * Core's own rules across its variables, past their one-by-one validation: what a lib's slice
 * says in its `check` (config-slice.ts), for the variables core itself reads.
 */
function checkCore(vars: EnvironmentVariables): string[] {
  const problems: string[] = [];
  if (vars.BLOB_STORE === 's3' && !vars.S3_BUCKET) problems.push('S3_BUCKET must be set when BLOB_STORE is "s3"');
  if (!vars.S3_ACCESS_KEY_ID !== !vars.S3_SECRET_ACCESS_KEY)
    problems.push('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY must be set together');
  // An ops port equal to its public port would put /metrics back on it, or fail to bind.
  for (const [ops, open] of [
    ['API_OPS_PORT', 'API_PORT'],
    ['STUDIO_OPS_PORT', 'STUDIO_PORT'],
  ] as const) {
    if (vars[ops] !== 0 && vars[ops] === vars[open]) problems.push(`${ops} must differ from ${open}`);
  }
  // dns.Resolver#setServers takes addresses only (no names: they would need DNS themselves).
  if (vars.OUTBOUND_DNS_SERVERS && !vars.OUTBOUND_DNS_SERVERS.split(',').every(isDnsServer)) {
    problems.push('OUTBOUND_DNS_SERVERS must list IP addresses with an optional port: 10.0.0.2, 10.0.0.2:5353, [fd00::53]:53');
  }
  if (vars.TRUSTED_PROXIES && !/^\d+$/.test(vars.TRUSTED_PROXIES) && !vars.TRUSTED_PROXIES.split(',').every(isProxyEntry)) {
    problems.push(
      'TRUSTED_PROXIES must be a hop count or addresses and CIDR ranges (10.0.0.0/8, fd00::/8) or loopback, linklocal, uniquelocal',
    );
  }
  return problems;
}

/** `1.2.3.4`, `1.2.3.4:53`, `fd00::53`, `[fd00::53]` or `[fd00::53]:53`. */
function isDnsServer(server: string): boolean {
  if (isIP(server) !== 0) return true;
  const m = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(server) ?? /^([^:\]]+):(\d{1,5})$/.exec(server);
  const port = Number(m?.[2] ?? 53);
  return !!m && isIP(m[1]) === (server.startsWith('[') ? 6 : 4) && port >= 1 && port <= 65535;
}

function flatten(errors: ValidationError[]): string[] {
  return errors.flatMap((e) =>
    Object.values(e.constraints ?? {}).map((message) =>
      // class-validator starts its messages with the property name already
      message.startsWith(e.property) ? message : `${e.property} ${message}`,
    ),
  );
}

/** For process entry points: a bad configuration prints its problems and exits with status 1. */
export function exitOnConfigError<T>(load: () => T): T {
  try {
    return load();
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`${e.message}\n`);
      process.exit(1);
    }
    throw e;
  }
}
