import type { CameraRig } from './camera-rig';
import { fieldOfView } from '../model/lens';

export type GuideId = 'thirds' | 'safe' | 'horizon';

const SVG = 'http://www.w3.org/2000/svg';
/** Action and title safe areas (SMPTE ST 2046-1, EBU R 95): 93 % and 90 % of the frame. */
const ACTION_SAFE = 0.93;
const TITLE_SAFE = 0.9;
/** Within this roll the horizon counts as level (and turns green). */
const LEVEL_DEG = 0.25;

/**
 * Framing guides drawn over the frame (rule of thirds, safe areas, a horizon level from the
 * camera's pitch and roll). An SVG overlay sized to the frame, not part of the WebGL picture:
 * recordings never contain them, which is what a camera operator's monitor overlays do too.
 */
export class FrameGuides {
  readonly element: SVGSVGElement;
  private readonly on = new Set<GuideId>();
  private readonly thirds = group('guide-thirds');
  private readonly safe = group('guide-safe');
  private readonly horizon = group('guide-horizon');
  private readonly horizonLine = svg('line', { class: 'horizon-line' });
  private readonly horizonLabel = svg('text', { class: 'horizon-label' });
  private drawnKey = '';
  private horizonRevision = -1;

  constructor() {
    this.element = svg('svg', { class: 'frame-guides', 'aria-hidden': 'true', 'data-guides': '' }) as SVGSVGElement;
    this.horizon.append(this.horizonLine, this.horizonLabel);
    this.element.append(this.thirds, this.safe, this.horizon);
    this.element.style.display = 'none';
  }

  get enabled(): GuideId[] {
    return [...this.on];
  }

  set(guide: GuideId, enabled: boolean): void {
    if (enabled) this.on.add(guide);
    else this.on.delete(guide);
    this.element.dataset.guides = this.enabled.join(' ');
    this.element.style.display = this.on.size > 0 ? '' : 'none';
    this.drawnKey = '';
  }

  /**
   * Redraws for the frame's current size and the rig's pose; cheap when nothing changed. The
   * thirds and safe areas depend on the size alone; only the horizon follows the camera.
   */
  update(rig: CameraRig): void {
    if (this.on.size === 0) return;
    const frame = this.element.parentElement;
    if (!frame) return;
    const w = frame.clientWidth;
    const h = frame.clientHeight;
    if (w === 0 || h === 0) return;
    const key = `${w}x${h}:${[...this.on].join()}`;
    const resized = key !== this.drawnKey;
    if (resized) {
      this.drawnKey = key;
      this.element.setAttribute('viewBox', `0 0 ${w} ${h}`);
      this.thirds.style.display = this.on.has('thirds') ? '' : 'none';
      this.safe.style.display = this.on.has('safe') ? '' : 'none';
      this.horizon.style.display = this.on.has('horizon') ? '' : 'none';
      if (this.on.has('thirds')) {
        this.thirds.replaceChildren(
          ...[1, 2].map((i) => line((w * i) / 3, 0, (w * i) / 3, h)),
          ...[1, 2].map((i) => line(0, (h * i) / 3, w, (h * i) / 3)),
        );
      }
      if (this.on.has('safe')) {
        this.safe.replaceChildren(rect(w, h, ACTION_SAFE, 'safe-action'), rect(w, h, TITLE_SAFE, 'safe-title'));
      }
    }
    if (this.on.has('horizon') && (resized || rig.revision !== this.horizonRevision)) {
      this.horizonRevision = rig.revision;
      this.drawHorizon(rig, w, h);
    }
  }

  /**
   * Where the world's horizon is in the picture: a pinhole camera pitched by p sees it
   * f·tan(p) from the centre (f in pixels, from the vertical field of view), across the frame
   * and turned by the roll. Looking up moves it down; rolling left tilts it right.
   */
  private drawHorizon(rig: CameraRig, w: number, h: number): void {
    const vfov = (fieldOfView(rig.focalLengthMm, rig.frame).verticalDeg * Math.PI) / 180;
    const focalPx = h / 2 / Math.tan(vfov / 2);
    const offset = Math.max(-h, Math.min(h, focalPx * Math.tan(rig.pitch)));
    const roll = rig.rollDeg;
    const half = Math.hypot(w, h) / 2;
    this.horizon.setAttribute('transform', `translate(${w / 2} ${h / 2}) rotate(${roll.toFixed(3)}) translate(0 ${offset.toFixed(2)})`);
    setAttrs(this.horizonLine, { x1: -half, y1: 0, x2: half, y2: 0 });
    const level = Math.abs(roll) < LEVEL_DEG;
    this.horizon.classList.toggle('is-level', level);
    this.horizonLabel.textContent = level ? 'Level' : `${roll > 0 ? '+' : ''}${roll.toFixed(1)}°`;
    setAttrs(this.horizonLabel, { x: Math.min(w / 2 - 40, 120), y: -6 });
  }
}

function svg(tag: string, attrs: Record<string, string | number>): SVGElement {
  const el = document.createElementNS(SVG, tag);
  setAttrs(el, attrs);
  return el;
}

function setAttrs(el: Element, attrs: Record<string, string | number>): void {
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
}

function group(className: string): SVGGElement {
  return svg('g', { class: className }) as SVGGElement;
}

function line(x1: number, y1: number, x2: number, y2: number): SVGElement {
  return svg('line', { x1, y1, x2, y2 });
}

function rect(w: number, h: number, fraction: number, className: string): SVGElement {
  const inset = (1 - fraction) / 2;
  return svg('rect', { class: className, x: w * inset, y: h * inset, width: w * fraction, height: h * fraction });
}
