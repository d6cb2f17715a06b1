import { OrganizationsService } from '@app/organizations';
import { TestOrganizations } from '@app/operations';
import { Injectable, OnModuleInit } from '@nestjs/common';

/**
 * Tells the generation jobs which organizations are test ones (their directives pick the outcome,
 * docs/api.md, "Testing your integration"): operations may not import organizations, the worker may.
 */
@Injectable()
export class TestOrganizationsWiring implements OnModuleInit {
  constructor(
    private readonly testOrganizations: TestOrganizations,
    private readonly organizations: OrganizationsService,
  ) {}

  onModuleInit(): void {
    this.testOrganizations.register((organizationId) => this.organizations.isTestOrganization(organizationId));
  }
}
