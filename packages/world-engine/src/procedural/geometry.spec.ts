import { PROP_KINDS, Vec3 } from '../scene-spec';
import { GeometryBuilder, cross, dot, sub } from './geometry';
import { propParts } from './prop-meshes';

/** Checks the invariants glTF and back-face culling rely on, for any geometry. */
function expectWellFormed(g: GeometryBuilder): void {
  expect(g.indices.length % 3).toBe(0);
  expect(g.indices.length).toBeGreaterThan(0);
  for (const i of g.indices) expect(i).toBeLessThan(g.vertexCount);
  for (let v = 0; v < g.vertexCount; v++) {
    expect(Math.hypot(g.normals[v * 3], g.normals[v * 3 + 1], g.normals[v * 3 + 2])).toBeCloseTo(1, 6);
  }
  const p = (i: number): Vec3 => [g.positions[i * 3], g.positions[i * 3 + 1], g.positions[i * 3 + 2]];
  const n = (i: number): Vec3 => [g.normals[i * 3], g.normals[i * 3 + 1], g.normals[i * 3 + 2]];
  for (let t = 0; t < g.indices.length; t += 3) {
    const [a, b, c] = [g.indices[t], g.indices[t + 1], g.indices[t + 2]];
    const face = cross(sub(p(b), p(a)), sub(p(c), p(a)));
    // Not degenerate, and wound counter-clockwise as seen from where the normals point.
    expect(Math.hypot(...face)).toBeGreaterThan(1e-9);
    const normal = [n(a), n(b), n(c)].reduce<Vec3>((s, v) => [s[0] + v[0], s[1] + v[1], s[2] + v[2]], [0, 0, 0]);
    expect(dot(face, normal)).toBeGreaterThan(0);
  }
}

describe(GeometryBuilder.name, () => {
  it('builds a box of 12 outward-facing triangles', () => {
    const sut = new GeometryBuilder().box([-1, 0, -1], [1, 2, 1]);
    expect(sut.indices.length / 3).toBe(12);
    expect(sut.vertexCount).toBe(24);
    expectWellFormed(sut);
    // The top face's normal points up.
    const topVertex = sut.positions.findIndex((_, i) => i % 3 === 1 && sut.positions[i] === 2 && sut.normals[i] === 1);
    expect(topVertex).toBeGreaterThanOrEqual(0);
  });

  it('builds cylinders, cones, spheres, ellipsoids and rocks without degenerate triangles', () => {
    expectWellFormed(new GeometryBuilder().cylinder([0, 0, 0], 1, 0.5, 2, 8));
    expectWellFormed(new GeometryBuilder().cylinder([1, 2, 3], 1, 0, 2, 8));
    expectWellFormed(new GeometryBuilder().sphere([0, 1, 0], 1, 8, 6));
    expectWellFormed(new GeometryBuilder().sphere([0, 1, 0], [2, 1, 0.5], 8, 6));
    expectWellFormed(new GeometryBuilder().rock([0, 0, 0], 1, 3));
  });

  it('points a sphere normal away from its centre', () => {
    const sut = new GeometryBuilder().sphere([0, 5, 0], 2, 8, 6);
    for (let v = 0; v < sut.vertexCount; v++) {
      const out: Vec3 = [sut.positions[v * 3], sut.positions[v * 3 + 1] - 5, sut.positions[v * 3 + 2]];
      expect(dot(out, [sut.normals[v * 3], sut.normals[v * 3 + 1], sut.normals[v * 3 + 2]])).toBeGreaterThan(0);
    }
  });
});

describe(propParts.name, () => {
  it.each(PROP_KINDS)('%s is well-formed and small', (kind) => {
    const parts = propParts(kind);
    expect(parts.length).toBeGreaterThan(0);
    let triangles = 0;
    for (const part of parts) {
      expectWellFormed(part.geometry);
      triangles += part.geometry.indices.length / 3;
    }
    expect(triangles).toBeLessThan(600);
  });

  it.each(PROP_KINDS.filter((k) => k !== 'boat'))('%s stands on the ground', (kind) => {
    const ys = propParts(kind).flatMap((p) => p.geometry.positions.filter((_, i) => i % 3 === 1));
    expect(Math.min(...ys)).toBeLessThanOrEqual(0.05);
    expect(Math.min(...ys)).toBeGreaterThan(-0.5);
  });

  it('gives a boat a hull below the waterline', () => {
    const ys = propParts('boat').flatMap((p) => p.geometry.positions.filter((_, i) => i % 3 === 1));
    expect(Math.min(...ys)).toBeLessThan(0);
  });
});
