import { PropKind, SceneSpec } from '../scene-spec';
import { parseSceneSpec } from '../scene-spec.parser';
import { hexToRgb } from './colors';
import { applyEdit } from './scene-editor';
import { composeScene } from './scene-composer';
import { createHeightField } from './terrain-field';

const base = (prompt = 'a fishing village by the lake with boats') =>
  composeScene({ prompt, seed: 11, sourcePalette: null, backdrop: null });
const count = (spec: SceneSpec, kind: PropKind) => spec.props.filter((p) => p.kind === kind).length;
const distance = (a: number[], b: number[]) => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);

describe(applyEdit.name, () => {
  it('does not change the previous spec', () => {
    const previous = base();
    const before = JSON.stringify(previous);
    applyEdit(previous, 'make it night and remove the boats', 2);
    expect(JSON.stringify(previous)).toBe(before);
  });

  it('records every instruction with the version it produced', () => {
    const v2 = applyEdit(base(), 'make it night', 2);
    const v3 = applyEdit(v2, 'add fog', 3);
    expect(v3.edits).toEqual([
      { version: 2, instruction: 'make it night', changes: ['time:night'] },
      { version: 3, instruction: 'add fog', changes: ['fog:on'] },
    ]);
  });

  it.each(['night', 'sunset', 'dawn'] as const)('relights for "make it %s"', (time) => {
    const previous = base();
    const next = applyEdit(previous, `make it ${time}`, 2);
    expect(next.timeOfDay).toBe(time);
    expect(next.lighting).not.toEqual(previous.lighting);
    expect(next.sky).not.toEqual(previous.sky);
  });

  it('adds and removes fog', () => {
    const foggy = applyEdit(base(), 'add fog', 2);
    expect(foggy.fog).not.toBeNull();
    expect(applyEdit(foggy, 'remove the fog', 3).fog).toBeNull();
    expect(applyEdit(foggy, 'less fog', 3).fog!.far).toBeGreaterThan(foggy.fog!.far);
  });

  it('adds trees, rocks and a given number of lamps', () => {
    const previous = base();
    expect(count(applyEdit(previous, 'more trees', 2), 'tree')).toBeGreaterThan(count(previous, 'tree'));
    expect(count(applyEdit(previous, 'add rocks', 2), 'rock')).toBeGreaterThan(count(previous, 'rock'));
    expect(count(applyEdit(previous, 'add 3 lamps', 2), 'lamp')).toBe(count(previous, 'lamp') + 3);
    expect(count(applyEdit(previous, 'add a snowman', 2), 'snowman')).toBe(1);
  });

  it('removes the boats without draining the lake', () => {
    const previous = base();
    expect(count(previous, 'boat')).toBeGreaterThan(0);
    const next = applyEdit(previous, 'remove the boats', 2);
    expect(count(next, 'boat')).toBe(0);
    expect(next.water).toEqual(previous.water);
    expect(next.edits[0].changes).toEqual([`props:boat-${count(previous, 'boat')}`]);
  });

  it('halves a kind for "fewer", and "remove the trees" takes pines and palms too', () => {
    const forest = base('a forest');
    const fewer = applyEdit(forest, 'fewer trees', 2);
    expect(count(fewer, 'tree')).toBe(Math.floor(count(forest, 'tree') / 2));
    const bare = applyEdit(forest, 'remove the trees', 2);
    expect(count(bare, 'tree') + count(bare, 'pine') + count(bare, 'palm')).toBe(0);
    expect(count(bare, 'rock')).toBe(count(forest, 'rock'));
  });

  it('drains the water, taking the boats with it', () => {
    const next = applyEdit(base(), 'remove water', 2);
    expect(next.water).toBeNull();
    expect(next.terrain.basin).toBeNull();
    expect(count(next, 'boat')).toBe(0);
  });

  it('adds a lake and keeps every land prop dry', () => {
    const previous = base('a quiet meadow');
    expect(previous.water).toBeNull();
    const next = applyEdit(previous, 'add a lake', 2);
    expect(next.water).not.toBeNull();
    const field = createHeightField(next.terrain);
    for (const prop of next.props) expect(field(prop.position[0], prop.position[2])).toBeGreaterThan(next.water!.level);
  });

  it('adds water first when boats are asked for on dry land', () => {
    const next = applyEdit(base('a quiet meadow'), 'add some boats', 2);
    expect(next.water).not.toBeNull();
    expect(count(next, 'boat')).toBeGreaterThan(0);
    expect(next.edits[0].changes).toEqual(expect.arrayContaining(['water:lake']));
  });

  it('covers the scene in snow, and melts it', () => {
    const previous = base('a forest');
    const snowy = applyEdit(previous, 'add snow', 2);
    expect(snowy.terrain.snowCover).toBe(true);
    expect(snowy.terrain.colors.low).not.toBe(previous.terrain.colors.low);
    const falling = applyEdit(previous, 'make it snow', 2);
    expect(falling.weather).toBe('snowfall');
    const melted = applyEdit(snowy, 'melt the snow', 3);
    expect(melted.terrain).toMatchObject({ snowCover: false, colors: previous.terrain.colors });
  });

  it('makes it warmer or colder', () => {
    const previous = base();
    const red = (c: string) => hexToRgb(c)[0];
    const blue = (c: string) => hexToRgb(c)[2];
    expect(red(applyEdit(previous, 'make it warmer', 2).sky.horizon)).toBeGreaterThan(red(previous.sky.horizon));
    expect(blue(applyEdit(previous, 'make it colder', 2).lighting.sun.color)).toBeGreaterThan(blue(previous.lighting.sun.color));
  });

  it('moves the cameras closer to their targets', () => {
    const previous = base();
    const next = applyEdit(previous, 'move the camera closer', 2);
    next.cameras.forEach((camera, i) => {
      expect(distance(camera.position, camera.target)).toBeLessThan(distance(previous.cameras[i].position, previous.cameras[i].target));
    });
  });

  it('zooms by changing the focal length', () => {
    const previous = base();
    expect(applyEdit(previous, 'zoom in', 2).cameras[0].focalLengthMm).toBeGreaterThan(previous.cameras[0].focalLengthMm);
  });

  it('turns the scene into another setting, keeping time of day and backdrop', () => {
    const night = applyEdit(base(), 'make it night', 2);
    const desert = applyEdit(night, 'turn it into a desert', 3);
    expect(desert).toMatchObject({ biome: 'desert', timeOfDay: 'night', prompt: night.prompt });
    expect(count(desert, 'cactus')).toBeGreaterThan(0);
    expect(desert.edits.map((e) => e.version)).toEqual([2, 3]);
  });

  it('applies each clause of a compound instruction', () => {
    const next = applyEdit(base(), 'Make it sunset, add fog and remove the boats.', 2);
    expect(next.timeOfDay).toBe('sunset');
    expect(next.fog).not.toBeNull();
    expect(count(next, 'boat')).toBe(0);
  });

  it('still makes a new version from an instruction it does not understand: recorded, props nudged', () => {
    const previous = base();
    const next = applyEdit(previous, 'more whimsy please', 2);
    expect(next.edits).toEqual([{ version: 2, instruction: 'more whimsy please', changes: [] }]);
    expect(next.props.length).toBe(previous.props.length);
    expect(next.props.map((p) => p.position)).not.toEqual(previous.props.map((p) => p.position));
    expect(next.timeOfDay).toBe(previous.timeOfDay);
  });

  it('is deterministic, and the version seeds the nudges', () => {
    const previous = base();
    expect(JSON.stringify(applyEdit(previous, 'hmm', 2))).toBe(JSON.stringify(applyEdit(previous, 'hmm', 2)));
    expect(applyEdit(previous, 'hmm', 2).props).not.toEqual(applyEdit(previous, 'hmm', 3).props);
  });

  it.each([
    '',
    '   ',
    '!!!',
    'a'.repeat(5000),
    'add 99999 rocks',
    'remove everything',
    'no no no',
    '🌧️ ☃️',
    'zoom in zoom out closer farther',
  ])('never throws and always yields a valid spec for %p', (instruction) => {
    const next = applyEdit(base(), instruction, 2);
    expect(parseSceneSpec(JSON.parse(JSON.stringify(next)))).toEqual(next);
    expect(next.edits).toHaveLength(1);
  });
});
