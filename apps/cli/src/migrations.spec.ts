import { assembleMigrations } from '@app/core';
import { MIGRATIONS } from './migrations';

/**
 * The history every database already migrated has in its `migrations` table, in the order it was
 * applied. Moving a migration between libs must not change a name or the order: TypeORM would
 * run a renamed one again, or stop at one it does not know.
 */
const HISTORY = [
  'CreateOrganizations1795266471184',
  'CreateImageAssets1795267204438',
  'CreateScenesAndOperations1795267900000',
  'CreateEmbedSessions1795270800000',
  'AddOperationProgress1795276000000',
  'CreateSceneStatesView1795280000000',
  'IdempotencyRecordsKeepResults1795280100000',
  'LongRunningGenerations1795290000000',
  'CreateWebhooks1795300000000',
  'WebhookMessagesByAge1795305000000',
  'AddOperationRevertTo1795320000000',
  'AddSplatPreviewArtifact1795330000000',
  'CreateCameraPaths1795340000000',
  'AddTenancy1795345000000',
  'EraseDeletedData1795350000000',
  'IndexEmbedSessionsByOrigin1795355000000',
  'BoundWaitingGenerations1795360000000',
  'HoldSlotsUntilWorkEnds1795365000000',
  'CreateProviderErasures1795370000000',
  'CreatePendingBlobs1795371000000',
  'IndexWaitingBacklogs1795376000000',
  'ShowSceneDeletionTime1795380000000',
  'ParkDisabledEndpointsDeliveries1795381000000',
];

describe('MIGRATIONS', () => {
  it('is the historical list of names, in order, whichever lib holds each', () => {
    // The name TypeORM records is the instance's `name`; the class name must agree with it.
    expect(MIGRATIONS.map((m) => new m().name)).toEqual(HISTORY);
    expect(MIGRATIONS.map((m) => m.name)).toEqual(HISTORY);
  });
});

describe(assembleMigrations.name, () => {
  class AddA1700000000001 {
    name = 'AddA1700000000001';
    up = async () => undefined;
    down = async () => undefined;
  }
  class AddB1700000000000 {
    name = 'AddB1700000000000';
    up = async () => undefined;
    down = async () => undefined;
  }

  it('orders the lists of several libs by timestamp', () => {
    expect(assembleMigrations([AddA1700000000001], [AddB1700000000000]).map((m) => m.name)).toEqual([
      'AddB1700000000000',
      'AddA1700000000001',
    ]);
  });

  it('refuses a migration listed twice, or one whose name has no timestamp', () => {
    expect(() => assembleMigrations([AddB1700000000000], [AddB1700000000000])).toThrow('listed twice');
    class NoTimestamp {
      name = 'NoTimestamp';
      up = async () => undefined;
      down = async () => undefined;
    }
    expect(() => assembleMigrations([NoTimestamp])).toThrow('timestamp');
  });
});
