// Pins the seal: a chained HMAC per line that names the first forged, moved, added or cut line.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type LogHeader, logFormatVersion } from './log-format.ts';
import { LogError, parseLog } from './reader.ts';
import { Recorder } from './recorder.ts';
import { genesisMac, keyIdOf, type SealKey, sealKey, splitSealed } from './seal.ts';
import type { Envelope } from './types.ts';

const key = sealKey(Buffer.from('k'.repeat(32)));
const otherKey = sealKey(Buffer.from('o'.repeat(40)));

const seed = 7;
const header: LogHeader = {
  kind: 'header',
  format: logFormatVersion,
  berthVersion: 's',
  seed,
  config: {},
};

/** A pod's reference in the sample's decisions. */
const podA = { uid: 'u-a', key: 'default/a', attempt: 1, node: 'n2' };

const sample: Envelope[] = [
  { seq: 1, time: 0, event: { type: 'NodeDeleted', name: 'n1' } },
  { seq: 2, time: 5, event: { type: 'PodReserved', ...podA } },
  { seq: 3, time: 6, event: { type: 'BindRequested', ...podA } },
  { seq: 4, time: 9, event: { type: 'NodeDeleted', name: 'n3' } },
];

/** The lines a recorder writes for `sample`, sealed with `with` (or not). */
function recorded(with_: SealKey | undefined, close = true): string[] {
  const lines: string[] = [];
  const recorder = new Recorder((l) => lines.push(l), header, with_);
  for (const env of sample) recorder.record(env);
  if (close) recorder.close();
  return lines;
}

const text = (lines: readonly string[]) => lines.map((l) => `${l}\n`).join('');

function refusal(lines: readonly string[], given: SealKey | undefined = key): LogError {
  try {
    parseLog(text(lines), given);
  } catch (error) {
    if (error instanceof LogError) return error;
    throw error;
  }
  throw new Error('the log was accepted');
}

/** Recomputes every MAC after an edit, as someone with the key (and only they) could. */
function resealed(lines: readonly string[], with_: SealKey): string[] {
  let prev = genesisMac;
  return lines.map((line) => {
    const body = splitSealed(line)?.body ?? line;
    prev = createHmac('sha256', with_.bytes).update(prev).update(body).digest('hex');
    return `${body.slice(0, -1)},"mac":"${prev}"}`;
  });
}

describe('a sealed log', () => {
  it('names the key by id in its header, never the key, and reads back with the key', () => {
    const lines = recorded(key);
    expect(JSON.parse(lines[0] as string).seal).toEqual({
      alg: 'HMAC-SHA-256',
      keyId: keyIdOf(key.bytes),
    });
    expect(lines.join('\n')).not.toContain('k'.repeat(32));
    const log = parseLog(text(lines), key);
    expect(log.envelopes).toEqual(sample);
    expect(log.seal).toMatchObject({ verified: true, info: { keyId: key.id } });
    expect(log.digest?.logDigest).toBe(log.linesDigest);
  });

  it('reads back without the key, its seal not verified', () => {
    const log = parseLog(text(recorded(key)));
    expect(log.envelopes).toEqual(sample);
    expect(log.seal).toMatchObject({ verified: false, info: { keyId: key.id } });
  });

  it('is the same log as an unsealed one but for the seal', () => {
    const plain = parseLog(text(recorded(undefined)));
    expect(plain.seal).toEqual({ info: undefined, verified: false, lastMac: undefined });
    expect(parseLog(text(recorded(key)), key).envelopes).toEqual(plain.envelopes);
  });
});

describe('a sealed log is refused with the key, naming the first bad line', () => {
  const forgedPlacement = (lines: string[]) => {
    lines[2] = (lines[2] as string).replace('"node":"n2"', '"node":"n9"');
    lines[3] = (lines[3] as string).replace('"node":"n2"', '"node":"n9"');
    return lines;
  };
  it.each<[string, (lines: string[]) => string[], number, RegExp]>([
    ['a forged placement', forgedPlacement, 3, /seal does not verify/],
    ['a deleted line', (l) => l.filter((_, i) => i !== 2), 3, /line before it was removed/],
    ['two lines swapped', (l) => [l[0], l[1], l[3], l[2], ...l.slice(4)] as string[], 3, /moved/],
    [
      'an inserted copy of a line',
      (l) => [...l.slice(0, 3), l[2], ...l.slice(3)] as string[],
      4,
      /seal/,
    ],
    [
      'a line without its MAC',
      (l) => l.map((x, i) => (i === 4 ? (splitSealed(x)?.body ?? x) : x)),
      5,
      /no seal \("mac"\), but the log is sealed/,
    ],
    [
      'a changed header',
      (l) => [(l[0] as string).replace('"seed":7', '"seed":8'), ...l.slice(1)],
      1,
      /seal does not verify/,
    ],
  ])('%s', (_, tamper, line, why) => {
    const error = refusal(tamper(recorded(key)));
    expect(error.line).toBe(line);
    expect(error.message).toMatch(why);
  });

  it('a forgery resealed with another key: sealed with key id X, given key id Y', () => {
    const forged = resealed(
      recorded(key).map((l, i) => (i === 0 ? l.replace(key.id, otherKey.id) : l)),
      otherKey,
    );
    expect(parseLog(text(forged), otherKey).seal.verified).toBe(true);
    const error = refusal(forged);
    expect(error.line).toBe(1);
    expect(error.message).toContain(`sealed with key id ${otherKey.id}, given key id ${key.id}`);
  });

  it('an unsealed log (or one whose seal was stripped) given a key', () => {
    const stripped = recorded(key).map((l) => {
      const body = splitSealed(l)?.body ?? l;
      const value = JSON.parse(body);
      delete value.seal;
      return JSON.stringify(value);
    });
    for (const lines of [recorded(undefined), stripped]) {
      const error = refusal(lines);
      expect(error.line).toBe(1);
      expect(error.message).toMatch(/not sealed, but a key \(id \w+\) was given/);
    }
  });
});

describe('a sealed log cut short', () => {
  it('keeps a verified prefix and warns that it has no closing line', () => {
    const log = parseLog(text(recorded(key).slice(0, 4)), key);
    expect(log.closing).toBeUndefined();
    expect(log.seal.verified).toBe(true);
    expect(log.warnings).toEqual(['no closing digest: the recording did not end cleanly']);
  });

  it('drops a last line cut inside its MAC, as a crash leaves it', () => {
    const lines = recorded(key);
    const cut = `${text(lines.slice(0, 4))}${(lines[4] as string).slice(0, -20)}`;
    const log = parseLog(cut, key);
    expect(log.envelopes).toHaveLength(3);
    expect(log.warnings[0]).toMatch(/^line 5: truncated last line dropped/);
  });
});

describe('sealing keys', () => {
  it('refuses a key shorter than 32 bytes', () => {
    expect(() => sealKey(Buffer.alloc(31))).toThrow(/at least 32 bytes, this one has 31/);
  });
  it('names a key by the first 8 hex digits of its SHA-256', () => {
    expect(keyIdOf(Buffer.from('k'.repeat(32)))).toMatch(/^[0-9a-f]{8}$/);
    expect(key.id).not.toBe(otherKey.id);
  });
});
