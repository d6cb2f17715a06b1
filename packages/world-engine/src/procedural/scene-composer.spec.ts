import { PropSpec, SceneSpec } from '../scene-spec';
import { parseSceneSpec } from '../scene-spec.parser';
import { luminance } from './colors';
import { restingHeight } from './prop-placement';
import { ComposeInput, TERRAIN_SIZE, composeScene } from './scene-composer';
import { createHeightField } from './terrain-field';

const compose = (prompt: string, extra: Partial<ComposeInput> = {}) =>
  composeScene({ prompt, seed: 7, sourcePalette: null, backdrop: null, ...extra });

const kinds = (spec: SceneSpec) => new Set(spec.props.map((p) => p.kind));
const countOf = (spec: SceneSpec, kind: PropSpec['kind']) => spec.props.filter((p) => p.kind === kind).length;

describe(composeScene.name, () => {
  it('gives a pleasant default for a prompt it does not understand', () => {
    const spec = compose('a cat playing the piano');
    expect(spec).toMatchObject({
      biome: 'plains',
      timeOfDay: 'day',
      weather: 'clear',
      fog: null,
      water: null,
      backdrop: null,
      edits: [],
    });
    expect(spec.props.length).toBeGreaterThan(20);
    expect(kinds(spec)).toEqual(new Set(['tree', 'bush', 'rock']));
  });

  it('produces a spec that its own parser accepts, unchanged', () => {
    const prompts = ['a forest at night', 'a fishing village by the lake in the fog', 'a city street in the rain', 'a beach at sunset'];
    for (const prompt of prompts) {
      const spec = compose(prompt);
      expect(parseSceneSpec(JSON.parse(JSON.stringify(spec)))).toEqual(spec);
    }
  });

  it('is deterministic: the same input gives the same JSON', () => {
    expect(JSON.stringify(compose('snowy mountains at dawn'))).toBe(JSON.stringify(compose('snowy mountains at dawn')));
  });

  it('varies with the seed', () => {
    const a = compose('a forest', { seed: 1 });
    const b = compose('a forest', { seed: 2 });
    expect(a.props[0].position).not.toEqual(b.props[0].position);
    expect(a.terrain.seed).not.toBe(b.terrain.seed);
  });

  it.each([
    ['a dense forest', 'forest', ['tree', 'pine']],
    ['a desert with dunes', 'desert', ['cactus']],
    ['a downtown street', 'city', ['building', 'lamp']],
    ['a beach on the coast', 'ocean', ['palm', 'boat']],
    ['a winter wonderland', 'snow', ['pine', 'snowman']],
    ['alpine peaks', 'mountains', ['pine', 'rock']],
    ['a quiet village', 'village', ['house']],
  ] as const)('%p: a %s with the props it calls for', (prompt, biome, expected) => {
    const spec = compose(prompt);
    expect(spec.biome).toBe(biome);
    for (const kind of expected) expect(kinds(spec)).toContain(kind);
  });

  it('makes the night dark and the day bright', () => {
    const night = compose('a forest at night');
    const day = compose('a forest at noon');
    expect(night.lighting.sun.intensity).toBeLessThan(day.lighting.sun.intensity / 4);
    expect(luminance(night.sky.top)).toBeLessThan(luminance(day.sky.top));
  });

  it('puts a low sun in sunsets and dawns, and a high one at noon', () => {
    expect(compose('a sunset').lighting.sun.direction[1]).toBeLessThan(0.2);
    expect(compose('dawn').lighting.sun.direction[1]).toBeLessThan(0.25);
    expect(compose('noon').lighting.sun.direction[1]).toBeGreaterThan(0.7);
  });

  it('adds fog for fog and mist, and a lighter one for rain', () => {
    const misty = compose('a misty forest');
    const rainy = compose('a rainy forest');
    expect(misty.fog).not.toBeNull();
    expect(rainy.fog).not.toBeNull();
    expect(rainy.fog!.far).toBeGreaterThan(misty.fog!.far);
    expect(misty.fog!.color).toBe(misty.sky.horizon);
  });

  it('carves a lake whose water sits in the basin, with boats on it when asked for', () => {
    const spec = compose('boats on a lake');
    expect(spec.terrain.basin).not.toBeNull();
    expect(spec.water).not.toBeNull();
    const field = createHeightField(spec.terrain);
    const [cx, cz] = spec.terrain.basin!.center;
    expect(field(cx, cz)).toBeLessThan(spec.water!.level);
    expect(countOf(spec, 'boat')).toBeGreaterThan(0);
    for (const boat of spec.props.filter((p) => p.kind === 'boat')) expect(boat.position[1]).toBe(spec.water!.level);
  });

  it('stands every prop on the ground, inside the terrain, none under water', () => {
    for (const prompt of ['a village by the lake', 'a beach', 'snowy mountains', 'a city']) {
      const spec = compose(prompt);
      const ground = { terrain: spec.terrain, water: spec.water, field: createHeightField(spec.terrain) };
      for (const prop of spec.props) {
        expect(Math.abs(prop.position[0])).toBeLessThan(TERRAIN_SIZE / 2);
        expect(Math.abs(prop.position[2])).toBeLessThan(TERRAIN_SIZE / 2);
        const y = restingHeight(prop, ground);
        expect(y).not.toBeNull();
        expect(prop.position[1]).toBeCloseTo(y!, 2);
      }
    }
  });

  it('offers at least three named camera presets, all above ground, with distinct ids', () => {
    const spec = compose('alpine peaks');
    const field = createHeightField(spec.terrain);
    expect(spec.cameras.map((c) => c.name)).toEqual(['Wide establishing', 'Hero', 'Low angle', 'Top down']);
    expect(new Set(spec.cameras.map((c) => c.id)).size).toBe(spec.cameras.length);
    for (const camera of spec.cameras) {
      expect(camera.position[1]).toBeGreaterThan(field(camera.position[0], camera.position[2]));
      expect(camera.focalLengthMm).toBeGreaterThan(10);
    }
  });

  it('aims the hero camera at the focal prop', () => {
    const spec = compose('a snowman in the snow');
    const hero = spec.cameras.find((c) => c.id === 'hero')!;
    const focal = spec.props[0];
    expect(focal.kind).toBe('snowman');
    expect(hero.target[0]).toBeCloseTo(focal.position[0], 2);
    expect(hero.target[2]).toBeCloseTo(focal.position[2], 2);
  });

  it('applies a source palette to the palette, the terrain and the props, and adds a backdrop', () => {
    const sourcePalette = ['#ff00ff', '#800080'];
    const plain = compose('a forest');
    const tinted = compose('a forest', { sourcePalette, backdrop: { sourceSha256: 'f'.repeat(64), aspect: 16 / 9 } });
    expect(tinted.palette).toEqual(sourcePalette);
    expect(tinted.terrain.colors.low).not.toBe(plain.terrain.colors.low);
    expect(tinted.props[0].color).not.toBe(plain.props[0].color);
    expect(tinted.backdrop).toMatchObject({ sourceSha256: 'f'.repeat(64) });
    expect(tinted.backdrop!.width / tinted.backdrop!.height).toBeCloseTo(16 / 9, 2);
    expect(tinted.backdrop!.position[2]).toBeLessThan(-TERRAIN_SIZE / 2);
  });

  it('keeps the prompt as given', () => {
    expect(compose('  Ünïcode 🌲 prompt  ').prompt).toBe('  Ünïcode 🌲 prompt  ');
  });
});
