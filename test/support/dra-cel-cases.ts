// Shared table machinery for the DRA CEL selector tests: a case, the device it describes, and running it.
import { expect } from 'vitest';
import type { DeviceAttribute, DeviceCapacity } from '../../src/model/dra-types.ts';
import { type CelDevice, compileDeviceSelector, matchesDevice } from '../../src/plugins/dra/cel.ts';

/** One table row: a selector, a device, and what kube reports. */
export interface Case {
  name: string;
  expression: string;
  driver?: string;
  attributes?: Record<string, DeviceAttribute>;
  capacity?: Record<string, DeviceCapacity>;
  allowMultipleAllocations?: boolean;
  /** A substring of the compile error. */
  compileError?: string;
  /** A substring of the evaluation error. */
  matchError?: string;
  match?: boolean;
}

/** The driver most cases use. */
export const drv = 'dra.example.com';

/** kube's 'expensive' case: seven nested comprehensions, ~10^7 steps. */
export const expensive = `[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(x, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(y, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z2, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z3, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z4, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z5, int('1'.find('[0-9]*')) < 100)))))))`;

/** The device a case describes. */
export function device(c: Case): CelDevice {
  return {
    driver: c.driver ?? '',
    attributes: c.attributes ?? {},
    capacity: c.capacity ?? {},
    ...(c.allowMultipleAllocations === undefined
      ? {}
      : { allowMultipleAllocations: c.allowMultipleAllocations }),
  };
}

/** Runs a case: compile, then evaluate, and compare with what kube reports. */
export function run(c: Case): void {
  const compiled = compileDeviceSelector(c.expression);
  if (c.compileError !== undefined) {
    expect(compiled).toEqual({ error: expect.stringContaining(c.compileError) });
    return;
  }
  if ('error' in compiled) throw new Error(`unexpected compile error: ${compiled.error}`);
  const result = matchesDevice(compiled, device(c));
  if (c.matchError !== undefined) {
    expect(result).toEqual({ error: expect.stringContaining(c.matchError) });
  } else {
    expect(result).toEqual({ matches: c.match });
  }
}
