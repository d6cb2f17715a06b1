import type { ColorScheme, StudioTheme } from '../api/studio-api.types';

export const DEFAULT_THEME: StudioTheme = {
  partnerName: null,
  accentColor: '#4f8cff',
  colorScheme: 'dark',
  helpText: null,
};

/** Fills in docs/embed.md's defaults for anything missing or malformed. */
export function normalizeTheme(theme: Partial<StudioTheme> | null | undefined): StudioTheme {
  const accent =
    typeof theme?.accentColor === 'string' && /^#[0-9a-f]{6}$/i.test(theme.accentColor)
      ? theme.accentColor.toLowerCase()
      : DEFAULT_THEME.accentColor;
  const scheme: ColorScheme = theme?.colorScheme === 'light' ? 'light' : 'dark';
  const name = typeof theme?.partnerName === 'string' && theme.partnerName.trim() !== '' ? theme.partnerName.trim() : null;
  const help = typeof theme?.helpText === 'string' && theme.helpText.trim() !== '' ? theme.helpText : null;
  return { partnerName: name, accentColor: accent, colorScheme: scheme, helpText: help };
}

export type ThemeProperties = Record<'--accent' | '--accent-rgb' | '--accent-contrast' | '--accent-text', string>;

/**
 * The CSS custom properties of a theme. The stylesheet derives every accent shade from these, so
 * one colour themes the whole studio.
 */
export function themeProperties(theme: StudioTheme): ThemeProperties {
  const [r, g, b] = hexToRgb(theme.accentColor);
  return {
    '--accent': theme.accentColor,
    '--accent-rgb': `${r} ${g} ${b}`,
    '--accent-contrast': relativeLuminance(r, g, b) > 0.45 ? '#0b0d12' : '#ffffff',
    // On the light scheme a very light accent would vanish as text; darken it for text use only.
    '--accent-text': accentForText(theme, r, g, b),
  };
}

/**
 * Applies the theme as CSS custom properties on the root (CSSOM writes are allowed under our
 * `style-src 'self'`; style attributes in markup are not).
 */
export function applyTheme(root: HTMLElement, theme: StudioTheme): void {
  document.documentElement.dataset.scheme = theme.colorScheme;
  root.dataset.scheme = theme.colorScheme;
  for (const [name, value] of Object.entries(themeProperties(theme))) root.style.setProperty(name, value);
}

function accentForText(theme: StudioTheme, r: number, g: number, b: number): string {
  const lum = relativeLuminance(r, g, b);
  if (theme.colorScheme === 'light' && lum > 0.35) return `rgb(${Math.round(r * 0.55)} ${Math.round(g * 0.55)} ${Math.round(b * 0.55)})`;
  if (theme.colorScheme === 'dark' && lum < 0.08)
    return `rgb(${Math.round(r + (255 - r) * 0.5)} ${Math.round(g + (255 - g) * 0.5)} ${Math.round(b + (255 - b) * 0.5)})`;
  return theme.accentColor;
}

function hexToRgb(hex: string): [number, number, number] {
  const n = Number.parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

function relativeLuminance(r: number, g: number, b: number): number {
  const lin = (c: number) => {
    const s = c / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}
