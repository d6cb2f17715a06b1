import { analysePrompt } from './prompt-traits';

describe(analysePrompt.name, () => {
  it.each([
    ['a quiet forest path', 'forest'],
    ['deep in the woods', 'forest'],
    ['endless sand dunes', 'desert'],
    ['a neon downtown street', 'city'],
    ['waves on a sandy beach', 'ocean'],
    ['the rocky coast of Maine', 'ocean'],
    ['a frozen winter landscape', 'snow'],
    ['alpine peaks', 'mountains'],
    ['a wildflower meadow', 'plains'],
    ['a sleepy village', 'village'],
    ['a cat playing the piano', 'plains'],
    ['', 'plains'],
  ])('%p is %s', (prompt, biome) => {
    expect(analysePrompt(prompt).biome).toBe(biome);
  });

  it('lets the more specific setting win a tie: a village in the mountains is a village', () => {
    expect(analysePrompt('a village in the mountains').biome).toBe('village');
  });

  it('counts mentions: two city words beat one forest word', () => {
    expect(analysePrompt('city streets next to a forest').biome).toBe('city');
  });

  it('treats snow as a cover when another setting is named', () => {
    expect(analysePrompt('snowy mountains')).toMatchObject({ biome: 'mountains', snowCover: true });
    expect(analysePrompt('a snowy field')).toMatchObject({ biome: 'plains', snowCover: true });
    expect(analysePrompt('a forest')).toMatchObject({ snowCover: false });
  });

  it.each([
    ['a city at midnight', 'night'],
    ['moonlit lake', 'night'],
    ['beach at dusk', 'sunset'],
    ['golden hour in the hills', 'sunset'],
    ['mountains at sunrise', 'dawn'],
    ['a sunny afternoon', 'day'],
    ['a forest', 'day'],
  ])('%p happens at %s', (prompt, time) => {
    expect(analysePrompt(prompt).timeOfDay).toBe(time);
  });

  it('takes the first specific time when several are named', () => {
    expect(analysePrompt('from dawn until night').timeOfDay).toBe('dawn');
  });

  it('reads weather and fog', () => {
    expect(analysePrompt('a misty forest')).toMatchObject({ fog: true, weather: 'clear' });
    expect(analysePrompt('a rainy street')).toMatchObject({ fog: false, weather: 'rain' });
    expect(analysePrompt('a blizzard in the mountains')).toMatchObject({ weather: 'snowfall', snowCover: true });
    expect(analysePrompt('an overcast meadow')).toMatchObject({ weather: 'overcast' });
  });

  it('finds water: the sea for ocean scenes, a lake for lakes, rivers and boats', () => {
    expect(analysePrompt('a beach').water).toBe('sea');
    expect(analysePrompt('a cabin by the lake').water).toBe('lake');
    expect(analysePrompt('a river in the forest').water).toBe('lake');
    expect(analysePrompt('a village with fishing boats').water).toBe('lake');
    expect(analysePrompt('a desert').water).toBeNull();
  });

  it('lists the prop kinds the prompt names', () => {
    expect(analysePrompt('a snowman next to pine trees and a few rocks').props).toEqual(['pine', 'rock', 'snowman']);
    expect(analysePrompt('street lamps and old houses').props).toEqual(['house', 'lamp']);
  });

  it('is not fooled by words that merely contain a keyword', () => {
    const traits = analysePrompt('a seasoned snowboarder on a treetop');
    expect(traits.biome).toBe('plains');
    expect(traits.props).toEqual([]);
  });

  it('ignores case and accents', () => {
    expect(analysePrompt('FORÊT at NÎGHT')).toMatchObject({ timeOfDay: 'night' });
    expect(analysePrompt('A DESERT')).toMatchObject({ biome: 'desert' });
  });
});
