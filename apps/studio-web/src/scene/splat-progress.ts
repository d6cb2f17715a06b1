/** A splat world's loading, for the overlay: the download, then Spark's decoding. */
export interface SplatLoadProgress {
  /** The scene version whose file this is: a newer one may download while an older one shows. */
  version: number;
  /** The coarse preview drawn first, or the world itself. */
  level: 'preview' | 'full';
  /** `done`: decoded and handed over; `failed`: the world behind a preview could not be loaded. */
  phase: 'downloading' | 'decoding' | 'done' | 'failed';
  receivedBytes: number;
  totalBytes: number | null;
  /** From the file's header, as soon as its first bytes are in. */
  splats: number | null;
}

/** The first load's overlay: for a splat world, how much has arrived and how many splats it holds. */
export function splatLoadingText(progress: SplatLoadProgress | null): string {
  if (!progress) return 'Loading the scene…';
  const splats = progress.splats !== null ? ` · ${progress.splats.toLocaleString('en')} splats` : '';
  if (progress.phase !== 'downloading') return `Preparing the world${splats}…`;
  const of = progress.totalBytes !== null ? ` of ${megabytes(progress.totalBytes)}` : '';
  return `Loading the world: ${megabytes(progress.receivedBytes)}${of}${splats}`;
}

/**
 * Behind a preview already on screen: how far the world itself has come, for the note over the
 * viewport; null once it is on screen.
 */
export function splatDetailText(progress: SplatLoadProgress | null): string | null {
  if (!progress || progress.level !== 'full' || progress.phase === 'done') return null;
  if (progress.phase === 'failed') return 'Preview only: the full world could not be loaded.';
  const splats = progress.splats !== null ? ` (${progress.splats.toLocaleString('en')} splats)` : '';
  if (progress.phase === 'decoding') return `Preview · preparing the full world${splats}…`;
  const of = progress.totalBytes !== null ? ` of ${megabytes(progress.totalBytes)}` : '';
  return `Preview · loading the full world${splats}: ${megabytes(progress.receivedBytes)}${of}`;
}

function megabytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
