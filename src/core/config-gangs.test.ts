// Tests the `gangs` part of the configuration: its checks and what a fresh run records.
import { describe, expect, it } from 'vitest';
import { defaultConfig, withFreshRunDefaults } from './config.ts';
import { parseGangs } from './config-gangs.ts';

describe('config gangs', () => {
  it('keeps the switches it is given and refuses what is not a boolean', () => {
    expect(parseGangs(undefined)).toBeUndefined();
    expect(parseGangs({ kubeMemberMessages: false, search: true })).toEqual({
      scheduleTimeoutMs: 60_000,
      search: true,
      kubeMemberMessages: false,
    });
    expect(() => parseGangs({ kubeMemberMessages: 'yes' })).toThrow(
      'config gangs.kubeMemberMessages must be true or false',
    );
    expect(() => parseGangs({ scheduleTimeoutMs: -1 })).toThrow(/gangs.scheduleTimeoutMs/);
  });

  it("records kube's member messages, preemption and search as on in a fresh run unless switched off", () => {
    const { gangs: _omitted, ...noGangs } = defaultConfig;
    expect(withFreshRunDefaults(noGangs).gangs).toMatchObject({
      preemption: true,
      search: true,
      kubeMemberMessages: true,
    });
    const set = { ...defaultConfig, gangs: { scheduleTimeoutMs: 1_000 } };
    expect(withFreshRunDefaults(set).gangs?.kubeMemberMessages).toBe(true);
    const off = {
      ...defaultConfig,
      gangs: { scheduleTimeoutMs: 1_000, kubeMemberMessages: false },
    };
    expect(withFreshRunDefaults(off).gangs).toEqual({
      scheduleTimeoutMs: 1_000,
      preemption: true,
      search: true,
      kubeMemberMessages: false,
    });
  });
});
