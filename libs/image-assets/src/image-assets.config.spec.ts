import { loadConfig } from '@app/core';
import { UPLOADS_CONFIG } from './image-assets.config';

describe('UPLOADS_CONFIG', () => {
  const sut = (overrides: Record<string, string | undefined>) => loadConfig(overrides, {});

  it('reads the upload settings, in milliseconds, with the defaults', () => {
    expect(sut({}).slice(UPLOADS_CONFIG)).toEqual({
      concurrency: 4,
      queueTimeoutMs: 30_000,
      slotsPerOrganization: 2,
      idleTimeoutMs: 10_000,
      bodyTimeoutMs: 120_000,
    });
    expect(sut({ UPLOAD_IDLE_TIMEOUT_SECONDS: '3', UPLOAD_BODY_TIMEOUT_SECONDS: '60' }).slice(UPLOADS_CONFIG)).toMatchObject({
      idleTimeoutMs: 3000,
      bodyTimeoutMs: 60_000,
    });
  });

  it('gives an organization half the slots, rounded up, by default, and never more than there are', () => {
    expect(sut({ UPLOAD_CONCURRENCY: '5' }).slice(UPLOADS_CONFIG).slotsPerOrganization).toBe(3);
    expect(sut({ UPLOAD_CONCURRENCY: '1' }).slice(UPLOADS_CONFIG).slotsPerOrganization).toBe(1);
    expect(sut({ UPLOAD_CONCURRENCY: '4', UPLOAD_SLOTS_PER_ORGANIZATION: '4' }).slice(UPLOADS_CONFIG).slotsPerOrganization).toBe(4);
    expect(sut({ UPLOAD_CONCURRENCY: '2', UPLOAD_SLOTS_PER_ORGANIZATION: '8' }).slice(UPLOADS_CONFIG).slotsPerOrganization).toBe(2);
  });

  it.each([
    ['UPLOAD_CONCURRENCY', '0'],
    ['UPLOAD_CONCURRENCY', '257'],
    ['UPLOAD_QUEUE_TIMEOUT_SECONDS', '601'],
    ['UPLOAD_SLOTS_PER_ORGANIZATION', '65'],
    ['UPLOAD_IDLE_TIMEOUT_SECONDS', '1.5'],
    ['UPLOAD_BODY_TIMEOUT_SECONDS', '3601'],
  ])('stops the process naming %s=%s', (name, value) => {
    expect(() => sut({ [name]: value })).toThrow(new RegExp(`${name} must`));
  });
});
