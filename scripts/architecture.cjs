'use strict';
/**
 * The architecture's rules as data, checked by `npm run lint`: the lib chain (which libs each
 * lib may import; dependency-cruiser enforces it, .dependency-cruiser.cjs) and which lib owns
 * each table (scripts/check-table-ownership.js enforces that no lib reads another lib's tables,
 * save the few reads listed in READS).
 * The README and docs/architecture.md describe the same chain.
 */

/** Each lib may import only the libs listed for it. */
const LIB_DEPENDENCIES = {
  core: [],
  tenancy: ['core'],
  'image-assets': ['core', 'tenancy'],
  generation: ['core', 'image-assets'],
  organizations: ['core'],
  webhooks: ['core'],
  scenes: ['core', 'generation', 'webhooks'],
  operations: ['core', 'generation', 'image-assets', 'scenes', 'tenancy', 'webhooks'],
  'embed-sessions': ['core', 'operations', 'organizations', 'scenes', 'webhooks'],
  'camera-paths': ['core', 'scenes'],
};

/**
 * The tables of each lib: only its own code reads or writes them. `published` are the read
 * models (views) a lib offers to the libs allowed to import it.
 */
const TABLES = {
  core: { own: ['idempotency_keys', 'blobs', 'pending_blobs'], published: [] },
  tenancy: { own: ['organization_limits', 'usage_days', 'organization_backlogs'], published: [] },
  'image-assets': { own: ['image_assets'], published: [] },
  generation: { own: [], published: [] },
  organizations: { own: ['organizations', 'approved_origins', 'api_keys'], published: [] },
  scenes: { own: ['scenes', 'scene_versions', 'scene_artifacts'], published: [] },
  // `scene_states` joins a scene to its creating operation and edits: only the lib above both
  // knows them, so the view is its read model.
  operations: { own: ['operations', 'admission_turns', 'provider_erasures'], published: ['scene_states'] },
  'embed-sessions': { own: ['embed_sessions'], published: [] },
  webhooks: { own: ['webhook_endpoints', 'webhook_messages', 'webhook_deliveries'], published: [] },
  'camera-paths': { own: ['camera_paths'], published: [] },
};

/**
 * Tables a lib reads though a lib below it owns them: reads only (FROM and JOIN, and the entity's
 * columns for them); writes go through the owner's services. Each is a cost weighed, not a habit.
 */
const READS = {
  // A partner's poll answers only for an operation of a live scene and shows the scene's
  // externalRef: one statement joining `scenes` on the hottest path (docs/performance.md,
  // "Partner API: polling and creation") instead of a second round trip to ask the scenes lib.
  operations: ['scenes'],
};

module.exports = { LIB_DEPENDENCIES, TABLES, READS };
