import { EmbedSessionsModule } from '@app/embed-sessions';
import { OrganizationsModule, OrganizationsService } from '@app/organizations';
import { withContext } from './cli-context';
import { Json, printResult } from './output';

/**
 * Apart from the other organization commands because it loads embed sessions (and through them
 * scenes): their module registers what removing an origin ends, its live embed sessions; without
 * it `origin remove` would leave them running.
 */
export async function originRemove(o: Json & { org: string; origin: string }): Promise<void> {
  const r = await withContext([OrganizationsModule, EmbedSessionsModule], (app) =>
    app.get(OrganizationsService).removeOrigin(o.org, o.origin),
  );
  await printResult(
    !!o.json,
    { ...r },
    r.removed ? `Removed ${r.origin}; its live embed sessions have ended.` : `${r.origin} was not approved.`,
  );
}
