'use strict';
/**
 * The architecture's rules as data, checked by `npm run lint`: the lib chain (which libs each
 * lib may import; dependency-cruiser enforces it, .dependency-cruiser.cjs) and which lib owns
 * each table (scripts/check-table-ownership.js enforces that no lib reads another lib's tables).
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
  scenes: ['core', 'generation', 'image-assets', 'tenancy', 'webhooks'],
  'embed-sessions': ['core', 'organizations', 'scenes', 'webhooks'],
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
  scenes: {
    own: ['scenes', 'scene_versions', 'scene_artifacts', 'operations', 'admission_turns', 'provider_erasures'],
    published: ['scene_states'],
  },
  'embed-sessions': { own: ['embed_sessions'], published: [] },
  webhooks: { own: ['webhook_endpoints', 'webhook_messages', 'webhook_deliveries'], published: [] },
  'camera-paths': { own: ['camera_paths'], published: [] },
};

module.exports = { LIB_DEPENDENCIES, TABLES };
