import { entityColumns, rawInsert, rawInsertAll, rawQuery, Tx, runInTransaction } from '@app/core';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ApiKeyEntity } from './api-key.entity';
import { ApprovedOriginEntity, OrganizationEntity } from './organization.entity';

@Injectable()
export class OrganizationsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** Creates the organization, its origins and its first key atomically: one statement. */
  async createWithKey(org: OrganizationEntity, origins: ApprovedOriginEntity[], key: ApiKeyEntity): Promise<void> {
    await rawInsertAll(this.db, [
      { entity: OrganizationEntity, value: { ...org } },
      ...origins.map((origin) => ({ entity: ApprovedOriginEntity, value: { ...origin } })),
      { entity: ApiKeyEntity, value: { ...key } },
    ]);
  }

  async findById(id: string): Promise<OrganizationEntity | null> {
    const all = entityColumns(this.db, OrganizationEntity);
    const [org] = await all.rows(this.db, `SELECT ${all.sql} FROM organizations WHERE id = $1`, [id]);
    return org ?? null;
  }

  list(): Promise<OrganizationEntity[]> {
    const all = entityColumns(this.db, OrganizationEntity);
    return all.rows(this.db, `SELECT ${all.sql} FROM organizations ORDER BY created_at`, []);
  }

  async count(): Promise<number> {
    const { rows } = await rawQuery<{ count: number }>(this.db, `SELECT count(*)::int AS count FROM organizations`);
    return rows[0].count;
  }

  async origins(organizationId: string): Promise<string[]> {
    const origin = entityColumns(this.db, ApprovedOriginEntity, { only: ['origin'] });
    const rows = await origin.rows(this.db, `SELECT ${origin.sql} FROM approved_origins WHERE organization_id = $1 ORDER BY origin`, [
      organizationId,
    ]);
    return rows.map((r) => r.origin);
  }

  async hasOrigin(organizationId: string, origin: string): Promise<boolean> {
    const { rows } = await rawQuery<{ found: boolean }>(
      this.db,
      `SELECT EXISTS (SELECT 1 FROM approved_origins WHERE organization_id = $1 AND origin = $2) AS found`,
      [organizationId, origin],
    );
    return rows[0].found;
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
    const { affected } = await rawQuery(tx, `DELETE FROM approved_origins WHERE organization_id = $1 AND origin = $2`, [
      organizationId,
      origin,
    ]);
    return affected > 0;
  }

  transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return runInTransaction(this.db, work);
  }
}

@Injectable()
export class ApiKeysRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  insert(key: ApiKeyEntity): Promise<unknown> {
    return rawInsert(this.db, ApiKeyEntity, key);
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

  async findById(id: string): Promise<ApiKeyEntity | null> {
    const all = entityColumns(this.db, ApiKeyEntity);
    const [key] = await all.rows(this.db, `SELECT ${all.sql} FROM api_keys WHERE id = $1`, [id]);
    return key ?? null;
  }

  listForOrganization(organizationId: string): Promise<ApiKeyEntity[]> {
    const all = entityColumns(this.db, ApiKeyEntity);
    return all.rows(this.db, `SELECT ${all.sql} FROM api_keys WHERE organization_id = $1 ORDER BY created_at`, [organizationId]);
  }

  /** Returns false when the key does not exist or was already revoked. */
  async revoke(id: string, at: Date): Promise<boolean> {
    const { affected } = await rawQuery(this.db, `UPDATE api_keys SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL`, [id, at]);
    return affected > 0;
  }
}
