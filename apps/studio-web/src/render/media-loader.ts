/** mediabunny's chunk (render/media-encoding.ts), fetched once, on first use. */
export type MediaModule = typeof import('./media-encoding');

let loading: Promise<MediaModule> | null = null;

export function loadMedia(): Promise<MediaModule> {
  loading ??= import('./media-encoding').catch((e: unknown) => {
    // A failed fetch (a flaky network) may succeed on the next try.
    loading = null;
    throw e;
  });
  return loading;
}
