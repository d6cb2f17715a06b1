import { OrganizationsService } from '@app/organizations';
import { INestApplicationContext } from '@nestjs/common';

let n = 0;

export interface TestOrganization {
  organizationId: string;
  apiKey: string;
  keyId: string;
  /** Headers that authenticate as this organization. */
  auth: { Authorization: string };
}

export async function createOrganization(
  app: INestApplicationContext,
  overrides: { name?: string; test?: boolean; origins?: string[] } = {},
): Promise<TestOrganization> {
  n += 1;
  const r = await app.get(OrganizationsService).createOrganization({
    name: overrides.name ?? `Test organization ${n}`,
    test: overrides.test ?? true,
    origins: overrides.origins ?? [],
  });
  return { organizationId: r.organizationId, apiKey: r.apiKey, keyId: r.keyId, auth: { Authorization: `Bearer ${r.apiKey}` } };
}
