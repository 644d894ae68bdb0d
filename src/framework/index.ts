// The framework stage: plugin interfaces, the seeded rng, and the filter → score → select cycle.
export * from './cycle.ts';
export * from './cycle-recorder.ts';
export * from './explain.ts';
export * from './explain-pod.ts';
export * from './explain-trace.ts';
export * from './hints.ts';
export * from './prioritize-nodes.ts';
export * from './rng.ts';
export * from './sampling.ts';
export * from './select-host.ts';
export * from './types.ts';
