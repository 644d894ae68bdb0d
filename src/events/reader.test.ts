// Pins the log format: round trip, corrupt lines reported by number, truncated tails tolerated.
import { describe, expect, it } from 'vitest';
import { decisionText } from './digest.ts';
import { logFormatVersion } from './log-format.ts';
import { LogError, parseLog } from './reader.ts';
import { Recorder } from './recorder.ts';
import type { Envelope, PodReserved } from './types.ts';

const header = {
  kind: 'header' as const,
  format: logFormatVersion,
  berthVersion: 't',
  seed: 7,
  config: {},
};

function record(envelopes: Envelope[], close = true): { text: string; digest: string } {
  const lines: string[] = [];
  const recorder = new Recorder((l) => lines.push(l), header);
  for (const env of envelopes) recorder.record(env);
  const digest = close ? recorder.close() : '';
  return { text: lines.map((l) => `${l}\n`).join(''), digest };
}

const sample: Envelope[] = [
  { seq: 1, time: 0, event: { type: 'NodeDeleted', name: 'n1' } },
  {
    seq: 2,
    time: 5,
    event: { type: 'PodReserved', uid: 'u-a', key: 'default/a', attempt: 1, node: 'n2' },
  },
  {
    seq: 3,
    time: 9,
    event: {
      type: 'PodUnschedulable',
      uid: 'u-b',
      key: 'default/b',
      attempt: 3,
      message: '0/1 nodes are available.',
    },
  },
];

describe('log format', () => {
  it('reads back what the recorder wrote, with the digest of its decisions', () => {
    const { text, digest } = record(sample);
    const log = parseLog(text);
    expect(log.header.seed).toBe(7);
    expect(log.envelopes).toEqual(sample);
    expect(log.digest).toMatchObject({ kind: 'digest', decisions: 2, digest });
    expect(log.digest?.logDigest).toBe(log.linesDigest);
    expect(log.warnings).toEqual([]);
  });

  it('gives different digests for different decisions', () => {
    const other = structuredClone(sample);
    (other[1] as Envelope<PodReserved>).event.node = 'n3';
    expect(record(other).digest).not.toBe(record(sample).digest);
    expect(
      decisionText({ type: 'PodReserved', uid: 'u1', key: 'a/b', attempt: 2, node: 'n' }),
    ).toBe('reserved a/b u1 #2 n');
  });

  it.each<[string, Partial<PodReserved>]>([
    ['the uid', { uid: 'u-other' }],
    ['the attempt', { attempt: 2 }],
  ])('gives different digests for decisions that differ only in %s', (_name, change) => {
    const other = structuredClone(sample);
    Object.assign((other[1] as Envelope<PodReserved>).event, change);
    expect(record(other).digest).not.toBe(record(sample).digest);
  });

  it('reports a corrupt line in the middle by its line number', () => {
    const lines = record(sample).text.split('\n');
    lines[2] = '{"seq": 2, "time": 5, "event": ';
    expect(() => parseLog(lines.join('\n'))).toThrowError(new LogError(3, 'not valid JSON'));
  });

  it('replays the complete prefix when the last line was cut mid-write', () => {
    const { text } = record(sample, false);
    const cut = text.slice(0, text.length - 12);
    const log = parseLog(cut);
    expect(log.envelopes).toEqual(sample.slice(0, 2));
    expect(log.digest).toBeUndefined();
    expect(log.warnings[0]).toMatch(/^line 4: truncated last line dropped/);
  });

  it.each([
    ['an empty file', '', 1, 'the log is empty'],
    ['a log without header', '{"seq":1}\n', 1, 'the first line is not a berth log header'],
    [
      'an unknown event type',
      `${JSON.stringify(header)}\n{"seq":1,"time":0,"event":{"type":"Nope"}}\n`,
      2,
      'unknown event type "Nope"',
    ],
    [
      'a sequence going backwards',
      `${JSON.stringify(header)}\n${[sample[0], sample[1], sample[0]].map((e) => JSON.stringify(e)).join('\n')}\n`,
      4,
      'seq 1 does not follow 2',
    ],
    [
      'a sequence with a gap',
      `${JSON.stringify(header)}\n${JSON.stringify(sample[0])}\n${JSON.stringify(sample[2])}\n`,
      3,
      'seq 3 does not follow 1: expected 2 (an event is missing or moved)',
    ],
    [
      'a log that does not start at seq 1',
      `${JSON.stringify(header)}\n${JSON.stringify(sample[1])}\n`,
      2,
      'seq 2 does not follow 0: expected 1 (an event is missing or moved)',
    ],
    [
      'a bind result whose HTTP code is not a number',
      `${JSON.stringify(header)}\n{"seq":1,"time":0,"event":{"type":"BindFailed","uid":"u","key":"ns/p","attempt":1,"node":"n","reason":"Error","message":"m","code":"403"}}\n`,
      2,
      'BindFailed has "code" "403", not an HTTP status code',
    ],
    [
      'a future format',
      `${JSON.stringify({ ...header, format: 99 })}\n`,
      1,
      `unsupported log format 99: this berth reads formats 2–${logFormatVersion}.`,
    ],
  ])('rejects %s', (_name, text, line, message) => {
    expect(() => parseLog(text)).toThrowError(new LogError(line, message));
  });

  it('refuses a format 1 log with a message naming both formats and the berth that wrote it', () => {
    const old = `${JSON.stringify({ ...header, format: 1, berthVersion: '0.0.9' })}\n`;
    expect(() => parseLog(old)).toThrowError(
      /^line 1: unsupported log format 1: this berth reads formats 2–7\. .*namespace\/name.*0\.0\.9/,
    );
  });

  it('reads every event type of protocol v2', () => {
    const ref = { uid: 'u', key: 'd/p' };
    const at = { ...ref, attempt: 1 };
    const events: Envelope['event'][] = [
      { type: 'PodDeleted', ...ref },
      { type: 'BindRequested', ...at, node: 'n' },
      { type: 'BindSucceeded', ...at, node: 'n' },
      { type: 'BindRequested', ...at, attempt: 2, node: 'n' },
      { type: 'BindFailed', ...at, attempt: 2, node: 'n', reason: 'Conflict', message: 'm' },
      { type: 'BindRequested', ...at, attempt: 3, node: 'n' },
      {
        type: 'BindFailed',
        ...at,
        attempt: 3,
        node: 'n',
        reason: 'Error',
        message: 'm',
        code: 403,
      },
      { type: 'TimerFired', timer: 'backoff', ...ref },
      { type: 'TimerFired', timer: 'flush' },
      { type: 'PodWaiting', ...at, node: 'n', timeoutMs: 5 },
      { type: 'PodUnreserved', ...at, node: 'n', reason: 'r' },
      { type: 'CycleFailed', ...at, plugin: 'P', message: 'm' },
    ];
    const envelopes = events.map((event, i) => ({ seq: i + 1, time: i, event }));
    const log = parseLog(record(envelopes).text);
    expect(log.envelopes).toEqual(envelopes);
    expect(log.digest?.decisions).toBe(6);
  });
});
