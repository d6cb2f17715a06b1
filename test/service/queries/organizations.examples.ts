import { ApiKeyEntity } from '@app/organizations/api-key.entity';
import { displayPrefix, formatApiKey, hashApiKey } from '@app/organizations/api-key';
import { ApprovedOriginEntity, OrganizationEntity } from '@app/organizations/organization.entity';
import { ApiKeysRepository, OrganizationsRepository } from '@app/organizations/organizations.repository';
import { randomBytes, randomUUID } from 'node:crypto';
import { examplesOf, RepositoryExamples } from './examples';

/** The organization these examples create, and the origins they approve and withdraw. */
const organizationId = `org_q_${randomUUID()}`;
const ORIGIN = 'https://partner.example';
const ADDED_ORIGIN = 'https://added.partner.example';

/** A key as organizations.service.ts `newKey` issues one (the same properties set). */
function keyOf(id: string, apiKey: string, at: Date): ApiKeyEntity {
  return { id, organizationId, keyHash: hashApiKey(apiKey), keyPrefix: displayPrefix(apiKey), createdAt: at, revokedAt: null };
}

/** The organization's second key, which ApiKeysRepository's examples insert, find and revoke. */
const second = { id: `key_q_${randomUUID()}`, apiKey: formatApiKey('test', randomBytes(32)) };

export const organizationsExamples: RepositoryExamples<unknown>[] = [
  examplesOf<OrganizationsRepository>({
    type: OrganizationsRepository,
    make: (db) => new OrganizationsRepository(db),
    calls: {
      // As createOrganization does it: with an origin, so the origins' insert is sent too.
      createWithKey: (r, _tx, f) => {
        const org: OrganizationEntity = { id: organizationId, name: 'Queries organization', isTest: true, createdAt: f.now };
        const origins: ApprovedOriginEntity[] = [{ organizationId, origin: ORIGIN, createdAt: f.now }];
        return r.createWithKey(org, origins, keyOf(`key_q_${randomUUID()}`, formatApiKey('test', randomBytes(32)), f.now));
      },
      findById: (r) => r.findById(organizationId),
      list: (r) => r.list(),
      count: (r) => r.count(),
      origins: (r) => r.origins(organizationId),
      hasOrigin: (r) => r.hasOrigin(organizationId, ORIGIN),
      holdOrigin: (r, tx) => r.holdOrigin(tx, organizationId, ORIGIN),
      addOrigin: (r, _tx, f) => r.addOrigin({ organizationId, origin: ADDED_ORIGIN, createdAt: f.now }),
      removeOrigin: (r, tx) => r.removeOrigin(tx, organizationId, ADDED_ORIGIN),
      transaction: (r) => r.transaction(async () => undefined),
    },
  }),
  examplesOf<ApiKeysRepository>({
    type: ApiKeysRepository,
    make: (db) => new ApiKeysRepository(db),
    calls: {
      insert: (r, _tx, f) => r.insert(keyOf(second.id, second.apiKey, f.now)),
      findActiveByHash: (r) => r.findActiveByHash(hashApiKey(second.apiKey)),
      findById: (r, _tx, f) => r.findById(f.apiKeyId),
      listForOrganization: (r) => r.listForOrganization(organizationId),
      revoke: (r, _tx, f) => r.revoke(second.id, f.now),
    },
  }),
];
