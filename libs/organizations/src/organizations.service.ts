import { Clock, IdGenerator, RandomSource, Tx } from '@app/core';
import { Injectable } from '@nestjs/common';
import { ApiKeyEntity } from './api-key.entity';
import { displayPrefix, formatApiKey, hashApiKey } from './api-key';
import { ApiKeyAuthenticator } from './api-key-authenticator';
import { ApprovedOriginEntity, OrganizationEntity } from './organization.entity';
import { OrganizationErrors } from './organizations.errors';
import { ApiKeysRepository, OrganizationsRepository } from './organizations.repository';
import { exactOrigin, isHttpsOrigin, isLocalhostOrigin } from './origin';
import { OriginRemovalHooks } from './origin-removal-hooks';
import { OrganizationIdPrefix } from './organizations.ids';

export interface OrganizationView {
  organizationId: string;
  name: string;
  test: boolean;
  origins: string[];
  createdAt: string;
}

export interface ApiKeyView {
  keyId: string;
  organizationId: string;
  prefix: string;
  createdAt: string;
  revokedAt: string | null;
}

/** What a new key looks like the one time it is shown. */
export interface IssuedKey {
  keyId: string;
  apiKey: string;
}

@Injectable()
export class OrganizationsService {
  constructor(
    private readonly organizations: OrganizationsRepository,
    private readonly keys: ApiKeysRepository,
    private readonly authenticator: ApiKeyAuthenticator,
    private readonly removalHooks: OriginRemovalHooks,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
    private readonly random: RandomSource,
  ) {}

  async createOrganization(input: { name: string; test: boolean; origins?: string[] }): Promise<OrganizationView & IssuedKey> {
    const name = input.name.trim();
    if (name.length < 1 || name.length > 200) throw OrganizationErrors.invalidName();
    const origins = [...new Set((input.origins ?? []).map((o) => this.requireApprovableOrigin(o)))];
    const now = this.clock.now();
    const org: OrganizationEntity = { id: this.ids.generate(OrganizationIdPrefix.Organization), name, isTest: input.test, createdAt: now };
    const issued = this.newKey(org);
    await this.organizations.createWithKey(
      org,
      origins.map((origin) => ({ organizationId: org.id, origin, createdAt: now })),
      issued.entity,
    );
    return { ...this.view(org, origins), keyId: issued.entity.id, apiKey: issued.apiKey };
  }

  async createApiKey(organizationId: string): Promise<IssuedKey & { organizationId: string }> {
    const org = await this.organizations.findById(organizationId);
    if (!org) throw OrganizationErrors.organizationNotFound(organizationId);
    const issued = this.newKey(org);
    await this.keys.insert(issued.entity);
    return { keyId: issued.entity.id, apiKey: issued.apiKey, organizationId };
  }

  /**
   * Revokes a key. This process stops accepting it at once; other processes hear of it through
   * Redis immediately, and their caches forget it within API_KEY_CACHE_TTL_SECONDS (at most 5)
   * even if that message is lost.
   */
  async revokeApiKey(keyId: string): Promise<{ keyId: string; revoked: boolean }> {
    const key = await this.keys.findById(keyId);
    if (!key) throw OrganizationErrors.keyNotFound(keyId);
    const revoked = await this.keys.revoke(keyId, this.clock.now());
    await this.authenticator.forget(keyId);
    return { keyId, revoked };
  }

  async listOrganizations(): Promise<OrganizationView[]> {
    const orgs = await this.organizations.list();
    return Promise.all(orgs.map(async (o) => this.view(o, await this.organizations.origins(o.id))));
  }

  async getOrganization(id: string): Promise<OrganizationView> {
    const org = await this.organizations.findById(id);
    if (!org) throw OrganizationErrors.organizationNotFound(id);
    return this.view(org, await this.organizations.origins(id));
  }

  async listApiKeys(organizationId: string): Promise<ApiKeyView[]> {
    const org = await this.organizations.findById(organizationId);
    if (!org) throw OrganizationErrors.organizationNotFound(organizationId);
    const keys = await this.keys.listForOrganization(organizationId);
    return keys.map((k) => ({
      keyId: k.id,
      organizationId: k.organizationId,
      prefix: `${k.keyPrefix}…`,
      createdAt: k.createdAt.toISOString(),
      revokedAt: k.revokedAt?.toISOString() ?? null,
    }));
  }

  async addOrigin(organizationId: string, origin: string): Promise<{ organizationId: string; origin: string; added: boolean }> {
    const exact = this.requireApprovableOrigin(origin);
    const org = await this.organizations.findById(organizationId);
    if (!org) throw OrganizationErrors.organizationNotFound(organizationId);
    const row: ApprovedOriginEntity = { organizationId, origin: exact, createdAt: this.clock.now() };
    return { organizationId, origin: exact, added: await this.organizations.addOrigin(row) };
  }

  /**
   * Withdraws an approved origin. In the same transaction every registered hook runs (embed
   * sessions end the live sessions bound to the origin, announcing each), so the origin is never
   * gone while its sessions still work.
   */
  async removeOrigin(organizationId: string, origin: string): Promise<{ organizationId: string; origin: string; removed: boolean }> {
    const org = await this.organizations.findById(organizationId);
    if (!org) throw OrganizationErrors.organizationNotFound(organizationId);
    const removed = await this.organizations.transaction(async (tx) => {
      if (!(await this.organizations.removeOrigin(tx, organizationId, origin))) return false;
      await this.removalHooks.run(tx, { organizationId, origin }, this.clock.now());
      return true;
    });
    return { organizationId, origin, removed };
  }

  /**
   * Whether an organization may embed on `origin`, which must already be in serialized form:
   * an approved HTTPS origin, or for a test organization also exact http://localhost:<port>.
   * Given `tx`, the approval is held until that transaction ends, so what the transaction creates
   * on the origin is there before a removal looks for it (OriginRemovalHooks).
   */
  async isOriginAllowed(organizationId: string, origin: string, isTest: boolean, tx?: Tx): Promise<boolean> {
    if (isTest && isLocalhostOrigin(origin)) return true;
    if (!isHttpsOrigin(origin)) return false;
    return tx ? this.organizations.holdOrigin(tx, organizationId, origin) : this.organizations.hasOrigin(organizationId, origin);
  }

  /**
   * Whether the organization allows `origin` now, as `isOriginAllowed` decides it for the
   * organization's own kind (test or live); false for an unknown organization.
   */
  async allowsOrigin(organizationId: string, origin: string): Promise<boolean> {
    const org = await this.organizations.findById(organizationId);
    return org !== null && this.isOriginAllowed(organizationId, origin, org.isTest);
  }

  /** Whether the organization is a test one (`sk_test_` keys); false for an unknown one. */
  async isTestOrganization(organizationId: string): Promise<boolean> {
    return (await this.organizations.findById(organizationId))?.isTest === true;
  }

  /** The local test organization `npm start` creates on an empty database, once. */
  async bootstrapLocal(localOrigins: string[]): Promise<(OrganizationView & IssuedKey) | null> {
    if ((await this.organizations.count()) > 0) return null;
    return this.createOrganization({ name: 'Local test organization', test: true, origins: localOrigins });
  }

  private requireApprovableOrigin(origin: string): string {
    const exact = exactOrigin(origin);
    if (!exact || !isHttpsOrigin(exact)) throw OrganizationErrors.invalidOrigin();
    return exact;
  }

  private newKey(org: OrganizationEntity): { entity: ApiKeyEntity; apiKey: string } {
    const apiKey = formatApiKey(org.isTest ? 'test' : 'live', this.random.bytes(32));
    return {
      apiKey,
      entity: {
        id: this.ids.generate(OrganizationIdPrefix.ApiKey),
        organizationId: org.id,
        keyHash: hashApiKey(apiKey),
        keyPrefix: displayPrefix(apiKey),
        createdAt: this.clock.now(),
        revokedAt: null,
      },
    };
  }

  private view(org: OrganizationEntity, origins: string[]): OrganizationView {
    return { organizationId: org.id, name: org.name, test: org.isTest, origins, createdAt: org.createdAt.toISOString() };
  }
}
