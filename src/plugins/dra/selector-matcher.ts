// The allocator's CEL matcher: compiles each selector once (cel.ts caches it) and tells compile errors from runtime ones.
import type { SelectorMatcher } from './allocator/types.ts';
import { compileDeviceSelector, matchesDevice } from './cel.ts';

/** Evaluates a DRA selector with berth's CEL environment; never throws. */
export const celSelectorMatcher: SelectorMatcher = (expression, device) => {
  const compiled = compileDeviceSelector(expression);
  if ('error' in compiled) return { error: compiled.error, compileError: true };
  return matchesDevice(compiled, device);
};
