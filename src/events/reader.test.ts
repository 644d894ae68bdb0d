// Pins the log format: round trip, corrupt lines reported by number, truncated tails tolerated.
import { describe, expect, it } from 'vitest';
import { decisionText } from './digest.ts';
import { logFormatVersion } from './log-format.ts';
import { LogError, parseLog } from './reader.ts';
import { Recorder } from './recorder.ts';
import type { Envelope } from './types.ts';

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
  { seq: 2, time: 5, event: { type: 'PodAssumed', key: 'default/a', node: 'n2' } },
  {
    seq: 3,
    time: 9,
    event: { type: 'PodUnschedulable', key: 'default/b', message: '0/1 nodes are available.' },
  },
];

describe('log format', () => {
  it('reads back what the recorder wrote, with the digest of its decisions', () => {
    const { text, digest } = record(sample);
    const log = parseLog(text);
    expect(log.header.seed).toBe(7);
    expect(log.envelopes).toEqual(sample);
    expect(log.digest).toEqual({ kind: 'digest', decisions: 2, digest });
    expect(log.warnings).toEqual([]);
  });

  it('gives different digests for different decisions', () => {
    const other = structuredClone(sample);
    (other[1] as Envelope<{ type: 'PodAssumed'; key: string; node: string }>).event.node = 'n3';
    expect(record(other).digest).not.toBe(record(sample).digest);
    expect(decisionText({ type: 'PodAssumed', key: 'a/b', node: 'n' })).toBe('assumed a/b n');
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
      `${JSON.stringify(header)}\n${JSON.stringify(sample[1])}\n${JSON.stringify(sample[0])}\n`,
      3,
      'seq 1 does not follow 2',
    ],
    [
      'a future format',
      `${JSON.stringify({ ...header, format: 99 })}\n`,
      1,
      `unsupported log format 99 (this berth reads ${logFormatVersion})`,
    ],
  ])('rejects %s', (_name, text, line, message) => {
    expect(() => parseLog(text)).toThrowError(new LogError(line, message));
  });
});
