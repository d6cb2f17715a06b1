import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity('organizations')
export class OrganizationEntity {
  @PrimaryColumn('text')
  id: string;

  @Column('text')
  name: string;

  /** Test organizations get `sk_test_` keys and may embed on exact http://localhost:<port> origins. */
  @Column({ name: 'is_test', type: 'boolean' })
  isTest: boolean;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}

@Entity('approved_origins')
export class ApprovedOriginEntity {
  @PrimaryColumn({ name: 'organization_id', type: 'text' })
  organizationId: string;

  @PrimaryColumn('text')
  origin: string;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
