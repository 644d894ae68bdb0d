// The deterministic core: configuration, the commands it returns, the pod machines' host, and the Scheduler loop.
export * from './commands.ts';
export * from './config.ts';
export * from './pod-actors.ts';
export * from './ports.ts';
export * from './scheduler.ts';
