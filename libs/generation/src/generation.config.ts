import { defineConfigSlice, toInt } from '@app/core';
import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, IsUrl, Matches, Max, Min } from 'class-validator';

export const GENERATORS = ['procedural', 'http', 'worldlabs', 'meshy'] as const;
export type GeneratorKind = (typeof GENERATORS)[number];

export const WORLDLABS_SPLAT_RESOLUTIONS = ['100k', '500k', 'full_res'] as const;
export type WorldLabsSplatResolution = (typeof WORLDLABS_SPLAT_RESOLUTIONS)[number];

/**
 * The generation variables (README, "Environment"). Each property name is the variable's, so a
 * validation failure names exactly the variable an operator must fix.
 */
export class GenerationVariables {
  @IsIn(GENERATORS)
  GENERATOR: GeneratorKind;

  /** Attempts per generation job before its operation is marked failed. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(20)
  GENERATION_ATTEMPTS: number;

  /** First retry delay; doubles with each attempt. */
  @Transform(toInt)
  @IsInt()
  @Min(10)
  @Max(600_000)
  GENERATION_BACKOFF_MS: number;

  @IsOptional()
  @IsUrl({ protocols: ['http', 'https'], require_tld: false, require_protocol: true })
  GENERATION_PROVIDER_URL?: string;

  @IsOptional()
  @IsString()
  GENERATION_PROVIDER_API_KEY?: string;

  /** Timeout of one request to a provider (a submit, a poll, a download's headers). */
  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(600_000)
  GENERATION_PROVIDER_TIMEOUT_MS: number;

  /** The longest a generation may run at a provider, from its submit to its result, before it fails `provider_timeout`. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(86_400)
  GENERATION_DEADLINE_SECONDS: number;

  /**
   * How often the whole fleet may start a generation, `<starts>/<seconds>` (World Labs allows
   * about `3/60` per account by default); unset: no limit. Work over it waits its turn.
   */
  @IsOptional()
  @Matches(/^[1-9]\d{0,5}\/[1-9]\d{0,5}$/, { message: 'must be <starts>/<seconds>, e.g. 3/60' })
  GENERATION_PROVIDER_RATE?: string;

  /** The first wait between polls of a provider job; it grows by half each poll up to GENERATION_POLL_MAX_MS. */
  @Transform(toInt)
  @IsInt()
  @Min(10)
  @Max(600_000)
  GENERATION_POLL_INTERVAL_MS: number;

  @Transform(toInt)
  @IsInt()
  @Min(10)
  @Max(3_600_000)
  GENERATION_POLL_MAX_MS: number;

  /** The largest file a provider may hand back (a splat, a mesh, an image); larger downloads are cut off and fail the generation. */
  @Transform(toInt)
  @IsInt()
  @Min(1024)
  @Max(1024 * 1024 * 1024)
  GENERATION_MAX_ARTIFACT_BYTES: number;

  /**
   * GENERATOR=procedural: emit each version as a Gaussian-splat world (an SPZ splat sampled from
   * the scene plus its collider mesh) instead of a mesh, the shape World Labs' worlds have, so the
   * splat path runs end to end without a network. `true` or `false`.
   */
  @IsIn(['true', 'false'])
  PROCEDURAL_SPLATS: string;

  /**
   * Splats per procedural splat world (PROCEDURAL_SPLATS=true). SPZ costs ~20 bytes a splat before
   * gzip; the sampler holds every splat as an object while it writes, hence the ceiling.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1000)
  @Max(1_000_000)
  PROCEDURAL_SPLAT_COUNT: number;

  /**
   * Splats in the coarse preview stored beside every splat world of more than twice as many
   * (docs/embed.md, "Splat worlds"): the studio draws it first, so a world is on screen in about
   * a second even where drawing all of it takes many. 0: no previews.
   */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(200_000)
  SPLAT_PREVIEW_COUNT: number;

  /** World Labs' Marble API (GENERATOR=worldlabs). */
  @IsOptional()
  @IsString()
  WORLDLABS_API_KEY?: string;

  @IsUrl({ protocols: ['http', 'https'], require_tld: false, require_protocol: true })
  WORLDLABS_BASE_URL: string;

  /** A model name as Marble spells it, e.g. `marble-1.1`, `marble-1.1-plus` or `marble-1.0-draft`. */
  @Matches(/^[A-Za-z0-9][A-Za-z0-9 ._-]{0,63}$/, { message: 'must be a Marble model name such as marble-1.1' })
  WORLDLABS_MODEL: string;

  @IsIn(WORLDLABS_SPLAT_RESOLUTIONS)
  WORLDLABS_SPLAT_RESOLUTION: WorldLabsSplatResolution;

  /** Meshy's API (GENERATOR=meshy). */
  @IsOptional()
  @IsString()
  MESHY_API_KEY?: string;

  @IsUrl({ protocols: ['http', 'https'], require_tld: false, require_protocol: true })
  MESHY_BASE_URL: string;

  /** Meshy's `ai_model`, passed through: `latest`, `meshy-6`, `meshy-5`. */
  @Matches(/^[a-z0-9][a-z0-9.-]{0,31}$/, { message: 'must be a Meshy model name such as latest or meshy-6' })
  MESHY_AI_MODEL: string;

  /** Whether a text prompt's preview is refined (textured) before it is used: `true` or `false`. */
  @IsIn(['true', 'false'])
  MESHY_REFINE: string;
}

/** A provider's key, required where GENERATOR chooses it. */
const KEY_OF = { worldlabs: 'WORLDLABS_API_KEY', meshy: 'MESHY_API_KEY' } as const;

function providerRate(value: string): { starts: number; windowMs: number } {
  const [starts, seconds] = value.split('/').map(Number);
  return { starts, windowMs: seconds * 1000 };
}

/**
 * The generation lib's slice of the configuration: which generator runs and how (its retries,
 * deadlines, polls and limits; the procedural generator's splats; the splat previews; the World
 * Labs and Meshy adapters), validated at boot with the rest (core's `loadConfig`).
 */
export const GENERATION_CONFIG = defineConfigSlice({
  name: 'generation',
  variables: GenerationVariables,
  defaults: {
    GENERATOR: 'procedural',
    GENERATION_ATTEMPTS: '3',
    GENERATION_BACKOFF_MS: '2000',
    GENERATION_PROVIDER_URL: undefined,
    GENERATION_PROVIDER_API_KEY: undefined,
    GENERATION_PROVIDER_TIMEOUT_MS: '30000',
    GENERATION_DEADLINE_SECONDS: '1200',
    GENERATION_PROVIDER_RATE: undefined,
    GENERATION_POLL_INTERVAL_MS: '2000',
    GENERATION_POLL_MAX_MS: '15000',
    GENERATION_MAX_ARTIFACT_BYTES: String(256 * 1024 * 1024),
    PROCEDURAL_SPLATS: 'false',
    PROCEDURAL_SPLAT_COUNT: '200000',
    SPLAT_PREVIEW_COUNT: '16000',
    WORLDLABS_API_KEY: undefined,
    WORLDLABS_BASE_URL: 'https://api.worldlabs.ai',
    WORLDLABS_MODEL: 'marble-1.1',
    WORLDLABS_SPLAT_RESOLUTION: '500k',
    MESHY_API_KEY: undefined,
    MESHY_BASE_URL: 'https://api.meshy.ai',
    MESHY_AI_MODEL: 'latest',
    MESHY_REFINE: 'true',
  },
  // The chosen provider's key or URL is checked here, so a missing one stops every process at boot
  // with the variable's name instead of failing each generation later.
  check: (v) => {
    if (v.GENERATOR === 'http' && !v.GENERATION_PROVIDER_URL) return ['GENERATION_PROVIDER_URL must be set when GENERATOR is "http"'];
    const needed = KEY_OF[v.GENERATOR as keyof typeof KEY_OF];
    return needed && !v[needed] ? [`${needed} must be set when GENERATOR is "${v.GENERATOR}"`] : [];
  },
  build: (v) => ({
    generator: v.GENERATOR,
    providerUrl: v.GENERATION_PROVIDER_URL || null,
    providerApiKey: v.GENERATION_PROVIDER_API_KEY || null,
    providerTimeoutMs: v.GENERATION_PROVIDER_TIMEOUT_MS,
    attempts: v.GENERATION_ATTEMPTS,
    backoffMs: v.GENERATION_BACKOFF_MS,
    deadlineMs: v.GENERATION_DEADLINE_SECONDS * 1000,
    pollIntervalMs: v.GENERATION_POLL_INTERVAL_MS,
    pollMaxMs: Math.max(v.GENERATION_POLL_INTERVAL_MS, v.GENERATION_POLL_MAX_MS),
    maxArtifactBytes: v.GENERATION_MAX_ARTIFACT_BYTES,
    /** GENERATION_PROVIDER_RATE: at most `starts` generation starts per `windowMs`, fleet-wide; null: no limit. */
    providerRate: v.GENERATION_PROVIDER_RATE ? providerRate(v.GENERATION_PROVIDER_RATE) : null,
    /** Procedural versions as splat worlds of this many splats; null: as meshes. */
    proceduralSplats: v.PROCEDURAL_SPLATS === 'true' ? { count: v.PROCEDURAL_SPLAT_COUNT } : null,
    /** A coarse preview of this many splats beside larger splat worlds; null: none. */
    splatPreview: v.SPLAT_PREVIEW_COUNT > 0 ? { count: v.SPLAT_PREVIEW_COUNT } : null,
    worldLabs: {
      apiKey: v.WORLDLABS_API_KEY || null,
      baseUrl: v.WORLDLABS_BASE_URL.replace(/\/+$/, ''),
      model: v.WORLDLABS_MODEL,
      splatResolution: v.WORLDLABS_SPLAT_RESOLUTION,
    },
    meshy: {
      apiKey: v.MESHY_API_KEY || null,
      baseUrl: v.MESHY_BASE_URL.replace(/\/+$/, ''),
      aiModel: v.MESHY_AI_MODEL,
      refine: v.MESHY_REFINE === 'true',
    },
  }),
});

/** What the generation lib and its consumers (libs/operations) read: `config.slice(GENERATION_CONFIG)`. */
export type GenerationSettings = ReturnType<typeof GENERATION_CONFIG.build>;
