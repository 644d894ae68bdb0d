// propertySeed: FC_SEED replays, CI pins, local runs explore.
import { describe, expect, it } from 'vitest';
import { propertySeed } from './property-seed.ts';

const clock = () => 2 ** 31 + 1234;

describe('propertySeed', () => {
  it('replays FC_SEED whatever CI says', () => {
    expect(propertySeed(7, { FC_SEED: '42', CI: 'true' }, clock)).toEqual({
      seed: 42,
      source: 'FC_SEED',
    });
  });

  it('pins the file seed under CI', () => {
    expect(propertySeed(7, { CI: 'true' }, clock)).toEqual({ seed: 7, source: 'CI' });
    expect(propertySeed(7, { CI: '1' }, clock)).toEqual({ seed: 7, source: 'CI' });
  });

  it('takes the clock outside CI, and when CI is false, 0 or empty', () => {
    for (const env of [{}, { CI: 'false' }, { CI: '0' }, { CI: '' }, { FC_SEED: '' }]) {
      expect(propertySeed(7, env, clock)).toEqual({ seed: 1234, source: 'clock' });
    }
  });

  it('refuses an FC_SEED that is not an integer', () => {
    expect(() => propertySeed(7, { FC_SEED: 'abc' }, clock)).toThrow(
      "FC_SEED must be an integer, got 'abc'",
    );
    expect(() => propertySeed(7, { FC_SEED: '1.5' }, clock)).toThrow(/integer/);
  });
});
