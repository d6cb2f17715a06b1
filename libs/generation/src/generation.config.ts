import { defineConfigSlice } from '@app/core';
import { IsIn, IsOptional, IsString, IsUrl, Matches } from 'class-validator';

export const WORLDLABS_SPLAT_RESOLUTIONS = ['100k', '500k', 'full_res'] as const;
export type WorldLabsSplatResolution = (typeof WORLDLABS_SPLAT_RESOLUTIONS)[number];

/**
 * The providers' variables (README, "Environment"). Each property name is the variable's, so a
 * validation failure names exactly the variable an operator must fix.
 */
export class ProviderVariables {
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

/**
 * The generation lib's slice of the configuration: the World Labs and Meshy adapters' settings,
 * validated at boot with the rest (core's `loadConfig`).
 */
export const PROVIDERS_CONFIG = defineConfigSlice({
  name: 'generation providers',
  variables: ProviderVariables,
  defaults: {
    WORLDLABS_API_KEY: undefined,
    WORLDLABS_BASE_URL: 'https://api.worldlabs.ai',
    WORLDLABS_MODEL: 'marble-1.1',
    WORLDLABS_SPLAT_RESOLUTION: '500k',
    MESHY_API_KEY: undefined,
    MESHY_BASE_URL: 'https://api.meshy.ai',
    MESHY_AI_MODEL: 'latest',
    MESHY_REFINE: 'true',
  },
  // A provider's key is checked where it is chosen, so a missing key stops every process at boot
  // with the variable's name instead of failing each generation later.
  check: (v, core) => {
    const needed = KEY_OF[core.GENERATOR as keyof typeof KEY_OF];
    return needed && !v[needed] ? [`${needed} must be set when GENERATOR is "${core.GENERATOR}"`] : [];
  },
  build: (v) => ({
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
