import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * An organization's generations (creations and edits) in flight, counted exactly in the
 * transaction of every change (docs/architecture.md, "Fair share"): `waiting` for their turn
 * (accepted, not admitted; what `maxWaitingGenerations` caps) and `running` (admitted and still
 * holding one of its `maxConcurrentGenerations` slots). An admission round reads these rows
 * instead of grouping the waiting operations, so its cost does not grow with a backlog.
 */
@Entity('organization_backlogs')
export class OrganizationBacklogEntity {
  @PrimaryColumn({ name: 'organization_id', type: 'text' })
  organizationId: string;

  @Column({ type: 'integer' })
  waiting: number;

  @Column({ type: 'integer' })
  running: number;

  /** Of the running: ended for their partner (cancelled, scene deleted) while their work goes on. */
  @Column({ type: 'integer' })
  cancelling: number;
}
