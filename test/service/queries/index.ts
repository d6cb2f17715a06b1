import { cameraPathsExamples } from './camera-paths.examples';
import { coreExamples } from './core.examples';
import { embedSessionsExamples } from './embed-sessions.examples';
import { RepositoryExamples } from './examples';
import { imageAssetsExamples } from './image-assets.examples';
import { operationsExamples } from './operations.examples';
import { organizationsExamples } from './organizations.examples';
import { scenesExamples } from './scenes.examples';
import { tenancyExamples } from './tenancy.examples';
import { webhooksExamples } from './webhooks.examples';

/** Per lib (its folder name), its repositories' examples, run in this order. */
export const EXAMPLES: Record<string, RepositoryExamples<unknown>[]> = {
  'camera-paths': cameraPathsExamples,
  core: coreExamples,
  'embed-sessions': embedSessionsExamples,
  'image-assets': imageAssetsExamples,
  operations: operationsExamples,
  organizations: organizationsExamples,
  scenes: scenesExamples,
  tenancy: tenancyExamples,
  webhooks: webhooksExamples,
};
