// Run options: Go durations, flags over the config file over defaults, kube's timing rule.
import { describe, expect, it } from 'vitest';
import { CliError } from './errors.ts';
import {
  defaultRunOptions,
  normalizeBoolFlags,
  parseDuration,
  readRunOptions,
} from './run-options.ts';

describe('parseDuration', () => {
  it.each([
    ['15s', 15_000],
    ['500ms', 500],
    ['1m30s', 90_000],
    ['1.5h', 5_400_000],
    ['2s500ms', 2_500],
    ['0s', 0],
  ])('reads %s as %d ms', (text, ms) => {
    expect(parseDuration(text, '--x')).toBe(ms);
  });

  it.each(['15', 's', '', '10 s', '-3s', '1d', 'abc', '1s junk'])(
    'refuses %j naming the flag',
    (text) => {
      expect(() => parseDuration(text, '--leader-elect-retry-period')).toThrow(
        /--leader-elect-retry-period must be a duration/,
      );
    },
  );
});

describe('readRunOptions', () => {
  it('gives kube-scheduler’s election defaults and no plain HTTP without flags or file', () => {
    expect(readRunOptions({}, undefined)).toEqual(defaultRunOptions);
    expect(defaultRunOptions.metricsBindAddress).toBe('0');
    expect(defaultRunOptions.leaderElection).toMatchObject({
      enabled: true,
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
    });
  });

  it('reads the config file’s leaderElection and metricsBindAddress', () => {
    const o = readRunOptions(
      {},
      {
        schedulerName: 'berth',
        metricsBindAddress: '127.0.0.1:9000',
        leaderElection: {
          leaderElect: true,
          leaseDuration: '30s',
          renewDeadline: '20s',
          retryPeriod: '4s',
          resourceName: 'berth-ha',
          resourceNamespace: 'berth-system',
        },
      },
    );
    expect(o).toEqual({
      metricsBindAddress: '127.0.0.1:9000',
      leaderElection: {
        enabled: true,
        leaseDurationMs: 30_000,
        renewDeadlineMs: 20_000,
        retryPeriodMs: 4_000,
        resourceName: 'berth-ha',
        resourceNamespace: 'berth-system',
      },
    });
  });

  it('lets flags win over the file', () => {
    const o = readRunOptions(
      { 'leader-elect': 'false', 'metrics-bind-address': '0', 'leader-elect-resource-name': 'x' },
      { leaderElection: { leaderElect: true, resourceName: 'y' }, metricsBindAddress: ':1' },
    );
    expect(o.leaderElection.enabled).toBe(false);
    expect(o.leaderElection.resourceName).toBe('x');
    expect(o.metricsBindAddress).toBe('0');
  });

  it('accepts a bare number 0 for metricsBindAddress in the file', () => {
    expect(readRunOptions({}, { metricsBindAddress: 0 }).metricsBindAddress).toBe('0');
  });

  it('refuses unknown keys, at the top and in leaderElection', () => {
    expect(() => readRunOptions({}, { schedulerNmae: 'x' })).toThrow(/unknown key "schedulerNmae"/);
    expect(() => readRunOptions({}, { leaderElection: { leaseDurationSeconds: 15 } })).toThrow(
      /leaderElection has an unknown key "leaseDurationSeconds"/,
    );
    expect(() => readRunOptions({}, ['a'])).toThrow(CliError);
    expect(() => readRunOptions({}, { leaderElection: 'yes' })).toThrow(/must be a mapping/);
  });

  it('refuses a unit-less duration in the file, naming the key', () => {
    expect(() => readRunOptions({}, { leaderElection: { leaseDuration: 15 } })).toThrow(
      /config leaderElection.leaseDuration must be a string/,
    );
  });

  it('holds kube’s rule: lease > renew deadline > 1.2 × retry period', () => {
    expect(() =>
      readRunOptions(
        { 'leader-elect-lease-duration': '10s', 'leader-elect-renew-deadline': '10s' },
        undefined,
      ),
    ).toThrow(/lease-duration must be greater than --leader-elect-renew-deadline/);
    expect(() =>
      readRunOptions(
        { 'leader-elect-renew-deadline': '2s', 'leader-elect-retry-period': '2s' },
        undefined,
      ),
    ).toThrow(/renew-deadline must be greater than 1.2/);
    // Not checked when election is off: the timings are unused.
    expect(
      readRunOptions({ 'leader-elect': 'false', 'leader-elect-retry-period': '1h' }, undefined)
        .leaderElection.enabled,
    ).toBe(false);
  });

  it('refuses a zero duration and a bad lease name or boolean', () => {
    expect(() => readRunOptions({ 'leader-elect-retry-period': '0s' }, undefined)).toThrow(
      /must be positive/,
    );
    expect(() => readRunOptions({ 'leader-elect-resource-name': 'Bad_Name' }, undefined)).toThrow(
      /must be a Kubernetes object name/,
    );
    expect(() => readRunOptions({ 'leader-elect': 'maybe' }, undefined)).toThrow(
      /--leader-elect must be true or false/,
    );
  });
});

describe('normalizeBoolFlags', () => {
  it('turns a bare --leader-elect into --leader-elect=true and leaves the rest', () => {
    expect(normalizeBoolFlags(['--leader-elect', '--leader-elect=false', '--qps', '5'])).toEqual([
      '--leader-elect=true',
      '--leader-elect=false',
      '--qps',
      '5',
    ]);
  });
});
