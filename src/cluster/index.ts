// The cluster stage: object shapes, parsing (quantities, requests, pods, nodes) and the reducer.

export * from './constraints.ts';
export { checkClusterInvariants } from './invariants.ts';
export * from './node-info.ts';
export * from './pod-fields.ts';
export * from './pod-info.ts';
export * from './quantity.ts';
export * from './reducer.ts';
export * from './requests.ts';
export * from './resources.ts';
export type * from './types.ts';
