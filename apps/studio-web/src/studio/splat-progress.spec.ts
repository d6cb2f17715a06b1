import { splatLoadingText } from './splat-progress';

describe(splatLoadingText.name, () => {
  it('shows the bytes received, the size when known, and the splat count once the header is in', () => {
    expect(splatLoadingText({ phase: 'downloading', receivedBytes: 1024 * 1024, totalBytes: null, splats: null })).toBe(
      'Loading the world: 1.0 MB',
    );
    expect(splatLoadingText({ phase: 'downloading', receivedBytes: 3 * 1024 * 1024, totalBytes: 8.5 * 1024 * 1024, splats: 500_000 })).toBe(
      'Loading the world: 3.0 MB of 8.5 MB · 500,000 splats',
    );
  });

  it('says when the world is being prepared, and falls back to the plain text for a mesh', () => {
    expect(splatLoadingText({ phase: 'decoding', receivedBytes: 1, totalBytes: 1, splats: 200_000 })).toBe(
      'Preparing the world · 200,000 splats…',
    );
    expect(splatLoadingText(null)).toBe('Loading the scene…');
  });
});
