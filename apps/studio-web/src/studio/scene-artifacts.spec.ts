import type { SceneArtifactInfo } from '../api/studio-api.types';
import { meshToShow } from './scene-artifacts';

const file = (kind: SceneArtifactInfo['kind']): SceneArtifactInfo => ({ kind, contentType: 'x', bytes: 1, sha256: '0'.repeat(64) });

describe(meshToShow.name, () => {
  it('draws the mesh when the version has one', () => {
    expect(meshToShow([file('thumbnail'), file('collider'), file('mesh')])).toBe('mesh');
  });

  it("draws a splat world's collider until its splat can be drawn", () => {
    expect(meshToShow([file('splat'), file('collider'), file('panorama')])).toBe('collider');
  });

  it('has nothing to draw for a splat alone', () => {
    expect(meshToShow([file('splat')])).toBeNull();
    expect(meshToShow([])).toBeNull();
  });
});
