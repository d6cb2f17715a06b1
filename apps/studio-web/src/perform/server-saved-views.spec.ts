import { StudioApiError } from '../api/studio-api.client';
import type { MovePose } from '../model/camera-move';
import { frameFormat } from '../model/lens';
import { InMemoryCameraPathStore, type SavedCameraPath } from '../model/camera-path-store';
import { poseOfView, ServerSavedViewStore, viewDocument } from './server-saved-views';

const pose: MovePose = {
  position: [1.23456789, 2, -3.5],
  quaternion: [0, 0.38268343236508984, 0, 0.9238795325112867],
  focalLengthMm: 50,
  focusDistanceM: 4,
  fNumber: 2.8,
  rollDeg: -3,
};

/** The in-memory store, counting reads of whole documents. */
class CountingStore extends InMemoryCameraPathStore {
  reads = 0;
  override get(id: string): Promise<SavedCameraPath | null> {
    this.reads++;
    return super.get(id);
  }
}

const context = { frame: () => frameFormat('super-35', '2.39:1'), sceneVersion: () => 3 };

describe(ServerSavedViewStore.name, () => {
  it('saves a view as a document of one keyframe, no duration, the frame of the rig', async () => {
    const paths = new CountingStore();
    const sut = new ServerSavedViewStore(paths, context);
    const view = await sut.save('Over the lake', pose);
    expect(view).toEqual({ id: expect.any(String), name: 'Over the lake', pose });
    const saved = (await paths.get(view.id))!;
    expect(saved.kind).toBe('view');
    expect(saved.document).toEqual({
      format: 'scene-studio.camera-path',
      formatVersion: 1,
      sceneVersion: 3,
      recordedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      durationMs: 0,
      video: { mimeType: '', aspect: 2.39 },
      coordinateSystem: 'gltf',
      sensor: { widthMm: 24.89, heightMm: 18.66, filmGaugeMm: 24.89 },
      samples: [],
      markers: [],
      keyframes: [{ t: 0, ...pose, easing: 'hold' }],
    });
  });

  it('lists the views of every session of the scene in the order saved, reading each document once', async () => {
    const paths = new CountingStore();
    const mine = new ServerSavedViewStore(paths, context);
    const theirs = new ServerSavedViewStore(paths, context);
    await theirs.save('Wide', pose);
    await mine.save('Close', { ...pose, focalLengthMm: 85 });
    await paths.create('path', 'A take', { ...viewDocument(pose, context.frame(), 3, new Date()), keyframes: [] });
    paths.reads = 0;

    const views = await mine.list();
    expect(views.map((v) => [v.name, v.pose.focalLengthMm])).toEqual([
      ['Wide', 50],
      ['Close', 85],
    ]);
    expect(paths.reads).toBe(1); // its own saved view was known already
    await mine.list();
    expect(paths.reads).toBe(1);

    // Changed elsewhere, a second later (a new updatedAt): read again.
    const wide = views[0];
    const stored = (await paths.get(wide.id))!;
    jest.useFakeTimers({ now: Date.now() + 1000, doNotFake: ['nextTick', 'queueMicrotask', 'setImmediate'] });
    try {
      await paths.update(wide.id, 'Wider', stored.document);
    } finally {
      jest.useRealTimers();
    }
    paths.reads = 0;
    expect((await mine.list()).map((v) => v.name)).toEqual(['Wider', 'Close']);
    expect(paths.reads).toBe(1);
  });

  it('removes a view, and skips one deleted elsewhere between the list and its read', async () => {
    const paths = new CountingStore();
    const sut = new ServerSavedViewStore(paths, context);
    const a = await sut.save('A', pose);
    const b = await new ServerSavedViewStore(paths, context).save('B', pose);
    await sut.remove(a.id);
    expect((await paths.list()).map((p) => p.name)).toEqual(['B']);

    paths.get = () => Promise.resolve(null);
    expect(await sut.list()).toEqual([]);
    paths.get = () => Promise.reject(new StudioApiError(0, 'network_error', 'The studio could not reach the server.'));
    await expect(sut.list()).rejects.toThrow('could not reach');
    expect(b.name).toBe('B');
  });

  it('hands out copies: changing a listed pose changes nothing kept', async () => {
    const sut = new ServerSavedViewStore(new CountingStore(), context);
    await sut.save('A', pose);
    (await sut.list())[0].pose.position[0] = 99;
    expect((await sut.list())[0].pose.position[0]).toBe(pose.position[0]);
  });
});

describe(poseOfView.name, () => {
  it('is the pose of the keyframe, and null without one', () => {
    const document = viewDocument(pose, frameFormat('full-frame', '16:9'), null, new Date(0));
    expect(poseOfView(document)).toEqual(pose);
    expect(poseOfView({ ...document, keyframes: undefined })).toBeNull();
  });
});
