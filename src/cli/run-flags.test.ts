// Tests `berth run`'s flag reading: defaults, the reports' budget following --qps, and the usage errors.
import { describe, expect, it } from 'vitest';
import { CliError } from './errors.ts';
import { readRunFlags, startingFields } from './run-flags.ts';

/** The CliError `argv` is refused with (message and exit code), or 'accepted'. */
function refusal(argv: string[]): { message: string; code: number } | 'accepted' {
  try {
    readRunFlags(argv);
    return 'accepted';
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    return { message: error.message, code: error.exitCode };
  }
}

describe('readRunFlags', () => {
  it('defaults: info logs, 50 qps / 100 burst for binds and for reports, seed 1, no recording', () => {
    const flags = readRunFlags([]);
    expect(flags).toMatchObject({
      level: 'info',
      qps: 50,
      burst: 100,
      eventsQps: 50,
      eventsBurst: 100,
      seed: 1,
      record: undefined,
      recordKey: undefined,
      segments: undefined,
    });
    expect(flags.config.schedulerName).toBe('berth');
    expect(flags.options.leaderElection.enabled).toBe(true);
    // HTTPS serving is on by default, with a self-signed certificate.
    expect(flags.tls?.cert).toMatch(/^-----BEGIN CERTIFICATE-----/);
  });

  it("gives reports a budget that follows --qps/--burst unless set, as kube-scheduler's event client", () => {
    expect(readRunFlags(['--qps', '7', '--burst', '9'])).toMatchObject({
      eventsQps: 7,
      eventsBurst: 9,
    });
    expect(readRunFlags(['--qps', '7', '--events-qps', '3'])).toMatchObject({
      qps: 7,
      eventsQps: 3,
    });
  });

  it('reads segments with --record DIR', () => {
    expect(
      readRunFlags([
        '--record',
        '/tmp/rec',
        '--record-segment-size',
        '1Mi',
        '--record-retain',
        '3',
      ]),
    ).toMatchObject({ record: '/tmp/rec', segments: { maxBytes: 1024 * 1024, retain: 3 } });
  });

  it.each([
    [['--log-level', 'loud'], '--log-level must be one of fatal, error, warn, info, debug, trace'],
    [
      ['--record-segment-size', '1Mi'],
      '--record-segment-size needs --record DIR (the segments go there)',
    ],
    [
      ['--record', 'x.jsonl', '--record-retain', '2'],
      '--record-retain needs --record-segment-size',
    ],
    [['--record-key', 'k'], '--record-key needs --record LOG (it seals the recording)'],
  ])('refuses %j with a usage error', (argv, message) => {
    expect(refusal(argv)).toEqual({ message, code: 2 });
  });
});

describe('startingFields', () => {
  it('names the lease with election on, says false with it off, and never the record key', () => {
    const on = startingFields(readRunFlags([]), 'https://api', 'me');
    expect(on).toMatchObject({
      server: 'https://api',
      record: null,
      recordSeal: null,
      profiles: ['berth'],
      leaderElection: { identity: 'me', lease: 'kube-system/berth' },
    });
    const off = startingFields(readRunFlags(['--leader-elect=false']), 'https://api', 'me');
    expect(off.leaderElection).toBe(false);
  });
});
