import { AppConfig } from '../config';
import { bullmq } from './bullmq';
import { QueueService } from './queue.service';

jest.mock('./bullmq', () => ({ bullmq: jest.fn(() => ({})) }));

describe(QueueService.name, () => {
  beforeEach(() => jest.mocked(bullmq).mockClear());

  it('loads BullMQ while a server starts, so no request pays for it', () => {
    new QueueService({} as AppConfig, { loadAtBoot: true }).onApplicationBootstrap();
    expect(bullmq).toHaveBeenCalledTimes(1);
  });

  it('leaves it unloaded in a process that may never make a queue (the CLI)', () => {
    new QueueService({} as AppConfig, { loadAtBoot: false }).onApplicationBootstrap();
    expect(bullmq).not.toHaveBeenCalled();
  });
});
