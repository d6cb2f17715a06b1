import { entityColumns, rawInsert, rawQuery, Tx, managerOf, runInTransaction } from '@app/core';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ApiKeyEntity } from './api-key.entity';
import { ApprovedOriginEntity, OrganizationEntity } from './organization.entity';

@Injectable()
export class OrganizationsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** Creates the organization, its origins and its first key atomically. */
  async createWithKey(org: OrganizationEntity, origins: ApprovedOriginEntity[], key: ApiKeyEntity): Promise<void> {
    await runInTransaction(this.db, async (tx) => {
      await managerOf(tx).insert(OrganizationEntity, org);
      if (origins.length > 0) await managerOf(tx).insert(ApprovedOriginEntity, origins);
      await managerOf(tx).insert(ApiKeyEntity, key);
    });
  }

  findById(id: string): Promise<OrganizationEntity | null> {
    return this.db.getRepository(OrganizationEntity).findOneBy({ id });
  }

  list(): Promise<OrganizationEntity[]> {
    return this.db.getRepository(OrganizationEntity).find({ order: { createdAt: 'ASC' } });
  }

  count(): Promise<number> {
    return this.db.getRepository(OrganizationEntity).count();
  }

  async origins(organizationId: string): Promise<string[]> {
    const rows = await this.db.getRepository(ApprovedOriginEntity).find({ where: { organizationId }, order: { origin: 'ASC' } });
    return rows.map((r) => r.origin);
  }

  async hasOrigin(organizationId: string, origin: string): Promise<boolean> {
    return this.db.getRepository(ApprovedOriginEntity).exists({ where: { organizationId, origin } });
  }

  /**
   * Whether the origin is approved, in the caller's transaction, holding its row (FOR KEY SHARE)
   * until that transaction ends: a removal waits for it, then sees what it wrote.
   */
  async holdOrigin(tx: Tx, organizationId: string, origin: string): Promise<boolean> {
    const { rows } = await rawQuery(tx, `SELECT 1 FROM approved_origins WHERE organization_id = $1 AND origin = $2 FOR KEY SHARE`, [
      organizationId,
      origin,
    ]);
    return rows.length > 0;
  }

  /** False when the origin was approved already. */
  async addOrigin(row: ApprovedOriginEntity): Promise<boolean> {
    const { affected } = await rawInsert(this.db, ApprovedOriginEntity, row, 'ON CONFLICT DO NOTHING');
    return affected > 0;
  }

  /** In the caller's transaction; false when the origin was not approved. */
  async removeOrigin(tx: Tx, organizationId: string, origin: string): Promise<boolean> {
    const res = await managerOf(tx).getRepository(ApprovedOriginEntity).delete({ organizationId, origin });
    return (res.affected ?? 0) > 0;
  }

  transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return runInTransaction(this.db, work);
  }
}

@Injectable()
export class ApiKeysRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  insert(key: ApiKeyEntity): Promise<unknown> {
    return this.db.getRepository(ApiKeyEntity).insert(key);
  }

  /** The active key with this hash and its organization's flags, in one indexed query. */
  async findActiveByHash(keyHash: string): Promise<{ keyId: string; organizationId: string; isTest: boolean } | null> {
    const key = entityColumns(this.db, ApiKeyEntity, { alias: 'k', only: ['id', 'organizationId'] });
    const organization = entityColumns(this.db, OrganizationEntity, { alias: 'o', only: ['isTest'] });
    const { rows } = await rawQuery(
      this.db,
      `SELECT ${key.sql}, ${organization.sql}
         FROM api_keys k JOIN organizations o ON o.id = k.organization_id
        WHERE k.key_hash = $1 AND k.revoked_at IS NULL`,
      [keyHash],
    );
    if (rows.length === 0) return null;
    const { id, organizationId } = key.toEntity(rows[0]);
    return { keyId: id, organizationId, isTest: organization.toEntity(rows[0]).isTest };
  }

  findById(id: string): Promise<ApiKeyEntity | null> {
    return this.db.getRepository(ApiKeyEntity).findOneBy({ id });
  }

  listForOrganization(organizationId: string): Promise<ApiKeyEntity[]> {
    return this.db.getRepository(ApiKeyEntity).find({ where: { organizationId }, order: { createdAt: 'ASC' } });
  }

  /** Returns false when the key does not exist or was already revoked. */
  async revoke(id: string, at: Date): Promise<boolean> {
    const res = await this.db
      .createQueryBuilder()
      .update(ApiKeyEntity)
      .set({ revokedAt: at })
      .where('id = :id AND revoked_at IS NULL', { id })
      .execute();
    return (res.affected ?? 0) > 0;
  }
}
