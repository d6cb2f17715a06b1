import { WorldTransform } from '@scene-studio/world-engine';

/**
 * The pure pieces of the Marble protocol (docs/providers/worldlabs.md): the request fields we
 * derive from ours and the parts of Marble's answers we read. Marble documents several of these
 * loosely (metadata key names, splat resolution keys), so the readers are tolerant by design.
 */

/** Marble's `display_name` limit (characters, as Python counts them: code points). */
export const DISPLAY_NAME_MAX = 64;
/** Marble's `tags` limits: at most ten, each at most 32 characters. */
export const TAG_MAX = 32;
export const TAGS_MAX = 10;

/** Ids Marble hands back that go into our URL paths and persisted state. */
const PROVIDER_ID = /^[A-Za-z0-9._~:-]{1,128}$/;

export function isProviderId(v: unknown): v is string {
  return typeof v === 'string' && PROVIDER_ID.test(v);
}

// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]+/g;

/**
 * A short, readable title for the operator browsing Marble: the prompt's first line, on word
 * boundaries, at most 64 code points, with the version for an edit (`· v3`) so successive
 * regenerations of one scene can be told apart.
 */
export function displayName(prompt: string, version: number): string {
  // Control characters (including line breaks) become spaces: the title is one line.
  const clean = prompt.replace(CONTROL_CHARACTERS, ' ').replace(/\s+/g, ' ').trim();
  const suffix = version > 1 ? ` · v${version}` : '';
  const room = DISPLAY_NAME_MAX - Array.from(suffix).length;
  const base = clean === '' ? 'Scene Studio scene' : clean;
  const chars = Array.from(base);
  if (chars.length <= room) return base + suffix;
  const cut = chars.slice(0, room - 1).join('');
  const atWord = cut.replace(/\s+\S*$/, '');
  // A prompt with no space in its first 63 characters is cut mid-word rather than emptied.
  return `${(atWord.length >= cut.length / 2 ? atWord : cut).trimEnd()}…${suffix}`;
}

/**
 * Tags that let an operator find the world of a scene or an operation with `worlds:list`
 * (Marble has no idempotency key; tags are how a duplicate left by a crash is found). A value
 * over Marble's 32 characters is left out rather than cut: a truncated id would find nothing.
 */
export function worldTags(request: { sceneId: string; idempotencyKey: string }): string[] {
  return ['scene-studio', request.sceneId, request.idempotencyKey].filter((t) => t.length > 0 && t.length <= TAG_MAX).slice(0, TAGS_MAX);
}

/**
 * A running operation's progress, 0 to 1, from `metadata.progress_percentage` (what clients
 * read in practice) or `metadata.progress`, both 0 to 100; null when Marble does not say.
 * The key names are not in Marble's spec, hence the tolerance (numeric strings included).
 */
export function operationProgress(metadata: unknown): number | null {
  if (typeof metadata !== 'object' || metadata === null) return null;
  const m = metadata as Record<string, unknown>;
  for (const raw of [m.progress_percentage, m.progress]) {
    const n = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : raw;
    if (typeof n === 'number' && Number.isFinite(n)) return Math.min(1, Math.max(0, n / 100));
  }
  return null;
}

/**
 * The number of splats a `spz_urls` key stands for: `100k`, `150k`, `500k`, `2m`, `full_res`
 * (about two million per Marble's docs); null for a key we cannot place.
 */
export function splatCount(key: string): number | null {
  if (key === 'full_res') return 2_000_000;
  const m = /^(\d+(?:\.\d+)?)([km]?)$/i.exec(key.trim());
  if (!m) return null;
  const n = Number(m[1]) * ({ '': 1, k: 1_000, m: 1_000_000 } as const)[m[2].toLowerCase() as '' | 'k' | 'm'];
  return n > 0 ? n : null;
}

/**
 * The splat URL to download: the configured resolution when Marble has it, otherwise the
 * nearest available one by splat count on a log scale (500k missing → full_res before 100k,
 * since four times is nearer than a fifth), the smaller on a tie (cheaper to fetch and hold).
 * A key we cannot place is used only when no other is there. Null: no splat at all.
 */
export function pickSplatUrl(spzUrls: Record<string, unknown>, wanted: string): { resolution: string; url: string } | null {
  const entries = Object.entries(spzUrls).filter((e): e is [string, string] => typeof e[1] === 'string' && e[1] !== '');
  const exact = entries.find(([k]) => k === wanted);
  if (exact) return { resolution: exact[0], url: exact[1] };
  const target = splatCount(wanted) ?? 500_000;
  let best: { resolution: string; url: string; distance: number; count: number } | null = null;
  for (const [resolution, url] of entries) {
    const count = splatCount(resolution);
    if (count === null) continue;
    const distance = Math.abs(Math.log(count / target));
    if (!best || distance < best.distance - 1e-9 || (Math.abs(distance - best.distance) <= 1e-9 && count < best.count)) {
      best = { resolution, url, distance, count };
    }
  }
  if (best) return { resolution: best.resolution, url: best.url };
  const [fallback] = entries;
  return fallback ? { resolution: fallback[0], url: fallback[1] } : null;
}

/**
 * Marble's files (SPZ and collider GLB) as the API hands them over are in its raw frame,
 * `marble_raw_opencv`: y down, z forward (docs/providers/worldlabs.md, "Coordinates", quoting
 * World Labs' export specs and "Rendering Marble SPZ files in third-party engines"). The API has
 * no request field to ask for another frame, so the studio converts (a 180° turn about X).
 */
export const MARBLE_FRAME = 'opencv' as const;

/**
 * The world transform of a Marble world: `assets.splats.semantics_metadata` (metric = raw ×
 * `metric_scale_factor`, then `ground_plane_offset` subtracted from y, both in the raw frame)
 * and the raw frame, which the studio turns upright. Always one: the frame is Marble's whatever
 * the metadata says. A value missing, or out of the range our scene view accepts, counts as the
 * identity (1, 0): the world is then shown in raw units rather than failed for an optional hint.
 */
export function worldTransform(semantics: unknown): WorldTransform {
  const s = typeof semantics === 'object' && semantics !== null ? (semantics as Record<string, unknown>) : {};
  const scale = s.metric_scale_factor;
  const offset = s.ground_plane_offset;
  const usableScale = typeof scale === 'number' && Number.isFinite(scale) && scale >= 1e-6 && scale <= 1e6;
  const usableOffset = typeof offset === 'number' && Number.isFinite(offset) && Math.abs(offset) <= 1e6;
  return { metricScale: usableScale ? scale : 1, groundOffset: usableOffset ? offset : 0, frame: MARBLE_FRAME };
}

/** Marble's `extension` and the upload's Content-Type for a source image format. */
export function imageUploadType(format: 'png' | 'jpeg' | 'webp'): { extension: string; contentType: string } {
  switch (format) {
    case 'png':
      return { extension: 'png', contentType: 'image/png' };
    case 'jpeg':
      return { extension: 'jpg', contentType: 'image/jpeg' };
    case 'webp':
      return { extension: 'webp', contentType: 'image/webp' };
  }
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// Printable ASCII and tabs only: no CR/LF (header injection), nothing fetch would refuse.
const HEADER_VALUE = /^[\t\x20-\x7e]*$/;
/** Framing headers fetch sets itself from the URL and the body: a listed value could only disagree. */
const FETCH_MANAGED = new Set(['host', 'content-length', 'transfer-encoding', 'connection']);

/**
 * The headers of a signed upload: every one `required_headers` lists, lower-cased so that its
 * own Content-Type (part of a signature, often) replaces ours rather than doubling it, except
 * the framing ones fetch computes. Null when the list is not a map of safe header strings.
 */
export function uploadHeaders(required: unknown, contentType: string): Record<string, string> | null {
  const headers: Record<string, string> = { 'content-type': contentType };
  if (required === null || required === undefined) return headers;
  if (typeof required !== 'object' || Array.isArray(required)) return null;
  for (const [name, value] of Object.entries(required as Record<string, unknown>)) {
    if (typeof value !== 'string' || !HEADER_NAME.test(name) || !HEADER_VALUE.test(value)) return null;
    if (FETCH_MANAGED.has(name.toLowerCase())) continue;
    headers[name.toLowerCase()] = value;
  }
  return headers;
}

/** A source image's upload name: Marble keeps it (at most 64 characters) and shows it to the operator. */
export function uploadFileName(sceneId: string, version: number, extension: string): string {
  const name = `${sceneId}-v${version}-source.${extension}`;
  return name.length <= 64 ? name : `source.${extension}`;
}

/**
 * What a finished operation says it cost: `cost.total_credits`, a non-negative number; undefined
 * when absent or of another shape (nothing is guessed from provider output).
 */
export function operationCost(operation: unknown): number | undefined {
  const cost = (operation as { cost?: { total_credits?: unknown } } | null)?.cost;
  const credits = cost?.total_credits;
  return typeof credits === 'number' && Number.isFinite(credits) && credits >= 0 ? credits : undefined;
}
