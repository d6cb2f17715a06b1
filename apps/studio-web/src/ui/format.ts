/** A file's size as the studio shows it: B, KB, MB or GB (binary units, one decimal from MB). */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 ** 2) return `${(bytes / 1024).toFixed(0)} KB`;
  if (bytes < 1024 ** 3) return `${(bytes / 1024 ** 2).toFixed(1)} MB`;
  return `${(bytes / 1024 ** 3).toFixed(1)} GB`;
}

/**
 * Milliseconds as seconds to `digits` (0 to 3) decimals: "1.5 s", "1.50 s". Rounded on the
 * milliseconds, so a half rounds up (1150 ms is "1.2 s") where `toFixed` on seconds would take
 * the binary fraction just below it.
 */
export function formatSeconds(ms: number, digits: number): string {
  return `${(Math.round(ms / 10 ** (3 - digits)) / 10 ** digits).toFixed(digits)} s`;
}
