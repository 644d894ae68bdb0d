// berth's public surface, stage by stage in the order events flow through them.
// biome-ignore-all assist/source/organizeImports: the exports follow the pipeline stages, not the alphabet

export * from './model/index.ts';
export * from './events/index.ts';
export * from './cluster/index.ts';
export * from './framework/index.ts';
export * as plugins from './plugins/index.ts';
export * from './queue/index.ts';
export * from '../machines/pod.machine.ts';
export * from '../machines/export.ts';
export * from './core/index.ts';
export * from './runtime/pipeline.ts';
export * from './runtime/replay.ts';
export * from './runtime/simulate.ts';
export * from './runtime/summary.ts';
export * from './runtime/virtual-clock.ts';
export * from './adapters/trim.ts';
export * from './adapters/sim/manifests.ts';
export * from './adapters/sim/sim-cluster.ts';
export * from './adapters/sim/workload.ts';
