// Tests that observeAll hands every callback to each observer, even when one throws.
import { describe, expect, it } from 'vitest';
import type { LiveObserver } from '../events/observer.ts';
import type { Envelope } from '../events/types.ts';
import { observeAll } from './observers.ts';

describe('observeAll', () => {
  it('calls every observer in order, and rethrows the first error after all have run', () => {
    const seen: string[] = [];
    const failing: LiveObserver = {
      envelope: () => {
        seen.push('a envelope');
        throw new Error('a broke');
      },
      leading: (l) => seen.push(`a leading ${l}`),
    };
    const counting: LiveObserver = {
      envelope: (env) => seen.push(`b envelope ${env.seq}`),
      cycle: (d, s) => seen.push(`b cycle ${d.length} ${s}`),
    };
    const both = observeAll(failing, counting);
    const env: Envelope = { seq: 7, time: 0, event: { type: 'TimerFired', timer: 'flush' } };
    expect(() => both.envelope?.(env)).toThrow('a broke');
    both.cycle?.([], 0.5);
    both.leading?.(true);
    expect(seen).toEqual(['a envelope', 'b envelope 7', 'b cycle 0 0.5', 'a leading true']);
  });
});
