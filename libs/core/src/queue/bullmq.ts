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
