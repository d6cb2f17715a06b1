import { loadConfig } from '@app/core';
import { STUDIO_CONFIG } from './studio.config';

describe('STUDIO_CONFIG', () => {
  const sut = (overrides: Record<string, string | undefined>) => loadConfig(overrides, {});

  it('reads the studio limits, the documented numbers by default', () => {
    expect(sut({}).slice(STUDIO_CONFIG)).toEqual({
      editsPerHour: 30,
      writesPerMinute: 120,
      eventStreams: 5,
      eventsSweepSeconds: 30,
      writes: { perSession: 1, perProcess: 3 },
      reads: { perSession: 8, perProcess: 32 },
    });
    expect(
      sut({
        STUDIO_EDITS_PER_HOUR: '3',
        STUDIO_WRITES_PER_MINUTE: '7',
        STUDIO_EVENT_STREAMS_PER_SESSION: '2',
        STUDIO_CONCURRENT_WRITES_PER_SESSION: '1',
        STUDIO_CONCURRENT_WRITES: '3',
        STUDIO_CONCURRENT_READS_PER_SESSION: '4',
        STUDIO_CONCURRENT_READS: '9',
        STUDIO_EVENTS_SWEEP_SECONDS: '1',
      }).slice(STUDIO_CONFIG),
    ).toEqual({
      editsPerHour: 3,
      writesPerMinute: 7,
      eventStreams: 2,
      eventsSweepSeconds: 1,
      writes: { perSession: 1, perProcess: 3 },
      reads: { perSession: 4, perProcess: 9 },
    });
  });

  it('refuses a share per session larger than the whole process', () => {
    expect(() => sut({ STUDIO_CONCURRENT_WRITES_PER_SESSION: '4' })).toThrow(
      /STUDIO_CONCURRENT_WRITES_PER_SESSION must not exceed STUDIO_CONCURRENT_WRITES/,
    );
    expect(() => sut({ STUDIO_CONCURRENT_READS_PER_SESSION: '40' })).toThrow(
      /STUDIO_CONCURRENT_READS_PER_SESSION must not exceed STUDIO_CONCURRENT_READS/,
    );
  });

  it.each([
    'STUDIO_EDITS_PER_HOUR',
    'STUDIO_WRITES_PER_MINUTE',
    'STUDIO_EVENT_STREAMS_PER_SESSION',
    'STUDIO_CONCURRENT_WRITES_PER_SESSION',
    'STUDIO_CONCURRENT_WRITES',
    'STUDIO_CONCURRENT_READS_PER_SESSION',
    'STUDIO_CONCURRENT_READS',
    'STUDIO_EVENTS_SWEEP_SECONDS',
  ])('stops the process naming %s', (name) => {
    expect(() => sut({ [name]: '0' })).toThrow(new RegExp(`${name} must`));
  });
});
