import { Injectable } from '@nestjs/common';
import { OrganizationBacklogEntity } from './organization-backlog.entity';
import { TenancyRepository } from './tenancy.repository';
import { Tx } from '@app/core';

/** An organization's generations in flight, as admission reads them. */
export type OrganizationBacklog = Pick<OrganizationBacklogEntity, 'organizationId' | 'waiting' | 'running' | 'cancelling'>;

/**
 * The per-organization counts of generations waiting for their turn and running (admitted, holding
 * a slot), for the workers' admission (docs/architecture.md, "Fair share"). UsageService counts
 * acceptances and ends in the same statements as the day's usage; admission reports what it
 * admitted here, in its round's transaction. Reads cost one row per organization with work
 * waiting, however many operations wait.
 */
@Injectable()
export class GenerationBacklogs {
  constructor(private readonly repository: TenancyRepository) {}

  /** The organizations with generations waiting (in the admission round's transaction, when given). */
  withWaiting(tx?: Tx): Promise<OrganizationBacklog[]> {
    return this.repository.withWaiting(tx);
  }

  /** Moves what admission let on the queue from waiting to running, per organization. */
  admitted(tx: Tx, countByOrganization: Map<string, number>): Promise<void> {
    return this.repository.countAdmitted(tx, countByOrganization);
  }

  /** A generation that ended while its work went on: its work has ended now, and its slot is free. */
  released(tx: Tx, organizationId: string): Promise<void> {
    return this.repository.countReleased(tx, organizationId);
  }

  /** One organization's counts. */
  of(organizationId: string, tx?: Tx): Promise<OrganizationBacklog> {
    return this.repository.backlogOf(organizationId, tx);
  }
}
