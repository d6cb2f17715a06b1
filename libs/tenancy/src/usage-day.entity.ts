import { Column, Entity, PrimaryColumn } from 'typeorm';

/** numeric and bigint arrive from pg as text: both stay far below 2^53 here. */
const asNumber = { to: (v: number) => v, from: (v: string | number) => Number(v) };

/**
 * One organization's counters for one UTC day, each incremented in the transaction of the change
 * it counts (docs/api.md, "Usage"). `generationsStarted` counts creations and edits (what the
 * daily quota counts), `editsStarted` the edits among them; the ends count operations that ended
 * that day, whenever they started.
 */
@Entity('usage_days')
export class UsageDayEntity {
  @PrimaryColumn({ name: 'organization_id', type: 'text' })
  organizationId: string;

  /** YYYY-MM-DD (UTC). */
  @PrimaryColumn({ type: 'date' })
  day: string;

  @Column({ name: 'generations_started', type: 'integer' })
  generationsStarted: number;

  @Column({ name: 'edits_started', type: 'integer' })
  editsStarted: number;

  @Column({ name: 'generations_succeeded', type: 'integer' })
  generationsSucceeded: number;

  @Column({ name: 'generations_failed', type: 'integer' })
  generationsFailed: number;

  @Column({ name: 'generations_cancelled', type: 'integer' })
  generationsCancelled: number;

  @Column({ name: 'provider_cost_units', type: 'numeric', transformer: asNumber })
  providerCostUnits: number;

  @Column({ name: 'stored_bytes', type: 'bigint', transformer: asNumber })
  storedBytes: number;
}
