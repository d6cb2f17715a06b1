import { OrganizationsModule, OrganizationsService } from '@app/organizations';
import { withContext } from './cli-context';
import { Json, printResult } from './output';

/** The name `org bootstrap-local` gives the organization it creates (OrganizationsService.bootstrapLocal). */
const LOCAL_ORGANIZATION = 'Local test organization';

/** Organizations, their keys and origins: only the organizations lib is loaded. */
function withOrganizations<T>(fn: (orgs: OrganizationsService) => Promise<T>): Promise<T> {
  return withContext([OrganizationsModule], (app) => fn(app.get(OrganizationsService)));
}

export async function orgCreate(o: Json & { name: string; test?: boolean; origin: string[] }): Promise<void> {
  const r = await withOrganizations((s) => s.createOrganization({ name: o.name, test: !!o.test, origins: o.origin }));
  await printResult(
    !!o.json,
    { ...r },
    [
      `Created organization ${r.organizationId} (${r.name}${r.test ? ', test' : ''}).`,
      `API key ${r.keyId}: ${r.apiKey}`,
      'Store this key now: it is shown only once.',
    ].join('\n'),
  );
}

export async function orgList(o: Json): Promise<void> {
  const organizations = await withOrganizations((s) => s.listOrganizations());
  await printResult(
    !!o.json,
    { organizations },
    organizations.length
      ? organizations
          .map((g) => `${g.organizationId}  ${g.test ? 'test' : 'live'}  ${g.name}  origins: ${g.origins.join(', ') || '-'}`)
          .join('\n')
      : 'No organizations.',
  );
}

/**
 * `npm start`'s step: the local test organization, created on an empty database (its key is
 * shown once), else found again; with `--extra-key` also a new key of it (for the partner
 * example, which needs its own on every run: only hashes are stored).
 */
export async function orgBootstrapLocal(o: Json & { extraKey?: boolean }): Promise<void> {
  const { created, organizationId, extraKey } = await withOrganizations(async (s) => {
    const made = await s.bootstrapLocal([]);
    const id = made?.organizationId ?? (await s.listOrganizations()).find((g) => g.test && g.name === LOCAL_ORGANIZATION)?.organizationId;
    return { created: made, organizationId: id ?? null, extraKey: o.extraKey && id ? await s.createApiKey(id) : null };
  });
  const extra = extraKey ? { extraKey: { keyId: extraKey.keyId, apiKey: extraKey.apiKey } } : {};
  if (!created) {
    await printResult(
      !!o.json,
      { created: false, organizationId, ...extra },
      organizationId
        ? `The local test organization exists already: ${organizationId}.`
        : 'Organizations exist already; none is the local test organization, and none was created.',
    );
    return;
  }
  await printResult(
    !!o.json,
    { created: true, ...created, ...extra },
    [
      '',
      '  Created the local test organization (it may embed on http://localhost:<port> origins).',
      `  Organization: ${created.organizationId}`,
      `  API key:      ${created.apiKey}`,
      '  This key is shown once: copy it now. Create more with: npm run --silent cli -- key create --org ' + created.organizationId,
      '',
    ].join('\n'),
  );
}

export async function keyCreate(o: Json & { org: string }): Promise<void> {
  const r = await withOrganizations((s) => s.createApiKey(o.org));
  await printResult(!!o.json, { ...r }, `API key ${r.keyId}: ${r.apiKey}\nStore this key now: it is shown only once.`);
}

export async function keyRevoke(o: Json & { key: string }): Promise<void> {
  const r = await withOrganizations((s) => s.revokeApiKey(o.key));
  await printResult(!!o.json, { ...r }, r.revoked ? `Revoked ${r.keyId}.` : `${r.keyId} was already revoked.`);
}

export async function keyList(o: Json & { org: string }): Promise<void> {
  const keys = await withOrganizations((s) => s.listApiKeys(o.org));
  await printResult(
    !!o.json,
    { keys },
    keys.length
      ? keys.map((k) => `${k.keyId}  ${k.prefix}  created ${k.createdAt}  ${k.revokedAt ? `revoked ${k.revokedAt}` : 'active'}`).join('\n')
      : 'No keys.',
  );
}

export async function originAdd(o: Json & { org: string; origin: string }): Promise<void> {
  const r = await withOrganizations((s) => s.addOrigin(o.org, o.origin));
  await printResult(!!o.json, { ...r }, r.added ? `Approved ${r.origin} for ${r.organizationId}.` : `${r.origin} was already approved.`);
}

export async function originList(o: Json & { org: string }): Promise<void> {
  const org = await withOrganizations((s) => s.getOrganization(o.org));
  await printResult(
    !!o.json,
    { organizationId: org.organizationId, origins: org.origins },
    org.origins.join('\n') || 'No approved origins.',
  );
}
