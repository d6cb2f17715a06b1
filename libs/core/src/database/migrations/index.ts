import { CreateOrganizations1795266471184 } from './1795266471184-CreateOrganizations';
import { CreateImageAssets1795267204438 } from './1795267204438-CreateImageAssets';
import { CreateScenesAndOperations1795267900000 } from './1795267900000-CreateScenesAndOperations';
import { CreateEmbedSessions1795270800000 } from './1795270800000-CreateEmbedSessions';
import { AddOperationProgress1795276000000 } from './1795276000000-AddOperationProgress';
import { CreateSceneStatesView1795280000000 } from './1795280000000-CreateSceneStatesView';
import { IdempotencyRecordsKeepResults1795280100000 } from './1795280100000-IdempotencyRecordsKeepResults';
import { LongRunningGenerations1795290000000 } from './1795290000000-LongRunningGenerations';
import { CreateWebhooks1795300000000 } from './1795300000000-CreateWebhooks';
import { WebhookMessagesByAge1795305000000 } from './1795305000000-WebhookMessagesByAge';
import { AddOperationRevertTo1795320000000 } from './1795320000000-AddOperationRevertTo';
import { AddSplatPreviewArtifact1795330000000 } from './1795330000000-AddSplatPreviewArtifact';
import { CreateCameraPaths1795340000000 } from './1795340000000-CreateCameraPaths';
import { AddTenancy1795345000000 } from './1795345000000-AddTenancy';
import { EraseDeletedData1795350000000 } from './1795350000000-EraseDeletedData';
import { IndexEmbedSessionsByOrigin1795355000000 } from './1795355000000-IndexEmbedSessionsByOrigin';

/**
 * Every migration, in order. Listed explicitly rather than globbed so that the same list works
 * from compiled JavaScript, from the test runner's TypeScript and from a bundled image.
 */
export const migrations = [
  CreateOrganizations1795266471184,
  CreateImageAssets1795267204438,
  CreateScenesAndOperations1795267900000,
  CreateEmbedSessions1795270800000,
  AddOperationProgress1795276000000,
  CreateSceneStatesView1795280000000,
  IdempotencyRecordsKeepResults1795280100000,
  LongRunningGenerations1795290000000,
  CreateWebhooks1795300000000,
  WebhookMessagesByAge1795305000000,
  AddOperationRevertTo1795320000000,
  AddSplatPreviewArtifact1795330000000,
  CreateCameraPaths1795340000000,
  AddTenancy1795345000000,
  EraseDeletedData1795350000000,
  IndexEmbedSessionsByOrigin1795355000000,
];
