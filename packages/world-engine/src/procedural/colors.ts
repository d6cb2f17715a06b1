import { HexColor } from '../scene-spec';

export type Rgb = [number, number, number];

/** `#rrggbb` → sRGB components in [0, 1]. */
export function hexToRgb(hex: HexColor): Rgb {
  const n = parseInt(hex.slice(1), 16);
  return [((n >> 16) & 0xff) / 255, ((n >> 8) & 0xff) / 255, (n & 0xff) / 255];
}

export function rgbToHex([r, g, b]: Rgb): HexColor {
  const c = (v: number) =>
    Math.round(Math.min(1, Math.max(0, v)) * 255)
      .toString(16)
      .padStart(2, '0');
  return `#${c(r)}${c(g)}${c(b)}`;
}

export function mixHex(a: HexColor, b: HexColor, t: number): HexColor {
  return rgbToHex(mixRgb(hexToRgb(a), hexToRgb(b), t));
}

export function mixRgb(a: Rgb, b: Rgb, t: number): Rgb {
  return [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t];
}

/** glTF wants material and vertex colours in linear space; specs are sRGB like CSS. */
export function srgbToLinear(c: number): number {
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
}

export function hexToLinear(hex: HexColor): Rgb {
  return rgbToLinear(hexToRgb(hex));
}

/** sRGB → linear, clamping to [0, 1] first (mixing and shading may overshoot). */
export function rgbToLinear(c: Rgb): Rgb {
  const clamp = (v: number) => Math.min(1, Math.max(0, v));
  return [srgbToLinear(clamp(c[0])), srgbToLinear(clamp(c[1])), srgbToLinear(clamp(c[2]))];
}

/** Relative luminance of an sRGB colour (Rec. 709 weights on the sRGB values, good enough to sort). */
export function luminance(hex: HexColor): number {
  const [r, g, b] = hexToRgb(hex);
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

export function scaleHex(hex: HexColor, factor: number): HexColor {
  const [r, g, b] = hexToRgb(hex);
  return rgbToHex([r * factor, g * factor, b * factor]);
}
