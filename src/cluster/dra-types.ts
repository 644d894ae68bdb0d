// The DRA object types, re-exported where the cluster stage's readers look for them (they live in src/model: events carry allocations).
export type * from '../model/dra-types.ts';
