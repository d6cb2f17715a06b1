import { HexColor, PropKind } from '../scene-spec';
import { scaleHex } from './colors';
import { GeometryBuilder } from './geometry';

/**
 * The role of a part's material. `primary` takes the prop's spec colour; the others are fixed
 * or derived from it, so a prop's look is a pure function of (kind, colour, time of day).
 */
export type PartRole = 'primary' | 'secondary' | 'bark' | 'metal' | 'glow' | 'snow' | 'carrot' | 'coal' | 'sail' | 'glass';

export interface MeshPart {
  role: PartRole;
  geometry: GeometryBuilder;
}

export interface PartMaterial {
  name: string;
  color: HexColor;
  emissive: HexColor | null;
  roughness: number;
  metallic: number;
}

export function partMaterial(role: PartRole, primary: HexColor, night: boolean): PartMaterial {
  switch (role) {
    case 'primary':
      return { name: `paint ${primary}`, color: primary, emissive: null, roughness: 0.85, metallic: 0 };
    case 'secondary': {
      const color = scaleHex(primary, 0.55);
      return { name: `trim ${color}`, color, emissive: null, roughness: 0.8, metallic: 0 };
    }
    case 'bark':
      return { name: 'bark', color: '#5a3d24', emissive: null, roughness: 0.95, metallic: 0 };
    case 'metal':
      return { name: 'metal', color: '#2b2d31', emissive: null, roughness: 0.5, metallic: 0.6 };
    case 'glow':
      return { name: 'lamp glow', color: '#fff1c9', emissive: '#ffd27a', roughness: 0.4, metallic: 0 };
    case 'snow':
      return { name: 'snow', color: '#f4f7fb', emissive: null, roughness: 0.9, metallic: 0 };
    case 'carrot':
      return { name: 'carrot', color: '#e2771f', emissive: null, roughness: 0.8, metallic: 0 };
    case 'coal':
      return { name: 'coal', color: '#1b1b1b', emissive: null, roughness: 0.9, metallic: 0 };
    case 'sail':
      return { name: 'sail', color: '#f2efe6', emissive: null, roughness: 0.9, metallic: 0 };
    case 'glass':
      // Lit windows after dark: the city reads as inhabited.
      return night
        ? { name: 'windows lit', color: '#3a3a30', emissive: '#ffcf70', roughness: 0.3, metallic: 0 }
        : { name: 'windows', color: '#2a3340', emissive: null, roughness: 0.2, metallic: 0.3 };
  }
}

/** Height of a prop at scale 1, in metres (the engine builds in metres, +Y up), for framing it with a camera. */
export const PROP_HEIGHT: Record<PropKind, number> = {
  tree: 4.8,
  pine: 5.4,
  palm: 5.8,
  bush: 1.1,
  rock: 1,
  cactus: 3,
  building: 1,
  house: 5.2,
  boat: 4.2,
  snowman: 3.6,
  lamp: 3.95,
};

/** Ground radius of a prop at scale 1, for spacing props apart. */
export const PROP_RADIUS: Record<PropKind, number> = {
  tree: 1.8,
  pine: 1.5,
  palm: 1.8,
  bush: 0.9,
  rock: 1.1,
  cactus: 1,
  building: 0.6,
  house: 4,
  boat: 2.5,
  snowman: 1,
  lamp: 0.4,
};

/**
 * The parts of a prop at scale 1, standing on y = 0. Low polygon counts on purpose: props are
 * instanced dozens of times and the whole scene should stay in the tens of thousands of triangles.
 */
export function propParts(kind: PropKind): MeshPart[] {
  const g = () => new GeometryBuilder();
  switch (kind) {
    case 'tree':
      return [
        { role: 'bark', geometry: g().cylinder([0, 0, 0], 0.28, 0.2, 2.4, 7) },
        { role: 'primary', geometry: g().sphere([0, 3.2, 0], [1.7, 1.6, 1.7], 9, 6).sphere([0.7, 2.7, 0.4], 1.0, 7, 5) },
      ];
    case 'pine':
      return [
        { role: 'bark', geometry: g().cylinder([0, 0, 0], 0.22, 0.16, 1.3, 6) },
        {
          role: 'primary',
          geometry: g().cylinder([0, 1.0, 0], 1.6, 0, 2.4, 8).cylinder([0, 2.2, 0], 1.2, 0, 2.1, 8).cylinder([0, 3.4, 0], 0.8, 0, 2.0, 8),
        },
      ];
    case 'palm':
      return [
        { role: 'bark', geometry: g().cylinder([0, 0, 0], 0.24, 0.15, 5.2, 6) },
        { role: 'primary', geometry: g().cylinder([0, 4.9, 0], 2.6, 0, 0.9, 7) },
        { role: 'secondary', geometry: g().sphere([0.25, 4.9, 0], 0.22, 5, 4).sphere([-0.2, 4.9, 0.15], 0.22, 5, 4) },
      ];
    case 'bush':
      return [{ role: 'primary', geometry: g().sphere([0, 0.45, 0], [1, 0.75, 1], 8, 5) }];
    case 'rock':
      return [{ role: 'primary', geometry: g().rock([0, 0.3, 0], 1, 0x5eed) }];
    case 'cactus':
      return [
        {
          role: 'primary',
          geometry: g()
            .cylinder([0, 0, 0], 0.35, 0.3, 3, 8)
            .box([0.25, 1.25, -0.18], [0.85, 1.6, 0.18])
            .cylinder([0.85, 1.25, 0], 0.22, 0.2, 1.3, 6)
            .box([-0.8, 1.75, -0.16], [-0.25, 2.05, 0.16])
            .cylinder([-0.8, 1.75, 0], 0.2, 0.18, 0.95, 6),
        },
      ];
    case 'building': {
      // A unit cube standing on y = 0; the prop's scale gives its footprint and height.
      const bands = g();
      for (let y = 0.12; y < 0.95; y += 0.11) bands.box([-0.505, y, -0.505], [0.505, y + 0.045, 0.505]);
      return [
        { role: 'primary', geometry: g().box([-0.5, 0, -0.5], [0.5, 1, 0.5]) },
        { role: 'glass', geometry: bands },
        { role: 'secondary', geometry: g().box([-0.45, 1, -0.45], [0.45, 1.02, 0.45]) },
      ];
    }
    case 'house':
      return [
        { role: 'primary', geometry: g().box([-3, 0, -2.5], [3, 3.2, 2.5]) },
        {
          role: 'secondary',
          geometry: g().polyhedron(
            [
              [-3.3, 3.2, -2.9],
              [3.3, 3.2, -2.9],
              [3.3, 3.2, 2.9],
              [-3.3, 3.2, 2.9],
              [-3.3, 5.2, 0],
              [3.3, 5.2, 0],
            ],
            [
              [0, 1, 2, 3],
              [3, 2, 5, 4],
              [1, 0, 4, 5],
              [0, 3, 4],
              [2, 1, 5],
            ],
          ),
        },
        { role: 'bark', geometry: g().box([-0.55, 0, 2.5], [0.55, 2.1, 2.56]) },
        { role: 'glass', geometry: g().box([1.3, 1.3, 2.5], [2.3, 2.2, 2.55]).box([-2.3, 1.3, 2.5], [-1.3, 2.2, 2.55]) },
      ];
    case 'boat':
      return [
        {
          role: 'primary',
          geometry: g().polyhedron(
            [
              [-0.9, 0.6, -2],
              [0.9, 0.6, -2],
              [0.9, 0.6, 1.4],
              [-0.9, 0.6, 1.4],
              [0, 0.6, 2.6],
              [-0.5, -0.3, -1.8],
              [0.5, -0.3, -1.8],
              [0.5, -0.3, 1.2],
              [-0.5, -0.3, 1.2],
              [0, -0.3, 2.1],
            ],
            [
              [0, 1, 2, 4, 3],
              [5, 6, 7, 9, 8],
              [0, 1, 6, 5],
              [1, 2, 7, 6],
              [2, 4, 9, 7],
              [4, 3, 8, 9],
              [3, 0, 5, 8],
            ],
          ),
        },
        { role: 'bark', geometry: g().cylinder([0, 0.6, 0.2], 0.07, 0.05, 3.6, 5) },
        {
          role: 'sail',
          geometry: g().polyhedron(
            [
              [0, 1.1, 0.35],
              [0, 4.0, 0.35],
              [0, 1.1, 2.1],
              [0.04, 1.1, 0.35],
              [0.04, 4.0, 0.35],
              [0.04, 1.1, 2.1],
            ],
            [
              [0, 1, 2],
              [3, 4, 5],
              [0, 1, 4, 3],
              [1, 2, 5, 4],
              [2, 0, 3, 5],
            ],
          ),
        },
      ];
    case 'snowman':
      return [
        { role: 'snow', geometry: g().sphere([0, 0.8, 0], 0.9, 10, 7).sphere([0, 2.0, 0], 0.62, 9, 6).sphere([0, 2.85, 0], 0.42, 8, 6) },
        {
          role: 'carrot',
          geometry: g().polyhedron(
            [
              [-0.07, 2.8, 0.38],
              [0.07, 2.8, 0.38],
              [0.07, 2.94, 0.38],
              [-0.07, 2.94, 0.38],
              [0, 2.87, 0.85],
            ],
            [
              [0, 1, 2, 3],
              [0, 1, 4],
              [1, 2, 4],
              [2, 3, 4],
              [3, 0, 4],
            ],
          ),
        },
        { role: 'coal', geometry: g().box([-0.2, 2.95, 0.33], [-0.1, 3.05, 0.42]).box([0.1, 2.95, 0.33], [0.2, 3.05, 0.42]) },
        { role: 'primary', geometry: g().cylinder([0, 2.38, 0], 0.55, 0.55, 0.16, 10).cylinder([0, 3.18, 0], 0.3, 0.28, 0.42, 8) },
      ];
    case 'lamp':
      return [
        { role: 'primary', geometry: g().cylinder([0, 0, 0], 0.12, 0.07, 3.6, 6).box([-0.18, 3.55, -0.18], [0.18, 3.62, 0.18]) },
        { role: 'glow', geometry: g().sphere([0, 3.8, 0], 0.22, 7, 5) },
      ];
  }
}
