import { bigintAsNumber } from '@app/core';
import { Column, Entity, PrimaryColumn } from 'typeorm';

/** When an organization was last served by admission (docs/architecture.md, "Fair share"). */
@Entity('admission_turns')
export class AdmissionTurnEntity {
  @PrimaryColumn({ name: 'organization_id', type: 'text' })
  organizationId: string;

  /** A sequence number (`admission_turn_seq`): the longest unserved goes first. */
  @Column({ name: 'last_turn', type: 'bigint', transformer: bigintAsNumber })
  lastTurn: number;
}
