/** A splat world's loading, for the overlay: the download, then Spark's decoding. */
export interface SplatLoadProgress {
  phase: 'downloading' | 'decoding';
  receivedBytes: number;
  totalBytes: number | null;
  /** From the file's header, as soon as its first bytes are in. */
  splats: number | null;
}

/** The first load's overlay: for a splat world, how much has arrived and how many splats it holds. */
export function splatLoadingText(progress: SplatLoadProgress | null): string {
  if (!progress) return 'Loading the scene…';
  const splats = progress.splats !== null ? ` · ${progress.splats.toLocaleString('en')} splats` : '';
  if (progress.phase === 'decoding') return `Preparing the world${splats}…`;
  const of = progress.totalBytes !== null ? ` of ${megabytes(progress.totalBytes)}` : '';
  return `Loading the world: ${megabytes(progress.receivedBytes)}${of}${splats}`;
}

function megabytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
