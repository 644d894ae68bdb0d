// Pins the plain-object test every untrusted reader uses.
import { describe, expect, it } from 'vitest';
import { isRecord } from './record.ts';

describe('isRecord', () => {
  it.each([
    ['an object', { a: 1 }, true],
    ['an object without a prototype', Object.create(null), true],
    ['an array', [1], false],
    ['null', null, false],
    ['undefined', undefined, false],
    ['a string', 'x', false],
    ['a number', 1, false],
  ])('%s: %s', (_what, value, expected) => {
    expect(isRecord(value)).toBe(expected);
  });
});
