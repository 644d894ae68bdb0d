// The queue stage: activeQ ordering, backoff math, the unschedulable pool, requeue hints.

export * from '../../machines/backoff.ts';
export * from './active-queue.ts';
export * from './requeue.ts';
export * from './unschedulable-pool.ts';
