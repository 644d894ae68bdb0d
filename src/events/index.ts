// The events stage: vocabulary, log format, recorder, reader and digest.
export * from './digest.ts';
export * from './log-format.ts';
export * from './reader.ts';
export * from './recorder.ts';
export * from './types.ts';
