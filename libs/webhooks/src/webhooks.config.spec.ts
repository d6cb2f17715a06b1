import { loadConfig } from '@app/core';
import { WEBHOOKS_CONFIG } from './webhooks.config';

describe('WEBHOOKS_CONFIG', () => {
  const sut = (overrides: Record<string, string | undefined>) => loadConfig(overrides, {});
  const webhooks = (overrides: Record<string, string | undefined>) => sut(overrides).slice(WEBHOOKS_CONFIG);

  it('reads the webhook settings, and refuses production without WEBHOOK_SECRETS_KEY', () => {
    const key = Buffer.alloc(32, 7).toString('base64');
    const config = webhooks({ WEBHOOK_SECRETS_KEY: key, WEBHOOK_RETRY_SCHEDULE_MS: '100,2000', WEBHOOK_TIMEOUT_MS: '2500' });
    expect(config).toMatchObject({ secretsKeyIsDevelopment: false, retryScheduleMs: [100, 2000], timeoutMs: 2500 });
    expect(config.secretsKey.equals(Buffer.alloc(32, 7))).toBe(true);
    expect(webhooks({})).toMatchObject({
      secretsKeyIsDevelopment: true,
      retryScheduleMs: [5000, 300000, 1800000, 7200000, 18000000, 36000000, 36000000],
      concurrency: 16,
      pollIntervalMs: 500,
      disableAfterMs: 5 * 86_400_000,
    });
    expect(webhooks({}).secretsKey).toHaveLength(32);
    expect(() => sut({ NODE_ENV: 'production' })).toThrow(/WEBHOOK_SECRETS_KEY must be set when NODE_ENV is "production"/);
    expect(sut({ NODE_ENV: 'production', WEBHOOK_SECRETS_KEY: key }).env).toBe('production');
    expect(() => sut({ WEBHOOK_SECRETS_KEY: 'c2hvcnQ=' })).toThrow(/WEBHOOK_SECRETS_KEY must be base64 of exactly 32 bytes/);
    expect(() => sut({ WEBHOOK_RETRY_SCHEDULE_MS: '5s,10s' })).toThrow(/WEBHOOK_RETRY_SCHEDULE_MS/);
    // The key itself never appears in an error.
    expect(() => sut({ WEBHOOK_SECRETS_KEY: 'not-a-key-but-a-secret-value' })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('not-a-key-but-a-secret-value') }),
    );
  });

  it('allows loopback webhook targets outside production, and in production only with WEBHOOK_ALLOW_LOOPBACK=true', () => {
    const production = { NODE_ENV: 'production', WEBHOOK_SECRETS_KEY: Buffer.alloc(32, 7).toString('base64') };
    expect(webhooks({}).allowLoopback).toBe(true);
    expect(webhooks({ NODE_ENV: 'test' }).allowLoopback).toBe(true);
    expect(webhooks(production).allowLoopback).toBe(false);
    expect(webhooks({ ...production, WEBHOOK_ALLOW_LOOPBACK: 'true' }).allowLoopback).toBe(true);
    expect(() => sut({ WEBHOOK_ALLOW_LOOPBACK: 'yes' })).toThrow(/WEBHOOK_ALLOW_LOOPBACK/);
  });

  it('keeps deliveries 30 days by default, settable in days', () => {
    const day = 86_400_000;
    expect(webhooks({}).retentionMs).toBe(30 * day);
    expect(webhooks({ WEBHOOK_RETENTION_DAYS: '1' }).retentionMs).toBe(day);
    for (const bad of ['0', '3651', '1.5', '30d']) expect(() => sut({ WEBHOOK_RETENTION_DAYS: bad })).toThrow(/WEBHOOK_RETENTION_DAYS/);
  });

  it('names each bad variable along with core problems', () => {
    expect(() => sut({ WEBHOOK_TIMEOUT_MS: '5', WEBHOOK_CONCURRENCY: '0', API_PORT: 'x' })).toThrow(
      /WEBHOOK_TIMEOUT_MS[\s\S]*WEBHOOK_CONCURRENCY|WEBHOOK_CONCURRENCY[\s\S]*WEBHOOK_TIMEOUT_MS/,
    );
    expect(() => sut({ WEBHOOK_TIMEOUT_MS: '5', API_PORT: 'x' })).toThrow(/API_PORT/);
  });
});
