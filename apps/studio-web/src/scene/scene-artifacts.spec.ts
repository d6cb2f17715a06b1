import type { SceneArtifactInfo } from '../api/studio-api.types';
import { versionParts } from './scene-artifacts';

const file = (kind: SceneArtifactInfo['kind']): SceneArtifactInfo => ({ kind, contentType: 'x', bytes: 1, sha256: '0'.repeat(64) });

describe(versionParts.name, () => {
  it('draws the mesh when the version has one and no splat', () => {
    expect(versionParts([file('thumbnail'), file('collider'), file('mesh')])).toEqual({
      splat: false,
      splatPreview: false,
      meshes: [{ kind: 'mesh', visible: true }],
    });
  });

  it("draws a splat world's splat and keeps its collider invisible, for picking and framing", () => {
    expect(versionParts([file('splat'), file('collider'), file('panorama')])).toEqual({
      splat: true,
      splatPreview: false,
      meshes: [{ kind: 'collider', visible: false }],
    });
  });

  it('draws a splat together with a mesh', () => {
    expect(versionParts([file('mesh'), file('splat'), file('collider')])).toEqual({
      splat: true,
      splatPreview: false,
      meshes: [
        { kind: 'mesh', visible: true },
        { kind: 'collider', visible: false },
      ],
    });
  });

  it('draws a splat alone, and the collider of a world without a splat', () => {
    expect(versionParts([file('splat')])).toEqual({ splat: true, splatPreview: false, meshes: [] });
    expect(versionParts([file('collider')])).toEqual({ splat: false, splatPreview: false, meshes: [{ kind: 'collider', visible: true }] });
  });

  it("draws a large splat world's preview first when the version has one", () => {
    expect(versionParts([file('splat'), file('splat-preview'), file('collider')])).toEqual({
      splat: true,
      splatPreview: true,
      meshes: [{ kind: 'collider', visible: false }],
    });
    // A preview without its world is never drawn alone.
    expect(versionParts([file('splat-preview'), file('collider')])).toEqual({
      splat: false,
      splatPreview: false,
      meshes: [{ kind: 'collider', visible: true }],
    });
  });

  it('has nothing to draw without a mesh, collider or splat', () => {
    expect(versionParts([file('thumbnail'), file('panorama')])).toBeNull();
    expect(versionParts([])).toBeNull();
  });
});
