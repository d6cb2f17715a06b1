import { DataSource, EntityManager } from 'typeorm';

declare const TX: unique symbol;

/**
 * One database transaction as the domain sees it: a token, opaque. A repository's
 * `transaction(work)` opens one and hands it to `work`; services pass it on to the repository
 * methods (and hooks) that must run in it, and can do nothing else with it. Repositories hand it to
 * the raw-SQL helpers of this folder, the only code that opens it (`managerOf`) to run statements.
 * So the ORM's unit of work stays behind the repositories, and a service cannot reach around one
 * (docs/architecture.md, "Data access").
 *
 * At run time it is TypeORM's transactional EntityManager: wrapping costs nothing.
 */
export interface Tx {
  readonly [TX]: true;
}

/** The token for a transaction's manager (this folder only). */
export function txOf(manager: EntityManager): Tx {
  return manager as unknown as Tx;
}

/** The manager a token stands for, to run statements in its transaction (this folder's helpers only). */
export function managerOf(tx: Tx): EntityManager {
  return tx as unknown as EntityManager;
}

/** Runs `work` in a new transaction of `db`: committed when it resolves, rolled back when it throws. */
export function runInTransaction<T>(db: DataSource, work: (tx: Tx) => Promise<T>): Promise<T> {
  return db.transaction((manager) => work(txOf(manager)));
}
