import type { MigrationConstructor } from '@app/core';
import { CreateEmbedSessions1795270800000 } from './1795270800000-CreateEmbedSessions';
import { IndexEmbedSessionsByOrigin1795355000000 } from './1795355000000-IndexEmbedSessionsByOrigin';

/** The migrations of the tables this lib owns, in order; the CLI assembles every lib's list (apps/cli/src/migrations.ts). */
export const EMBED_SESSION_MIGRATIONS: MigrationConstructor[] = [CreateEmbedSessions1795270800000, IndexEmbedSessionsByOrigin1795355000000];
