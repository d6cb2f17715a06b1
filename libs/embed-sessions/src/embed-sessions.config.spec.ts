import { loadConfig } from '@app/core';
import { EMBED_SESSIONS_CONFIG } from './embed-sessions.config';

describe('EMBED_SESSIONS_CONFIG', () => {
  const sut = (overrides: Record<string, string | undefined>) => loadConfig(overrides, {});
  const day = 86_400_000;

  it('keeps ended sessions 30 days by default, settable in days', () => {
    expect(sut({}).slice(EMBED_SESSIONS_CONFIG)).toEqual({ retentionMs: 30 * day });
    expect(sut({ EMBED_SESSION_RETENTION_DAYS: '7' }).slice(EMBED_SESSIONS_CONFIG)).toEqual({ retentionMs: 7 * day });
    for (const bad of ['0', '3651', '1.5', '30d']) {
      expect(() => sut({ EMBED_SESSION_RETENTION_DAYS: bad })).toThrow(/EMBED_SESSION_RETENTION_DAYS must/);
    }
  });
});
