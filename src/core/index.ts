// The deterministic core: configuration, ports, pod machines' host, and the Scheduler.
export * from './config.ts';
export * from './pod-actors.ts';
export * from './ports.ts';
export * from './scheduler.ts';
