import { Tx } from '@app/core';
import { DataSource } from 'typeorm';

/**
 * What every example may use: rows the suite made through the domain services before the first
 * example ran (an organization with a scene being generated and its creation operation, another
 * organization), and the time the suite started. Anything else an example needs it makes itself,
 * through the repositories, in an earlier example of the same lib.
 */
export interface Fixtures {
  organizationId: string;
  otherOrganizationId: string;
  apiKeyId: string;
  sceneId: string;
  /** The scene's creation operation (processing). */
  operationId: string;
  now: Date;
}

/** The names of R's public methods (TypeScript leaves private and protected members out of `keyof`). */
type MethodNames<R> = { [K in keyof R]: R[K] extends (...args: never[]) => unknown ? K : never }[keyof R];

/** One repository class's examples. */
export interface RepositoryExamples<R> {
  /** The class, for its name (the queries file's headers) and nothing else. */
  type: abstract new (...args: never[]) => R;
  /** An instance on the recording data source. */
  make(db: DataSource, f: Fixtures): R;
  /**
   * One call for every public method (the type refuses a missing one), run in this order, each in
   * a transaction of its own that commits (`tx`): later calls may use what earlier ones wrote. What
   * each call sends to PostgreSQL, but the transaction's own BEGIN and COMMIT, is its entry.
   */
  calls: { [K in MethodNames<R>]: (repo: R, tx: Tx, f: Fixtures) => Promise<unknown> };
}

/** Typed by the repository class, so `calls` must name every public method of it. */
export function examplesOf<R>(examples: RepositoryExamples<R>): RepositoryExamples<unknown> {
  return examples as unknown as RepositoryExamples<unknown>;
}
