import { ServerCameraPathStore } from './server-camera-path-store';
import { StudioApiError, type StudioApiClient } from './studio-api.client';

describe(ServerCameraPathStore.name, () => {
  const answering = (cameraPath: () => Promise<unknown>) => new ServerCameraPathStore({ cameraPath } as unknown as StudioApiClient);

  it('reads a path that is gone (404) as null, so callers never look at HTTP statuses', async () => {
    const sut = answering(() => Promise.reject(new StudioApiError(404, 'not_found', 'The requested resource does not exist.')));
    expect(await sut.get('cam_01JD3Z8Q4W6K2M9T5X7B1C0VHE')).toBeNull();
  });

  it('lets every other failure through', async () => {
    const sut = answering(() => Promise.reject(new StudioApiError(0, 'network_error', 'The studio could not reach the server.')));
    await expect(sut.get('cam_01JD3Z8Q4W6K2M9T5X7B1C0VHE')).rejects.toThrow('could not reach');
  });
});
