import { loadMedia } from './media-loader';

/**
 * A finished take's WebM, rewritten without re-encoding so that it carries its Duration and Cues
 * (MediaRecorder writes neither: players cannot show its length or seek in it). Whatever goes
 * wrong — the chunk does not load, the file cannot be read, `budgetMs` passes — the original is
 * returned: a take is never lost to make it nicer.
 */
export async function seekableTake(video: Blob, budgetMs: number): Promise<Blob> {
  const controller = new AbortController();
  const remux = loadMedia().then((media) => media.remuxWebm(video, controller.signal));
  remux.catch(() => undefined);
  let timer: number | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = window.setTimeout(() => {
      controller.abort();
      reject(new Error('The take took too long to rewrite.'));
    }, budgetMs);
  });
  try {
    return await Promise.race([remux, late]);
  } catch {
    return video;
  } finally {
    window.clearTimeout(timer);
  }
}

/** Fetches the encoder's chunk ahead of need (a take started: its end will want it at once). */
export function prepareTakeRemux(): void {
  void loadMedia().catch(() => undefined);
}
