import { Injectable } from '@nestjs/common';

/** Whether an organization is a test one (its keys are `sk_test_…`). */
export type TestOrganizationLookup = (organizationId: string) => Promise<boolean>;

/**
 * Tells the generation jobs which organizations are test ones, so a test organization's
 * directives (docs/api.md, "Testing your integration") pick their outcome. Organizations are not a
 * lib operations may import: the worker registers the lookup at boot (apps/worker). Until one is
 * registered every organization counts as live, so a missing wiring never turns test mode on.
 */
@Injectable()
export class TestOrganizations {
  private lookup: TestOrganizationLookup | null = null;

  register(lookup: TestOrganizationLookup): void {
    if (this.lookup) throw new Error('the test-organization lookup is registered twice');
    this.lookup = lookup;
  }

  isTest(organizationId: string): Promise<boolean> {
    return this.lookup ? this.lookup(organizationId) : Promise.resolve(false);
  }
}
