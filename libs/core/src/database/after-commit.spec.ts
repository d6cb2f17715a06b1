import type { QueryRunner, TransactionCommitEvent, TransactionRollbackEvent } from 'typeorm';
import type { Tx } from './unit-of-work';
import { afterCommit, AfterCommitSubscriber } from './after-commit';

describe(afterCommit.name, () => {
  const sut = new AfterCommitSubscriber();
  const runner = (active: boolean) => ({ isTransactionActive: active, data: {} }) as unknown as QueryRunner;
  const manager = (queryRunner?: QueryRunner) => ({ queryRunner }) as unknown as Tx;
  const commit = (queryRunner: QueryRunner) => sut.afterTransactionCommit({ queryRunner } as TransactionCommitEvent);
  const rollback = (queryRunner: QueryRunner) => sut.afterTransactionRollback({ queryRunner } as TransactionRollbackEvent);

  it('runs what was registered once the transaction commits, in order, once', () => {
    const r = runner(true);
    const ran: number[] = [];
    afterCommit(manager(r), () => ran.push(1));
    afterCommit(manager(r), () => ran.push(2));
    expect(ran).toEqual([]);
    (r as { isTransactionActive: boolean }).isTransactionActive = false;
    commit(r);
    commit(r);
    expect(ran).toEqual([1, 2]);
  });

  it('waits for the outer commit: a savepoint released inside the transaction runs nothing', () => {
    const r = runner(true);
    const ran: number[] = [];
    afterCommit(manager(r), () => ran.push(1));
    commit(r);
    expect(ran).toEqual([]);
  });

  it('runs nothing when the transaction rolls back, and forgets it', () => {
    const r = runner(true);
    const ran: number[] = [];
    afterCommit(manager(r), () => ran.push(1));
    (r as { isTransactionActive: boolean }).isTransactionActive = false;
    rollback(r);
    commit(r);
    expect(ran).toEqual([]);
  });

  it('runs at once outside a transaction: the statement has committed already', () => {
    const ran: string[] = [];
    afterCommit(manager(), () => ran.push('no runner'));
    afterCommit(manager(runner(false)), () => ran.push('no transaction'));
    expect(ran).toEqual(['no runner', 'no transaction']);
  });
});
