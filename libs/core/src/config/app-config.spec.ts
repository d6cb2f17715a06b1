import { ConfigError, loadConfig } from './app-config';

describe(loadConfig.name, () => {
  const sut = (overrides: Record<string, string | undefined>) => loadConfig(overrides, {});

  it('applies the documented defaults', () => {
    const config = sut({});
    expect(config.ports).toEqual({ api: 3000, studio: 3001, worker: 3002, apiOps: 3003, studioOps: 3004 });
    expect(config.database.url).toBe('postgres://postgres@127.0.0.1:5432/scene_studio');
    expect(config.redis).toEqual({ url: 'redis://127.0.0.1:6379', commandTimeoutMs: 1500 });
    expect(config.publicApiUrl).toBe('http://localhost:3000');
    expect(config.publicEmbedOrigin).toBe('http://localhost:3001');
    expect(config.logLevel).toBe('info');
    expect(config.apiKeyCacheTtlMs).toBe(5000);
  });

  it('reads the environment it is given, an empty value meaning the default', () => {
    expect(loadConfig({}, { API_PORT: '4000', STUDIO_PORT: '' }).ports).toMatchObject({ api: 4000, studio: 3001 });
  });

  it.each([
    ['API_PORT', '70000'],
    ['API_PORT', '12abc'],
    ['STUDIO_PORT', '-1'],
    ['WORKER_PORT', 'x'],
    ['API_OPS_PORT', '-1'],
    ['STUDIO_OPS_PORT', '65536'],
    ['DATABASE_URL', 'mysql://localhost/db'],
    ['REDIS_URL', 'localhost:6379'],
    ['REDIS_COMMAND_TIMEOUT_MS', '50'],
    ['REDIS_COMMAND_TIMEOUT_MS', '1.5s'],
    ['PUBLIC_API_URL', 'ftp://x'],
    ['PUBLIC_EMBED_ORIGIN', 'https://studio.example/'],
    ['PUBLIC_EMBED_ORIGIN', 'studio.example'],
    ['LOG_LEVEL', 'verbose'],
    ['RATE_LIMIT_REQUESTS', '0'],
    ['API_KEY_CACHE_TTL_SECONDS', '6'],
    ['GENERATOR', 'magic'],
    ['QUEUE_PREFIX', 'has space'],
  ])('refuses %s=%s, naming the variable', (name, value) => {
    let error: unknown;
    try {
      sut({ [name]: value });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems.join('\n')).toContain(name);
    expect((error as Error).message).not.toContain(value.length > 3 ? value : '\u0000');
  });

  it('reports every bad variable at once', () => {
    expect(() => sut({ API_PORT: 'x', LOG_LEVEL: 'y' })).toThrow(/API_PORT[\s\S]*LOG_LEVEL|LOG_LEVEL[\s\S]*API_PORT/);
  });

  it('refuses an ops port equal to its public port, and accepts 0 (any free port)', () => {
    expect(() => sut({ API_PORT: '8080', API_OPS_PORT: '8080' })).toThrow(/API_OPS_PORT must differ from API_PORT/);
    expect(() => sut({ STUDIO_PORT: '8081', STUDIO_OPS_PORT: '8081' })).toThrow(/STUDIO_OPS_PORT must differ from STUDIO_PORT/);
    expect(sut({ API_OPS_PORT: '0', STUDIO_OPS_PORT: '0' }).ports).toMatchObject({ apiOps: 0, studioOps: 0 });
  });

  it('refuses an override no schema reads: a misspelt name would test the default', () => {
    expect(() => sut({ API_PORTS: '1' })).toThrow(/API_PORTS is not a variable of this process/);
  });

  it('reads the outbound DNS settings: the system’s servers by default, else IP addresses with optional ports', () => {
    expect(sut({}).outboundDns).toEqual({ servers: null, timeoutMs: 5000 });
    expect(
      sut({ OUTBOUND_DNS_SERVERS: '10.0.0.2,127.0.0.1:5353,fd00::53,[fd00::53]:53', OUTBOUND_DNS_TIMEOUT_MS: '800' }).outboundDns,
    ).toEqual({
      servers: ['10.0.0.2', '127.0.0.1:5353', 'fd00::53', '[fd00::53]:53'],
      timeoutMs: 800,
    });
    for (const bad of ['dns.example', '10.0.0.2:0', '10.0.0.2:70000', '[10.0.0.2]:53', '10.0.0.2,,10.0.0.3', '10.0.0.2 10.0.0.3']) {
      expect(() => sut({ OUTBOUND_DNS_SERVERS: bad })).toThrow(/OUTBOUND_DNS_SERVERS/);
    }
    expect(() => sut({ OUTBOUND_DNS_TIMEOUT_MS: '50' })).toThrow(/OUTBOUND_DNS_TIMEOUT_MS/);
  });

  it('keeps bytes in PostgreSQL by default, and needs a bucket for BLOB_STORE=s3', () => {
    expect(sut({}).blobStore.kind).toBe('postgres');
    expect(() => sut({ BLOB_STORE: 's3' })).toThrow(/S3_BUCKET must be set when BLOB_STORE is "s3"/);
    expect(
      sut({ BLOB_STORE: 's3', S3_BUCKET: 'scene-bytes', S3_ENDPOINT: 'http://minio:9000', S3_FORCE_PATH_STYLE: 'true' }).blobStore,
    ).toEqual({
      kind: 's3',
      s3: {
        bucket: 'scene-bytes',
        region: 'us-east-1',
        endpoint: 'http://minio:9000',
        forcePathStyle: true,
        credentials: null,
        keyPrefix: '',
      },
    });
  });

  it('takes S3 keys only as a pair, and never echoes the secret', () => {
    const attempt = () => sut({ BLOB_STORE: 's3', S3_BUCKET: 'b-1', S3_SECRET_ACCESS_KEY: 'hunter2-secret' });
    expect(attempt).toThrow(/S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY must be set together/);
    expect(attempt).not.toThrow(/hunter2/);
  });

  it('sends no statement_timeout when DATABASE_STATEMENT_TIMEOUT_MS is 0 (PgBouncer)', () => {
    expect(sut({}).database.statementTimeoutMs).toBe(30_000);
    expect(sut({ DATABASE_STATEMENT_TIMEOUT_MS: '0' }).database.statementTimeoutMs).toBe(0);
  });

  it('reads the per-address lookup budget, the documented number by default', () => {
    expect(sut({}).unknownCredentialLookupsPerMinute).toBe(300);
    expect(() => sut({ UNKNOWN_CREDENTIAL_LOOKUPS_PER_MINUTE: '0' })).toThrow(/UNKNOWN_CREDENTIAL_LOOKUPS_PER_MINUTE/);
  });

  it('trusts no proxy by default; TRUSTED_PROXIES is a hop count or addresses and ranges, as Express takes them', () => {
    expect(sut({}).trustProxy).toBe(false);
    expect(sut({ TRUSTED_PROXIES: '0' }).trustProxy).toBe(false);
    expect(sut({ TRUSTED_PROXIES: '2' }).trustProxy).toBe(2);
    expect(sut({ TRUSTED_PROXIES: '10.0.0.0/8,fd00::/8,192.0.2.10,loopback,uniquelocal' }).trustProxy).toEqual([
      '10.0.0.0/8',
      'fd00::/8',
      '192.0.2.10',
      'loopback',
      'uniquelocal',
    ]);
    for (const bad of ['proxy.internal', '10.0.0.0/33', 'fd00::/129', '10.0.0.1/8/8', '10.0.0.1,,10.0.0.2', '10.0.0.1 10.0.0.2', 'true']) {
      expect(() => sut({ TRUSTED_PROXIES: bad })).toThrow(/TRUSTED_PROXIES/);
    }
  });
});
