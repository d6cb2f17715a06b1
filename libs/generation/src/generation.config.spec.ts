import { ConfigError, loadConfig } from '@app/core';
import { PROVIDERS_CONFIG } from './generation.config';

describe('PROVIDERS_CONFIG', () => {
  const sut = (overrides: Record<string, string | undefined>) => loadConfig(overrides, {});

  it('is validated by loadConfig with the rest, and read as the slice', () => {
    expect(sut({}).slice(PROVIDERS_CONFIG)).toEqual({
      worldLabs: { apiKey: null, baseUrl: 'https://api.worldlabs.ai', model: 'marble-1.1', splatResolution: '500k' },
      meshy: { apiKey: null, baseUrl: 'https://api.meshy.ai', aiModel: 'latest', refine: true },
    });
    expect(loadConfig({}, { WORLDLABS_BASE_URL: 'http://127.0.0.1:9/', MESHY_REFINE: 'false' }).slice(PROVIDERS_CONFIG)).toMatchObject({
      worldLabs: { baseUrl: 'http://127.0.0.1:9' },
      meshy: { refine: false },
    });
  });

  it('stops the process naming a bad variable, along with core problems, never echoing a value', () => {
    let error: unknown;
    try {
      sut({ WORLDLABS_SPLAT_RESOLUTION: '2m', MESHY_REFINE: 'yes', API_PORT: 'x', MESHY_API_KEY: 'secret-key-value' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    for (const name of ['WORLDLABS_SPLAT_RESOLUTION', 'MESHY_REFINE', 'API_PORT']) expect(message).toContain(name);
    expect(message).not.toContain('secret-key-value');
  });

  it.each([
    ['worldlabs', 'WORLDLABS_API_KEY'],
    ['meshy', 'MESHY_API_KEY'],
  ])("requires the provider's key for GENERATOR=%s, naming the variable but never a value", (generator, variable) => {
    expect(() => sut({ GENERATOR: generator })).toThrow(new RegExp(`${variable} must be set when GENERATOR is "${generator}"`));
    const config = sut({ GENERATOR: generator, [variable]: 'secret-key-value' });
    expect(config.generation.generator).toBe(generator);
    expect(Object.values(config.slice(PROVIDERS_CONFIG)).some((p) => p.apiKey === 'secret-key-value')).toBe(true);
  });
});
