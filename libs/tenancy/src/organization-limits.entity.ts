import { Column, Entity, PrimaryColumn } from 'typeorm';

/** What an operator set with `cli org limits`; an organization without a row has the defaults. */
@Entity('organization_limits')
export class OrganizationLimitsEntity {
  @PrimaryColumn({ name: 'organization_id', type: 'text' })
  organizationId: string;

  @Column({ name: 'max_concurrent_generations', type: 'integer' })
  maxConcurrentGenerations: number;

  /** Null: unlimited. */
  @Column({ name: 'generations_per_day', type: 'integer', nullable: true })
  generationsPerDay: number | null;

  /** Generations accepted and not yet admitted (waiting for their turn); more are refused. */
  @Column({ name: 'max_waiting_generations', type: 'integer' })
  maxWaitingGenerations: number;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
