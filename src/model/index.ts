// The model stage: wire shapes, object kinds, keys and the small tests every stage shares.

export * from './keys.ts';
export * from './kinds.ts';
export * from './kube-release.ts';
export type * from './objects.ts';
export * from './phase.ts';
export * from './record.ts';
