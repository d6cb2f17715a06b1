import type { MovePose } from '../model/camera-move';
import { InMemorySavedViewStore, normalizeViewName } from './saved-views';

const pose: MovePose = { position: [1, 2, 3], quaternion: [0, 0, 0, 1], focalLengthMm: 50, focusDistanceM: 4, fNumber: 2.8, rollDeg: 0 };

describe(InMemorySavedViewStore.name, () => {
  it('lists saved views in the order saved, and removes them by id', async () => {
    const sut = new InMemorySavedViewStore();
    const a = await sut.save('Wide', pose);
    const b = await sut.save('Close', { ...pose, focalLengthMm: 85 });
    expect(a.id).not.toBe(b.id);
    expect((await sut.list()).map((v) => v.name)).toEqual(['Wide', 'Close']);
    await sut.remove(a.id);
    expect(await sut.list()).toEqual([b]);
    await sut.remove('view-unknown');
    expect(await sut.list()).toHaveLength(1);
  });

  it('keeps its own copies: changing a returned pose changes nothing stored', async () => {
    const sut = new InMemorySavedViewStore();
    const given = { ...pose, position: [1, 2, 3] as [number, number, number] };
    const saved = await sut.save('Wide', given);
    given.position[0] = 99;
    saved.pose.position[1] = 99;
    expect((await sut.list())[0].pose.position).toEqual([1, 2, 3]);
  });
});

describe(normalizeViewName.name, () => {
  it('trims and folds spaces, and refuses empty or over-long names', () => {
    expect(normalizeViewName('  Over the   lake ')).toBe('Over the lake');
    expect(normalizeViewName('   ')).toBeNull();
    expect(normalizeViewName('x'.repeat(61))).toBeNull();
    expect(normalizeViewName('x'.repeat(60))).toBe('x'.repeat(60));
  });
});
