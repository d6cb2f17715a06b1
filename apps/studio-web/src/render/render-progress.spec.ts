import { progressAnnouncement, startAnnouncements } from './render-progress';

describe(progressAnnouncement.name, () => {
  it('says each whole quarter once, when at least 10 s passed since the last word', () => {
    const state = startAnnouncements(0);
    expect(progressAnnouncement(state, 30, 120, 20_000)).toBe('Rendering: 25 % done, frame 30 of 120.');
    expect(progressAnnouncement(state, 31, 120, 40_000)).toBeNull();
    expect(progressAnnouncement(state, 60, 120, 45_000)).toBe('Rendering: 50 % done, frame 60 of 120.');
    expect(progressAnnouncement(state, 90, 120, 60_000)).toBe('Rendering: 75 % done, frame 90 of 120.');
  });

  it('stays quiet on a short render: quarters within 10 s of the start or of each other are skipped', () => {
    const state = startAnnouncements(1000);
    const words = [15, 30, 45, 59].map((done, i) => progressAnnouncement(state, done, 60, 1000 + i * 2000));
    expect(words).toEqual([null, null, null, null]);
  });

  it('skips to the quarter reached after a slow stretch instead of reading out the ones passed', () => {
    const state = startAnnouncements(0);
    expect(progressAnnouncement(state, 80, 100, 30_000)).toBe('Rendering: 75 % done, frame 80 of 100.');
    expect(progressAnnouncement(state, 85, 100, 50_000)).toBeNull();
  });

  it('leaves the last frame to the announcement of the end', () => {
    expect(progressAnnouncement(startAnnouncements(0), 100, 100, 60_000)).toBeNull();
  });
});
