// RoundRobin: names in turn, wrapping, refusing an empty list.
import { describe, expect, it } from 'vitest';
import { RoundRobin } from './round-robin.ts';

describe('RoundRobin', () => {
  it('hands out the names in turn and wraps at the end', () => {
    const rr = new RoundRobin(['a', 'b', 'c']);
    expect(Array.from({ length: 7 }, () => rr.take())).toEqual(['a', 'b', 'c', 'a', 'b', 'c', 'a']);
  });

  it('refuses an empty list', () => {
    expect(() => new RoundRobin([])).toThrow(RangeError);
  });
});
