import { runInTransaction, Tx } from '@app/core';
import { SceneOperationsService } from '@app/operations';
import { ScenesService } from '@app/scenes';
import { WebhooksModule } from '@app/webhooks';
import { existsSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { dirname, join } from 'node:path';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { createOrganization } from '../factories/organization.factory';
import { setUpServices } from '../support/services';
import { Fixtures } from './queries/examples';
import { EXAMPLES } from './queries';

// The same CommonJS module `npm run lint` uses.
const catalogue = require('../../scripts/repository-queries.js') as {
  ROOT: string;
  repositories(): { file: string; queries: string; name: string; methods: string[] }[];
  queriesFiles(): string[];
};

/**
 * Every statement reviewable (docs/architecture.md, "Every statement reviewable"): each lib's
 * `src/queries/*.sql` holds, method by method, the SQL its repositories send to PostgreSQL. This
 * runs every public method of every repository once (test/service/queries/<lib>.examples.ts), on a
 * data source whose connections record what they send, and fails when a file and the code
 * disagree. `npm run queries:write` writes the files instead.
 */
const WRITE = process.env.SS_WRITE_QUERIES === '1';
/** The transaction's own statements: every example runs in one, so they say nothing about the method. */
const TRANSACTION_CONTROL = /^(START TRANSACTION|BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE SAVEPOINT)\b/i;

let recording: string[] | null = null;

/** A node-postgres client that notes the text of every statement it sends while a method runs. */
class RecordingClient extends Client {
  override query(...args: unknown[]): never {
    const [first] = args;
    const text = typeof first === 'string' ? first : (first as { text?: string } | null)?.text;
    if (recording && typeof text === 'string') recording.push(text);
    return (super.query as (...a: unknown[]) => never)(...args);
  }
}

/** One statement as the file shows it: lines trimmed, continuation lines indented by two. */
function normalise(sql: string): string {
  const lines = sql
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  return `${lines.map((l, i) => (i === 0 ? l : `  ${l}`)).join('\n')};`;
}

function fileText(file: string, sections: { name: string; entries: [method: string, statements: string[]][] }[]): string {
  const out = [
    `-- The SQL the repositories of ${file} send to PostgreSQL, method by method, in the code's order`,
    '-- (values are the $n parameters). Written by test/service/repository-queries.service-spec.ts:',
    '-- run `npm run queries:write` after changing a repository; `npm test` fails while they disagree.',
  ];
  for (const { entries } of sections) {
    for (const [method, statements] of entries) {
      out.push('', `-- ${method}`);
      out.push(...(statements.length > 0 ? statements : ['-- (no statement of its own)']));
    }
  }
  return `${out.join('\n')}\n`;
}

describe('the SQL each repository runs, checked in beside it', () => {
  const suite = setUpServices({ imports: [WebhooksModule] });
  let db: DataSource;
  let fixtures: Fixtures;
  const repositories = catalogue.repositories();

  beforeAll(async () => {
    const served = suite.app.get(DataSource);
    db = await new DataSource({
      ...served.options,
      extra: { ...(served.options as { extra?: object }).extra, max: 2, Client: RecordingClient },
    } as typeof served.options).initialize();
    const org = await createOrganization(suite.app);
    const other = await createOrganization(suite.app);
    const created = await suite.app
      .get(SceneOperationsService)
      .create(org.organizationId, { key: randomUUID(), scope: 'POST /v1/scenes' }, { prompt: 'A harbour at dawn', externalRef: 'queries' });
    const scene = await suite.app.get(ScenesService).findByExternalRef(org.organizationId, 'queries');
    fixtures = {
      organizationId: org.organizationId,
      otherOrganizationId: other.organizationId,
      apiKeyId: org.keyId,
      sceneId: scene!.sceneId,
      operationId: created.value.operationId,
      now: new Date(),
    };
  });

  afterAll(async () => {
    await db?.destroy();
  });

  it('has examples for exactly the repositories the code has, and a file for each', () => {
    const names = repositories.map((r) => `${r.name} (${r.file})`).sort();
    const covered = Object.entries(EXAMPLES)
      .flatMap(([, list]) => list.map((e) => e.type.name))
      .map((n) => {
        const r = repositories.find((x) => x.name === n);
        return `${n} (${r?.file ?? 'no repository of that name'})`;
      })
      .sort();
    expect(covered).toEqual(names);
    const libsWithRepositories = [...new Set(repositories.map((r) => r.file.split('/')[1]))].sort();
    expect(Object.keys(EXAMPLES).sort()).toEqual(libsWithRepositories);
  });

  describe.each(Object.keys(EXAMPLES).sort())('libs/%s', (lib) => {
    it('runs the statements its queries files hold', async () => {
      const bySource = new Map<string, { name: string; entries: [string, string[]][] }[]>();
      for (const examples of EXAMPLES[lib]) {
        const repository = repositories.find((r) => r.name === examples.type.name)!;
        const repo = examples.make(db, fixtures);
        const sent = new Map<string, string[]>();
        const calls = examples.calls as Record<string, (repo: unknown, tx: Tx, f: Fixtures) => Promise<unknown>>;
        for (const [method, call] of Object.entries(calls)) {
          recording = [];
          try {
            await runInTransaction(db, (tx) => call(repo, tx, fixtures));
          } catch (e) {
            throw new Error(`${examples.type.name}.${method}: its example failed: ${(e as Error).message}`);
          } finally {
            const statements = [...new Set(recording.filter((s) => !TRANSACTION_CONTROL.test(s.trim())).map(normalise))];
            sent.set(method, statements);
            recording = null;
          }
        }
        // Every public method has run (the example's type also says so, but a cast could hide it).
        expect([...sent.keys()].sort()).toEqual([...repository.methods].sort());
        const sections = bySource.get(repository.queries) ?? [];
        sections.push({
          name: repository.name,
          entries: repository.methods.map((m): [string, string[]] => [`${repository.name}.${m}`, sent.get(m)!]),
        });
        bySource.set(repository.queries, sections);
      }
      const stale: string[] = [];
      for (const [queries, sections] of bySource) {
        const source = repositories.find((r) => r.queries === queries)!.file;
        // Sections in the source file's class order.
        const order = repositories.filter((r) => r.file === source).map((r) => r.name);
        sections.sort((a, b) => order.indexOf(a.name) - order.indexOf(b.name));
        const text = fileText(source, sections);
        const path = join(catalogue.ROOT, queries);
        if (WRITE) {
          mkdirSync(dirname(path), { recursive: true });
          writeFileSync(path, text);
        } else if (!existsSync(path) || readFileSync(path, 'utf8') !== text) {
          stale.push(queries);
        }
      }
      // A queries file whose repository is gone.
      for (const file of catalogue.queriesFiles().filter((f) => f.split('/')[1] === lib && !bySource.has(f))) {
        if (WRITE) unlinkSync(join(catalogue.ROOT, file));
        else stale.push(file);
      }
      if (stale.length > 0) {
        throw new Error(`Out of date with the code: ${stale.join(', ')}. Run \`npm run queries:write\` and review the difference.`);
      }
    });
  });
});
