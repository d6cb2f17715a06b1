import { Biome, PROP_KINDS, PropKind, TimeOfDay } from '../scene-spec';

/**
 * The words the procedural generator understands, as regular-expression alternatives matched on
 * whole words of the lower-cased text. One table serves prompts and edit instructions, so
 * "add boats" means the same boats the prompt "a harbour with boats" would have placed.
 */
// In each list a phrase comes before its own first word ("pine trees" before "pines?"):
// alternation takes the first alternative that matches.
export const BIOME_WORDS: Record<Biome, string> = {
  city: 'city|cities|street|streets|downtown|urban|skyscrapers?|skyline|metropolis|avenue|cyberpunk|neon',
  village: 'village|villages|hamlet|town|towns|cottages?|farmhouses?|settlement',
  ocean: 'ocean|oceans|sea|seas|seaside|beach|beaches|coast|coastal|shore|shoreline|harbou?r|bay|island|tropical|waves|port',
  desert: 'desert|deserts|dunes?|sahara|arid|canyon|mesa|oasis|sandy',
  mountains: 'mountains?|peaks?|alpine|alps|summit|ridges?|cliffs?|highlands?|volcano',
  forest: 'forest|forests|woods|woodland|woodlands|jungle|rainforest|grove',
  snow: 'snow|snowy|winter|wintry|ice|icy|frozen|arctic|tundra|glaciers?|blizzard',
  plains: 'plains?|meadows?|fields?|grassland|prairie|savann?ah?|countryside|farm|farmland|hills',
};

/** When two biomes are mentioned equally often, the more specific setting wins. */
export const BIOME_PRIORITY: Biome[] = ['city', 'village', 'ocean', 'desert', 'mountains', 'forest', 'snow', 'plains'];

export const TIME_WORDS: Record<TimeOfDay, string> = {
  night: 'night|nights|nighttime|midnight|moon|moonlit|moonlight|stars|starry|starlit',
  sunset: 'sunset|dusk|evening|twilight|golden hour|sundown',
  dawn: 'dawn|sunrise|morning|daybreak|first light',
  day: 'day|daytime|daylight|noon|midday|afternoon|sunny',
};

export const FOG_WORDS = 'fog|foggy|mist|misty|haze|hazy|smog';
export const RAIN_WORDS = 'rain|rainy|raining|storm|stormy|drizzle|thunderstorm|downpour';
export const OVERCAST_WORDS = 'cloudy|overcast|gloomy|grey sky|gray sky';
export const SNOWFALL_WORDS = 'snowing|snowfall|snowstorm|blizzard|let it snow|make it snow';
export const SNOW_COVER_WORDS = 'snow|snowy|snowing|snowfall|snowstorm|winter|wintry|icy|frozen|blizzard';
export const AUTUMN_WORDS = 'autumn|autumnal|fall foliage|fall colou?rs';
export const LAKE_WORDS = 'lake|lakes|lakeside|pond|ponds|river|rivers|stream|creek|lagoon|reservoir|water';
export const SEA_WORDS = 'ocean|sea|seaside|beach|coast|coastal|shore|harbou?r|bay|island';

export const PROP_WORDS: Record<PropKind, string> = {
  tree: 'trees?|oaks?|birch(es)?|maples?|orchards?',
  pine: 'pine trees?|fir trees?|pines?|firs?|spruces?|conifers?|evergreens?',
  palm: 'palm trees?|palms?',
  bush: 'bush|bushes|shrubs?|hedges?',
  rock: 'rocks?|rocky|boulders?|stones?',
  cactus: 'cactus|cacti|cactuses',
  building: 'buildings?|skyscrapers?|towers?|offices?|apartments?',
  house: 'houses?|cottages?|cabins?|huts?|homes?|farmhouses?',
  boat: 'boats?|ships?|sailboats?|yachts?|canoes?|fishing|harbou?r',
  snowman: 'snowm[ae]n',
  lamp: 'street lights?|lamp posts?|streetlights?|lampposts?|lamps?|lanterns?',
};

/**
 * The prop kinds a text names, in PROP_KINDS order. Specific names are consumed first, so
 * "pine trees" names pines, not broadleaf trees as well.
 */
export function mentionedPropKinds(text: string): PropKind[] {
  let rest = text;
  const found = new Set<PropKind>();
  for (const kind of ['pine', 'palm', ...PROP_KINDS.filter((k) => k !== 'pine' && k !== 'palm')] as PropKind[]) {
    if (!mentions(rest, PROP_WORDS[kind])) continue;
    found.add(kind);
    rest = rest.replace(wordRegex(PROP_WORDS[kind], 'g'), ' ');
  }
  return PROP_KINDS.filter((k) => found.has(k));
}

/** Words of every "tree-like" kind, for instructions such as "remove the trees". */
export const TREE_KINDS: PropKind[] = ['tree', 'pine', 'palm'];

const cache = new Map<string, RegExp>();

function wordRegex(alternatives: string, flags = ''): RegExp {
  const key = `${flags}:${alternatives}`;
  let re = cache.get(key);
  if (!re) {
    re = new RegExp(`\\b(?:${alternatives})\\b`, flags);
    cache.set(key, re);
  }
  return re;
}

export function mentions(text: string, alternatives: string): boolean {
  return wordRegex(alternatives).test(text);
}

export function countMentions(text: string, alternatives: string): number {
  return text.match(wordRegex(alternatives, 'g'))?.length ?? 0;
}

/** Index of the first mention, or −1. */
export function firstMention(text: string, alternatives: string): number {
  return text.search(wordRegex(alternatives));
}

/** Lower case, accents folded, punctuation kept (edits split clauses on it). */
export function normalizeText(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase();
}
