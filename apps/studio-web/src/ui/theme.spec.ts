import type { StudioTheme } from '../api/studio-api.types';
import { DEFAULT_THEME, normalizeTheme, themeProperties } from './theme';

const theme = (overrides: Partial<StudioTheme>): StudioTheme => ({ ...DEFAULT_THEME, ...overrides });

describe(normalizeTheme.name, () => {
  it('gives docs/embed.md defaults for a missing theme', () => {
    expect(normalizeTheme(null)).toEqual(DEFAULT_THEME);
    expect(normalizeTheme(undefined)).toEqual(DEFAULT_THEME);
    expect(normalizeTheme({})).toEqual({ partnerName: null, accentColor: '#4f8cff', colorScheme: 'dark', helpText: null });
  });

  it('keeps a six-digit hex accent, lower-cased', () => {
    expect(normalizeTheme({ accentColor: '#FF6600' }).accentColor).toBe('#ff6600');
  });

  it.each(['#f60', 'ff6600', '#ff660', '#ff66001', '#gg6600', 'orange', 'rgb(255 102 0)', '', ' #ff6600'])(
    'falls back to the default accent for %p',
    (accentColor) => {
      expect(normalizeTheme({ accentColor }).accentColor).toBe(DEFAULT_THEME.accentColor);
    },
  );

  it('falls back to the default accent for a value that is not a string', () => {
    const notAString = { accentColor: 0xff6600 } as unknown as Partial<StudioTheme>;
    expect(normalizeTheme(notAString).accentColor).toBe(DEFAULT_THEME.accentColor);
  });

  it('takes the light scheme only when asked for exactly, dark otherwise', () => {
    expect(normalizeTheme({ colorScheme: 'light' }).colorScheme).toBe('light');
    expect(normalizeTheme({ colorScheme: 'dark' }).colorScheme).toBe('dark');
    expect(normalizeTheme({ colorScheme: 'Light' as StudioTheme['colorScheme'] }).colorScheme).toBe('dark');
  });

  it('trims the partner name and drops a blank one', () => {
    expect(normalizeTheme({ partnerName: '  Acme  ' }).partnerName).toBe('Acme');
    expect(normalizeTheme({ partnerName: '   ' }).partnerName).toBeNull();
  });

  it('keeps help text as written (line breaks are shown) and drops a blank one', () => {
    expect(normalizeTheme({ helpText: ' Line one\nLine two ' }).helpText).toBe(' Line one\nLine two ');
    expect(normalizeTheme({ helpText: '\n \t' }).helpText).toBeNull();
  });
});

describe(themeProperties.name, () => {
  it('exposes the accent and its channels for the stylesheet to derive shades from', () => {
    const props = themeProperties(theme({ accentColor: '#ff6600' }));
    expect(props['--accent']).toBe('#ff6600');
    expect(props['--accent-rgb']).toBe('255 102 0');
  });

  it('puts dark text on a light accent and white text on a dark one', () => {
    expect(themeProperties(theme({ accentColor: '#ffff00' }))['--accent-contrast']).toBe('#0b0d12');
    expect(themeProperties(theme({ accentColor: '#ffffff' }))['--accent-contrast']).toBe('#0b0d12');
    expect(themeProperties(theme({ accentColor: '#000080' }))['--accent-contrast']).toBe('#ffffff');
    // The default blue's relative luminance is about 0.28: white reads better on it.
    expect(themeProperties(DEFAULT_THEME)['--accent-contrast']).toBe('#ffffff');
  });

  it('switches the contrast colour at a relative luminance of 0.45', () => {
    // Greys either side of the line: #b2b2b2 is about 0.445, #b3b3b3 about 0.451.
    expect(themeProperties(theme({ accentColor: '#b2b2b2' }))['--accent-contrast']).toBe('#ffffff');
    expect(themeProperties(theme({ accentColor: '#b3b3b3' }))['--accent-contrast']).toBe('#0b0d12');
  });

  it('darkens a light accent for text on the light scheme, so it stays readable', () => {
    const props = themeProperties(theme({ accentColor: '#ffff00', colorScheme: 'light' }));
    expect(props['--accent-text']).toBe('rgb(140 140 0)');
    expect(props['--accent']).toBe('#ffff00');
  });

  it('lightens a very dark accent for text on the dark scheme', () => {
    expect(themeProperties(theme({ accentColor: '#000080', colorScheme: 'dark' }))['--accent-text']).toBe('rgb(128 128 192)');
  });

  it('uses the accent itself as text colour when it already reads well', () => {
    expect(themeProperties(theme({ accentColor: '#ffff00', colorScheme: 'dark' }))['--accent-text']).toBe('#ffff00');
    expect(themeProperties(theme({ accentColor: '#000080', colorScheme: 'light' }))['--accent-text']).toBe('#000080');
    expect(themeProperties(DEFAULT_THEME)['--accent-text']).toBe('#4f8cff');
  });
});
