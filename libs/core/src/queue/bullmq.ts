import type * as BullMQ from 'bullmq';

/**
 * BullMQ, loaded when a process first makes a queue or a worker, not when it imports core. With
 * its dependencies it is the largest package core names (about 280 modules, a tenth of a second
 * of CPU to load, docs/performance.md "Operator CLI"), and the CLI imports core on every call
 * without ever enqueueing. Types come from the `import type` above, at no cost.
 */
export function bullmq(): typeof BullMQ {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, as said above
  return require('bullmq') as typeof BullMQ;
}

/**
 * An error that makes BullMQ fail its job now, whatever attempts are left: for a handler that has
 * recorded the failure itself and must not be retried (BullMQ's UnrecoverableError).
 */
export function unrecoverableJobError(message: string): Error {
  return new (bullmq().UnrecoverableError)(message);
}
