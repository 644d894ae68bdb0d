// Pins which pod phases are terminal.
import { describe, expect, it } from 'vitest';
import { isTerminal } from './phase.ts';

describe('isTerminal', () => {
  it.each([
    ['Succeeded', true],
    ['Failed', true],
    ['Pending', false],
    ['Running', false],
    ['Unknown', false],
    [undefined, false],
    [3, false],
  ])('phase %j is terminal: %s', (phase, terminal) => {
    expect(isTerminal(phase)).toBe(terminal);
  });
});
