import { ConfigError, loadConfig } from '@app/core';
import { GENERATION_CONFIG } from './generation.config';

describe('GENERATION_CONFIG', () => {
  const sut = (overrides: Record<string, string | undefined>) => loadConfig(overrides, {});

  it('is validated by loadConfig with the rest, and read as the slice', () => {
    expect(sut({}).slice(GENERATION_CONFIG)).toMatchObject({
      generator: 'procedural',
      attempts: 3,
      backoffMs: 2000,
      providerTimeoutMs: 30_000,
      providerRate: null,
      worldLabs: { apiKey: null, baseUrl: 'https://api.worldlabs.ai', model: 'marble-1.1', splatResolution: '500k' },
      meshy: { apiKey: null, baseUrl: 'https://api.meshy.ai', aiModel: 'latest', refine: true },
    });
    expect(loadConfig({}, { WORLDLABS_BASE_URL: 'http://127.0.0.1:9/', MESHY_REFINE: 'false' }).slice(GENERATION_CONFIG)).toMatchObject({
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
    expect(config.slice(GENERATION_CONFIG).generator).toBe(generator);
    const { worldLabs, meshy } = config.slice(GENERATION_CONFIG);
    expect([worldLabs, meshy].some((p) => p.apiKey === 'secret-key-value')).toBe(true);
  });

  it('requires GENERATION_PROVIDER_URL for GENERATOR=http, naming the variable', () => {
    expect(() => sut({ GENERATOR: 'http' })).toThrow(/GENERATION_PROVIDER_URL must be set when GENERATOR is "http"/);
    expect(sut({ GENERATOR: 'http', GENERATION_PROVIDER_URL: 'http://gen.internal:8080' }).slice(GENERATION_CONFIG)).toMatchObject({
      generator: 'http',
      providerUrl: 'http://gen.internal:8080',
    });
    expect(() => sut({ GENERATOR: 'dall-e' })).toThrow(/GENERATOR must be one of/);
  });

  it('reads GENERATION_PROVIDER_RATE as starts per window', () => {
    expect(sut({ GENERATION_PROVIDER_RATE: '3/60' }).slice(GENERATION_CONFIG).providerRate).toEqual({ starts: 3, windowMs: 60_000 });
    expect(() => sut({ GENERATION_PROVIDER_RATE: '3 per minute' })).toThrow(/GENERATION_PROVIDER_RATE must be <starts>\/<seconds>/);
  });

  it('reads the long-running generation settings', () => {
    expect(sut({}).slice(GENERATION_CONFIG)).toMatchObject({
      deadlineMs: 1_200_000,
      pollIntervalMs: 2000,
      pollMaxMs: 15_000,
      maxArtifactBytes: 256 * 1024 * 1024,
    });
  });

  it('turns procedural splat worlds on only when asked, with a bounded splat count', () => {
    expect(sut({}).slice(GENERATION_CONFIG).proceduralSplats).toBeNull();
    expect(sut({ PROCEDURAL_SPLATS: 'true' }).slice(GENERATION_CONFIG).proceduralSplats).toEqual({ count: 200_000 });
    expect(sut({ PROCEDURAL_SPLATS: 'true', PROCEDURAL_SPLAT_COUNT: '5000' }).slice(GENERATION_CONFIG).proceduralSplats).toEqual({
      count: 5000,
    });
    expect(() => sut({ PROCEDURAL_SPLATS: 'yes' })).toThrow(/PROCEDURAL_SPLATS/);
    expect(() => sut({ PROCEDURAL_SPLAT_COUNT: '10' })).toThrow(/PROCEDURAL_SPLAT_COUNT/);
    expect(() => sut({ PROCEDURAL_SPLAT_COUNT: '5000000' })).toThrow(/PROCEDURAL_SPLAT_COUNT/);
    expect(sut({}).slice(GENERATION_CONFIG).splatPreview).toEqual({ count: 16_000 });
    expect(sut({ SPLAT_PREVIEW_COUNT: '0' }).slice(GENERATION_CONFIG).splatPreview).toBeNull();
    expect(() => sut({ SPLAT_PREVIEW_COUNT: '-1' })).toThrow(/SPLAT_PREVIEW_COUNT/);
  });

  it('requires a provider URL for the http generator', () => {
    expect(() => sut({ GENERATOR: 'http' })).toThrow(/GENERATION_PROVIDER_URL/);
    expect(sut({ GENERATOR: 'http', GENERATION_PROVIDER_URL: 'http://gen.internal:8080' }).slice(GENERATION_CONFIG).providerUrl).toBe(
      'http://gen.internal:8080',
    );
  });
});
