import { splatDetailText, splatLoadingText } from './splat-progress';

describe(splatLoadingText.name, () => {
  it('shows the bytes received, the size when known, and the splat count once the header is in', () => {
    expect(
      splatLoadingText({ version: 1, level: 'full', phase: 'downloading', receivedBytes: 1024 * 1024, totalBytes: null, splats: null }),
    ).toBe('Loading the world: 1.0 MB');
    expect(
      splatLoadingText({
        version: 1,
        level: 'full',
        phase: 'downloading',
        receivedBytes: 3 * 1024 * 1024,
        totalBytes: 8.5 * 1024 * 1024,
        splats: 500_000,
      }),
    ).toBe('Loading the world: 3.0 MB of 8.5 MB · 500,000 splats');
  });

  it('says when the world is being prepared, and falls back to the plain text for a mesh', () => {
    expect(splatLoadingText({ version: 1, level: 'full', phase: 'decoding', receivedBytes: 1, totalBytes: 1, splats: 200_000 })).toBe(
      'Preparing the world · 200,000 splats…',
    );
    expect(splatLoadingText(null)).toBe('Loading the scene…');
  });
});

describe(splatDetailText.name, () => {
  const full = { version: 1, level: 'full' as const, receivedBytes: 2 * 1024 * 1024, totalBytes: 5 * 1024 * 1024, splats: 500_000 };

  it('says how far the world behind a preview has come, then nothing once it is on screen', () => {
    expect(splatDetailText({ ...full, phase: 'downloading' })).toBe('Preview · loading the full world (500,000 splats): 2.0 MB of 5.0 MB');
    expect(splatDetailText({ ...full, phase: 'decoding' })).toBe('Preview · preparing the full world (500,000 splats)…');
    expect(splatDetailText({ ...full, phase: 'done' })).toBeNull();
  });

  it('says when only the preview could be shown, and nothing about the preview’s own download', () => {
    expect(splatDetailText({ ...full, phase: 'failed' })).toBe('Preview only: the full world could not be loaded.');
    expect(splatDetailText({ ...full, level: 'preview', phase: 'downloading' })).toBeNull();
    expect(splatDetailText(null)).toBeNull();
  });
});
