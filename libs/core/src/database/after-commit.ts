import { EntitySubscriberInterface, EventSubscriber, QueryRunner, TransactionCommitEvent, TransactionRollbackEvent } from 'typeorm';
import { managerOf, Tx } from './unit-of-work';

/** Where a transaction keeps what is to run once it commits (its query runner's own data slot). */
const PENDING = Symbol('afterCommit');

type Pending = Array<() => void>;

function pendingOf(runner: QueryRunner): Pending | undefined {
  return (runner.data as Record<symbol, Pending | undefined>)[PENDING];
}

/**
 * Runs `fn` once the transaction `tx` belongs to has committed, and never when it rolls back:
 * for news of a change that must not go out before the change is visible to readers (a
 * broadcast after a commit), from code that runs inside a transaction it did not open (a
 * deletion hook). Given a manager that is not in a transaction, the statement it ran has
 * committed already: `fn` runs at once. `fn` runs synchronously after COMMIT returns and must
 * not throw; what it starts (a publish) is not awaited by the committing caller. Not for code
 * inside a savepoint (no code here nests transactions): what it registered would run at the
 * outer commit even if the savepoint rolled back.
 */
export function afterCommit(tx: Tx, fn: () => void): void {
  const runner = managerOf(tx).queryRunner;
  if (!runner || !runner.isTransactionActive) return fn();
  const data = runner.data as Record<symbol, Pending | undefined>;
  (data[PENDING] ??= []).push(fn);
}

/**
 * TypeORM's transaction events, which `afterCommit` rides on: registered with every data source
 * (databaseOptions). A savepoint's release also says "commit"; only the outer COMMIT, after which
 * the runner has no transaction, runs what was waiting.
 */
@EventSubscriber()
export class AfterCommitSubscriber implements EntitySubscriberInterface {
  afterTransactionCommit({ queryRunner }: TransactionCommitEvent): void {
    if (queryRunner.isTransactionActive) return;
    const pending = pendingOf(queryRunner);
    if (!pending) return;
    delete (queryRunner.data as Record<symbol, Pending | undefined>)[PENDING];
    for (const fn of pending) fn();
  }

  afterTransactionRollback({ queryRunner }: TransactionRollbackEvent): void {
    if (queryRunner.isTransactionActive) return;
    delete (queryRunner.data as Record<symbol, Pending | undefined>)[PENDING];
  }
}
