/** What the test hooks read of the frame on screen: its size, brightness and variety. */
export interface CanvasStats {
  width: number;
  height: number;
  meanLuma: number;
  lumaStdDev: number;
  distinctColors: number;
  nonBlank: boolean;
}

/**
 * Reads back a drawn frame's pixels (test builds only: `window.__studio.canvasStats()`), so a
 * browser test can tell a drawn scene from a blank canvas without a screenshot.
 */
export function canvasStats(gl: WebGLRenderingContext | WebGL2RenderingContext): CanvasStats {
  const width = gl.drawingBufferWidth;
  const height = gl.drawingBufferHeight;
  const pixels = new Uint8Array(width * height * 4);
  gl.readPixels(0, 0, width, height, gl.RGBA, gl.UNSIGNED_BYTE, pixels);
  let sum = 0;
  let sumSq = 0;
  const colors = new Set<number>();
  const n = width * height;
  for (let i = 0; i < pixels.length; i += 4) {
    const luma = 0.2126 * pixels[i] + 0.7152 * pixels[i + 1] + 0.0722 * pixels[i + 2];
    sum += luma;
    sumSq += luma * luma;
    if (colors.size < 4096) colors.add(((pixels[i] >> 3) << 10) | ((pixels[i + 1] >> 3) << 5) | (pixels[i + 2] >> 3));
  }
  const mean = n > 0 ? sum / n : 0;
  const stdDev = n > 0 ? Math.sqrt(Math.max(0, sumSq / n - mean * mean)) : 0;
  return { width, height, meanLuma: mean, lumaStdDev: stdDev, distinctColors: colors.size, nonBlank: stdDev > 2 && colors.size > 8 };
}
