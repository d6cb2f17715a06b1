import { Vec3 } from '../scene-spec';
import { Prng } from './prng';

/**
 * Indexed triangle geometry built by hand: positions, unit normals and indices, ready to become
 * glTF accessors. Every triangle is wound counter-clockwise as seen from the side its normals
 * point to (glTF's front face), which `triangle()` enforces instead of trusting each shape's
 * index arithmetic.
 */
export class GeometryBuilder {
  readonly positions: number[] = [];
  readonly normals: number[] = [];
  readonly indices: number[] = [];

  get vertexCount(): number {
    return this.positions.length / 3;
  }

  vertex(p: Vec3, n: Vec3): number {
    const len = Math.hypot(n[0], n[1], n[2]) || 1;
    this.positions.push(p[0], p[1], p[2]);
    this.normals.push(n[0] / len, n[1] / len, n[2] / len);
    return this.vertexCount - 1;
  }

  /** Adds a triangle, flipping it if its winding disagrees with its vertices' normals. */
  triangle(a: number, b: number, c: number): void {
    const p = this.positions;
    const n = this.normals;
    const ux = p[b * 3] - p[a * 3];
    const uy = p[b * 3 + 1] - p[a * 3 + 1];
    const uz = p[b * 3 + 2] - p[a * 3 + 2];
    const vx = p[c * 3] - p[a * 3];
    const vy = p[c * 3 + 1] - p[a * 3 + 1];
    const vz = p[c * 3 + 2] - p[a * 3 + 2];
    const cx = uy * vz - uz * vy;
    const cy = uz * vx - ux * vz;
    const cz = ux * vy - uy * vx;
    const nx = n[a * 3] + n[b * 3] + n[c * 3];
    const ny = n[a * 3 + 1] + n[b * 3 + 1] + n[c * 3 + 1];
    const nz = n[a * 3 + 2] + n[b * 3 + 2] + n[c * 3 + 2];
    if (cx * nx + cy * ny + cz * nz < 0) this.indices.push(a, c, b);
    else this.indices.push(a, b, c);
  }

  /**
   * A convex polyhedron with flat faces. Faces list vertex indices in order around the face
   * (either direction); each face's normal points away from the solid's centre.
   */
  polyhedron(vertices: Vec3[], faces: number[][]): this {
    const centre = average(vertices);
    for (const face of faces) {
      const pts = face.map((i) => vertices[i]);
      let normal = newellNormal(pts);
      const fc = average(pts);
      if (dot(normal, sub(fc, centre)) < 0) normal = [-normal[0], -normal[1], -normal[2]];
      const ids = pts.map((p) => this.vertex(p, normal));
      for (let k = 1; k + 1 < ids.length; k++) this.triangle(ids[0], ids[k], ids[k + 1]);
    }
    return this;
  }

  box(min: Vec3, max: Vec3): this {
    const [x0, y0, z0] = min;
    const [x1, y1, z1] = max;
    const v: Vec3[] = [
      [x0, y0, z0],
      [x1, y0, z0],
      [x1, y0, z1],
      [x0, y0, z1],
      [x0, y1, z0],
      [x1, y1, z0],
      [x1, y1, z1],
      [x0, y1, z1],
    ];
    return this.polyhedron(v, [
      [0, 1, 2, 3],
      [4, 5, 6, 7],
      [0, 1, 5, 4],
      [1, 2, 6, 5],
      [2, 3, 7, 6],
      [3, 0, 4, 7],
    ]);
  }

  /**
   * A capped frustum along +Y from `base`, with smooth sides; `radiusTop` 0 makes a cone whose
   * tip gets one vertex per side so that no triangle is degenerate.
   */
  cylinder(base: Vec3, radiusBottom: number, radiusTop: number, height: number, segments: number): this {
    const [bx, by, bz] = base;
    const slope = (radiusBottom - radiusTop) / height;
    const ring = (r: number, y: number, normalOf: (a: number) => Vec3) => {
      const ids: number[] = [];
      for (let i = 0; i <= segments; i++) {
        const a = (i / segments) * Math.PI * 2;
        ids.push(this.vertex([bx + r * Math.cos(a), y, bz + r * Math.sin(a)], normalOf(a)));
      }
      return ids;
    };
    const side = (a: number): Vec3 => [Math.cos(a), slope, Math.sin(a)];
    const bottom = ring(radiusBottom, by, side);
    if (radiusTop > 0) {
      const top = ring(radiusTop, by + height, side);
      for (let i = 0; i < segments; i++) {
        this.triangle(bottom[i], top[i], bottom[i + 1]);
        this.triangle(bottom[i + 1], top[i], top[i + 1]);
      }
      this.disc([bx, by + height, bz], radiusTop, segments, 1);
    } else {
      for (let i = 0; i < segments; i++) {
        const mid = ((i + 0.5) / segments) * Math.PI * 2;
        const tip = this.vertex([bx, by + height, bz], side(mid));
        this.triangle(bottom[i], tip, bottom[i + 1]);
      }
    }
    this.disc([bx, by, bz], radiusBottom, segments, -1);
    return this;
  }

  /** A flat disc in the XZ plane facing +Y (`facing` 1) or −Y (−1). */
  disc(centre: Vec3, radius: number, segments: number, facing: 1 | -1): this {
    const normal: Vec3 = [0, facing, 0];
    const c = this.vertex(centre, normal);
    const ids: number[] = [];
    for (let i = 0; i <= segments; i++) {
      const a = (i / segments) * Math.PI * 2;
      ids.push(this.vertex([centre[0] + radius * Math.cos(a), centre[1], centre[2] + radius * Math.sin(a)], normal));
    }
    for (let i = 0; i < segments; i++) this.triangle(c, ids[i], ids[i + 1]);
    return this;
  }

  /** A UV sphere (an ellipsoid when `radius` differs per axis) with smooth normals. */
  sphere(centre: Vec3, radius: number | Vec3, widthSegments: number, heightSegments: number): this {
    const [rx, ry, rz] = typeof radius === 'number' ? [radius, radius, radius] : radius;
    const rows: number[][] = [];
    for (let j = 0; j <= heightSegments; j++) {
      const v = (j / heightSegments) * Math.PI;
      const row: number[] = [];
      for (let i = 0; i <= widthSegments; i++) {
        const u = (i / widthSegments) * Math.PI * 2;
        const dir: Vec3 = [Math.sin(v) * Math.cos(u), Math.cos(v), Math.sin(v) * Math.sin(u)];
        const p: Vec3 = [centre[0] + rx * dir[0], centre[1] + ry * dir[1], centre[2] + rz * dir[2]];
        // The normal of an ellipsoid is the direction scaled by the inverse radii.
        row.push(this.vertex(p, [dir[0] / rx, dir[1] / ry, dir[2] / rz]));
      }
      rows.push(row);
    }
    for (let j = 0; j < heightSegments; j++) {
      for (let i = 0; i < widthSegments; i++) {
        const a = rows[j][i];
        const b = rows[j][i + 1];
        const c = rows[j + 1][i];
        const d = rows[j + 1][i + 1];
        if (j !== 0) this.triangle(a, b, c);
        if (j !== heightSegments - 1) this.triangle(b, d, c);
      }
    }
    return this;
  }

  /** A faceted boulder: a coarse sphere with seeded bumps and flat-shaded faces. */
  rock(centre: Vec3, radius: number, seed: number): this {
    const prng = new Prng(seed);
    const W = 7;
    const H = 5;
    const grid: Vec3[][] = [];
    for (let j = 0; j <= H; j++) {
      const v = (j / H) * Math.PI;
      const row: Vec3[] = [];
      for (let i = 0; i < W; i++) {
        const u = (i / W) * Math.PI * 2;
        // One shared point per pole, so the surface stays closed.
        const r = radius * (j === 0 || j === H ? 0.85 : prng.range(0.75, 1.15));
        row.push([centre[0] + r * Math.sin(v) * Math.cos(u), centre[1] + r * Math.cos(v) * 0.8, centre[2] + r * Math.sin(v) * Math.sin(u)]);
      }
      grid.push(row);
    }
    const face = (a: Vec3, b: Vec3, c: Vec3) => {
      const n = cross(sub(b, a), sub(c, a));
      const outward = dot(n, sub(average([a, b, c]), centre)) >= 0 ? n : ([-n[0], -n[1], -n[2]] as Vec3);
      this.triangle(this.vertex(a, outward), this.vertex(b, outward), this.vertex(c, outward));
    };
    for (let j = 0; j < H; j++) {
      for (let i = 0; i < W; i++) {
        const a = grid[j][i];
        const b = grid[j][(i + 1) % W];
        const c = grid[j + 1][i];
        const d = grid[j + 1][(i + 1) % W];
        if (j !== 0) face(a, b, c);
        if (j !== H - 1) face(b, d, c);
      }
    }
    return this;
  }
}

function average(points: Vec3[]): Vec3 {
  const s: Vec3 = [0, 0, 0];
  for (const p of points) {
    s[0] += p[0];
    s[1] += p[1];
    s[2] += p[2];
  }
  return [s[0] / points.length, s[1] / points.length, s[2] / points.length];
}

function newellNormal(points: Vec3[]): Vec3 {
  const n: Vec3 = [0, 0, 0];
  for (let i = 0; i < points.length; i++) {
    const a = points[i];
    const b = points[(i + 1) % points.length];
    n[0] += (a[1] - b[1]) * (a[2] + b[2]);
    n[1] += (a[2] - b[2]) * (a[0] + b[0]);
    n[2] += (a[0] - b[0]) * (a[1] + b[1]);
  }
  return n;
}

export function sub(a: Vec3, b: Vec3): Vec3 {
  return [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
}

export function dot(a: Vec3, b: Vec3): number {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

export function cross(a: Vec3, b: Vec3): Vec3 {
  return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
}

export function normalize(v: Vec3): Vec3 {
  const len = Math.hypot(v[0], v[1], v[2]) || 1;
  return [v[0] / len, v[1] / len, v[2] / len];
}
