import { EditHistory, structurallyEqual } from './edit-history';

interface Lens {
  focalLengthMm: number;
  fNumber: number;
}

const lens = (focalLengthMm: number, fNumber = 2.8): Lens => ({ focalLengthMm, fNumber });

describe(EditHistory.name, () => {
  let sut: EditHistory<Lens>;

  beforeEach(() => {
    sut = new EditHistory<Lens>({ limit: 3, mergeWindowMs: 500 });
  });

  it('starts with nothing to undo or redo', () => {
    expect(sut.canUndo).toBe(false);
    expect(sut.canRedo).toBe(false);
    expect(sut.undo()).toBeNull();
    expect(sut.redo()).toBeNull();
    expect(sut.undoLabel).toBeNull();
  });

  it('undoes to the state before an edit and redoes to the state after it, newest first', () => {
    sut.record('50 mm', lens(35), lens(50), { at: 0 });
    sut.record('85 mm', lens(50), lens(85), { at: 1000 });
    expect(sut.undoLabel).toBe('85 mm');

    expect(sut.undo()).toEqual({ label: '85 mm', state: lens(50) });
    expect(sut.undo()).toEqual({ label: '50 mm', state: lens(35) });
    expect(sut.undo()).toBeNull();
    expect(sut.redoLabel).toBe('50 mm');

    expect(sut.redo()).toEqual({ label: '50 mm', state: lens(50) });
    expect(sut.redo()).toEqual({ label: '85 mm', state: lens(85) });
    expect(sut.redo()).toBeNull();
  });

  it('drops what was undone when a new edit is made', () => {
    sut.record('50 mm', lens(35), lens(50), { at: 0 });
    sut.undo();
    sut.record('24 mm', lens(35), lens(24), { at: 2000 });
    expect(sut.canRedo).toBe(false);
    expect(sut.size).toEqual({ undo: 1, redo: 0 });
  });

  it('records nothing for an edit that changed nothing', () => {
    expect(sut.record('nothing', lens(35), lens(35))).toBe(false);
    expect(sut.canUndo).toBe(false);
  });

  it('keeps only the newest entries up to its limit', () => {
    for (const [i, mm] of [24, 35, 50, 85].entries()) sut.record(`${mm} mm`, lens(i), lens(mm), { at: i * 1000 });
    expect(sut.size.undo).toBe(3);
    sut.undo();
    sut.undo();
    expect(sut.undo()).toEqual({ label: '35 mm', state: lens(1) });
    expect(sut.undo()).toBeNull();
  });

  it('merges a quick run of edits with the same key into one entry, from the first state to the last', () => {
    sut.record('Aperture f/4', lens(50, 2.8), lens(50, 4), { mergeKey: 'aperture', at: 0 });
    sut.record('Aperture f/5.6', lens(50, 4), lens(50, 5.6), { mergeKey: 'aperture', at: 300 });
    sut.record('Aperture f/8', lens(50, 5.6), lens(50, 8), { mergeKey: 'aperture', at: 600 });
    expect(sut.size.undo).toBe(1);
    expect(sut.undo()).toEqual({ label: 'Aperture f/8', state: lens(50, 2.8) });
    expect(sut.redo()).toEqual({ label: 'Aperture f/8', state: lens(50, 8) });
  });

  it('does not merge across its window, across keys, or without a key', () => {
    sut.record('a', lens(1), lens(2), { mergeKey: 'focal', at: 0 });
    sut.record('b', lens(2), lens(3), { mergeKey: 'focal', at: 501 });
    sut.record('c', lens(3), lens(4), { mergeKey: 'focus', at: 600 });
    expect(sut.size.undo).toBe(3);
    const plain = new EditHistory<Lens>();
    plain.record('a', lens(1), lens(2));
    plain.record('b', lens(2), lens(3));
    expect(plain.size.undo).toBe(2);
  });

  it('removes a merged entry that ends where it began', () => {
    sut.record('51 mm', lens(50), lens(51), { mergeKey: 'focal', at: 0 });
    expect(sut.record('50 mm', lens(51), lens(50), { mergeKey: 'focal', at: 100 })).toBe(true);
    expect(sut.canUndo).toBe(false);
  });

  it('never merges into an entry that was undone and redone, or sealed', () => {
    sut.record('51 mm', lens(50), lens(51), { mergeKey: 'focal', at: 0 });
    sut.undo();
    sut.redo();
    sut.record('52 mm', lens(51), lens(52), { mergeKey: 'focal', at: 100 });
    expect(sut.size.undo).toBe(2);
    sut.seal();
    sut.record('53 mm', lens(52), lens(53), { mergeKey: 'focal', at: 200 });
    expect(sut.size.undo).toBe(3);
  });

  it('after an undo, a new edit with the same key starts its own entry', () => {
    sut.record('a', lens(1), lens(2), { mergeKey: 'focal', at: 0 });
    sut.record('b', lens(2), lens(3), { mergeKey: 'other', at: 10 });
    sut.undo();
    sut.record('c', lens(2), lens(5), { mergeKey: 'focal', at: 20 });
    expect(sut.undo()).toEqual({ label: 'c', state: lens(2) });
    expect(sut.undo()).toEqual({ label: 'a', state: lens(1) });
  });

  it('forgets everything on clear', () => {
    sut.record('a', lens(1), lens(2));
    sut.record('b', lens(2), lens(3));
    sut.undo();
    sut.clear();
    expect(sut.size).toEqual({ undo: 0, redo: 0 });
  });
});

describe(structurallyEqual.name, () => {
  it('compares plain data deeply', () => {
    expect(structurallyEqual({ a: [1, { b: 'x' }] }, { a: [1, { b: 'x' }] })).toBe(true);
    expect(structurallyEqual({ a: [1, 2] }, { a: [1, 3] })).toBe(false);
    expect(structurallyEqual({ a: 1 }, { a: 1, b: undefined })).toBe(false);
    expect(structurallyEqual([1], { 0: 1 })).toBe(false);
    expect(structurallyEqual(null, {})).toBe(false);
  });
});
