import { h } from '../ui/dom';
import type { QualityState } from '../viewport/studio-viewport';

/**
 * The bar over the bottom of the viewport: recording and the focal length, the two controls a
 * camera operator needs at every moment, reachable at the smallest frame the studio allows
 * (640×360) without scrolling the side panel, and the frame rate the viewport draws at. It
 * floats over the letterbox, not the picture's pixels: recordings capture the canvas only.
 */
export class ViewportToolbar {
  readonly element: HTMLElement;
  private readonly fps = h('span', {
    className: 'fps-indicator',
    attrs: { id: 'fps-indicator', title: 'Frames drawn per second while the camera moves' },
    text: '– fps',
  });
  private shownFps = '';
  private shownRatio = '';

  constructor(recordRow: HTMLElement, focalEntry: HTMLElement) {
    this.element = h('div', { className: 'viewport-toolbar', attrs: { role: 'toolbar', 'aria-label': 'Camera', id: 'viewport-toolbar' } }, [
      recordRow,
      focalEntry,
      this.fps,
    ]);
  }

  /** Updated every frame; touches the DOM only when a shown value changes. */
  setQuality(quality: QualityState): void {
    const fps = quality.fps === null ? '– fps' : `${quality.fps} fps`;
    if (fps !== this.shownFps) {
      this.shownFps = fps;
      this.fps.textContent = fps;
    }
    const ratio = quality.pixelRatio.toFixed(2);
    if (ratio !== this.shownRatio) {
      this.shownRatio = ratio;
      const reduced = quality.pixelRatio < quality.maxPixelRatio;
      this.fps.dataset.reduced = String(reduced);
      this.fps.title = reduced
        ? `Frames per second while the camera moves; drawing at ${Math.round((quality.pixelRatio / quality.maxPixelRatio) * 100)} % resolution to keep up`
        : 'Frames per second while the camera moves; full resolution';
    }
  }
}
