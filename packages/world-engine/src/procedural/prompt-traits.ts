import { Biome, PropKind, TIMES_OF_DAY, TimeOfDay, Weather } from '../scene-spec';
import {
  AUTUMN_WORDS,
  BIOME_PRIORITY,
  BIOME_WORDS,
  FOG_WORDS,
  LAKE_WORDS,
  OVERCAST_WORDS,
  RAIN_WORDS,
  SEA_WORDS,
  SNOWFALL_WORDS,
  SNOW_COVER_WORDS,
  TIME_WORDS,
  countMentions,
  firstMention,
  mentionedPropKinds,
  mentions,
  normalizeText,
} from './vocabulary';

/** What a prompt asks for, as far as keywords tell. Unmentioned things get pleasant defaults. */
export interface PromptTraits {
  biome: Biome;
  timeOfDay: TimeOfDay;
  weather: Weather;
  fog: boolean;
  snowCover: boolean;
  autumn: boolean;
  water: 'sea' | 'lake' | null;
  /** Prop kinds the prompt names explicitly ("with boats", "a snowman"). */
  props: PropKind[];
}

export function analysePrompt(prompt: string): PromptTraits {
  const text = normalizeText(prompt);
  const biome = pickBiome(text);
  const props = mentionedPropKinds(text);
  let water: PromptTraits['water'] = null;
  if (biome === 'ocean') water = 'sea';
  else if (mentions(text, LAKE_WORDS) || mentions(text, SEA_WORDS) || props.includes('boat')) water = 'lake';

  let weather: Weather = 'clear';
  if (mentions(text, SNOWFALL_WORDS)) weather = 'snowfall';
  else if (mentions(text, RAIN_WORDS)) weather = 'rain';
  else if (mentions(text, OVERCAST_WORDS)) weather = 'overcast';

  return {
    biome,
    timeOfDay: pickTime(text),
    weather,
    fog: mentions(text, FOG_WORDS),
    snowCover: biome === 'snow' || mentions(text, SNOW_COVER_WORDS),
    autumn: mentions(text, AUTUMN_WORDS),
    water,
    props,
  };
}

/**
 * The biome named most often; ties go to the more specific setting ("a village by the lake in
 * the mountains" is a village). Snow words only decide the biome when nothing else is named:
 * "snowy mountains" are mountains under snow.
 */
function pickBiome(text: string): Biome {
  let best: Biome | null = null;
  let bestScore = 0;
  for (const biome of BIOME_PRIORITY) {
    if (biome === 'snow') continue;
    const score = countMentions(text, BIOME_WORDS[biome]);
    if (score > bestScore) {
      best = biome;
      bestScore = score;
    }
  }
  if (best) return best;
  if (mentions(text, BIOME_WORDS.snow)) return 'snow';
  return 'plains';
}

/** The earliest specific time named (night, sunset, dawn) wins over a generic "day". */
function pickTime(text: string): TimeOfDay {
  let best: TimeOfDay | null = null;
  let bestAt = Infinity;
  for (const time of TIMES_OF_DAY) {
    if (time === 'day') continue;
    const at = firstMention(text, TIME_WORDS[time]);
    if (at >= 0 && at < bestAt) {
      best = time;
      bestAt = at;
    }
  }
  return best ?? 'day';
}

/** Every time of day named in a text, for edits ("make it night"). */
export function timeMentioned(text: string): TimeOfDay | null {
  const specific = pickTime(text);
  if (specific !== 'day') return specific;
  return mentions(text, TIME_WORDS.day) ? 'day' : null;
}

export function biomeMentioned(text: string): Biome | null {
  for (const biome of BIOME_PRIORITY) if (mentions(text, BIOME_WORDS[biome])) return biome;
  return null;
}
