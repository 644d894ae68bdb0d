// Forged and cut-short logs through the real command: refused with a key, never passed silently.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { DecisionDigest } from '../../src/events/digest.ts';
import { type DecisionEvent, isDecision } from '../../src/events/types.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'berth-seal-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
writeFileSync(join(work, 'key'), `${'s'.repeat(40)}\n`);
writeFileSync(join(work, 'other-key'), 'o'.repeat(32));

function berth(...args: string[]) {
  const r = spawnSync(process.execPath, [join(root, 'bin/berth.js'), ...args], {
    encoding: 'utf8',
    cwd: work,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A simulated run recorded to `name` (sealed with `key` when given). */
function recordRun(name: string, ...flags: string[]): string[] {
  const r = berth(
    'simulate',
    '--nodes',
    '4',
    '--pods',
    '24',
    '--seed',
    '5',
    '--record',
    name,
    ...flags,
  );
  expect(r.code, r.stderr).toBe(0);
  return readFileSync(join(work, name), 'utf8').trimEnd().split('\n');
}

/** How a sealed line ends (docs/log-format.md), written out here independently of berth. */
const macSuffix = /,"mac":"[0-9a-f]{64}"\}$/;

/**
 * The forgery of issue 33: nodes `a` and `b` swap names on every line, so every pod placed on
 * one is recorded on the other and the core, replaying, decides the same; then the closing
 * line's count, decision digest and logDigest are recomputed (plain SHA-256, as anyone can).
 * A sealed line keeps its old MAC: without the key no one can make a new one.
 */
function forgeSwap(lines: readonly string[], a: string, b: string): string[] {
  const swapped = lines
    .slice(0, -1)
    .map((line) =>
      line
        .replaceAll(`"${a}"`, '"\u0000"')
        .replaceAll(`"${b}"`, `"${a}"`)
        .replaceAll('"\u0000"', `"${b}"`),
    );
  const digest = new DecisionDigest();
  for (const line of swapped) {
    const value = JSON.parse(line.replace(macSuffix, '}'));
    if (value.event !== undefined && isDecision(value.event))
      digest.add(value.event as DecisionEvent);
  }
  const logDigest = createHash('sha256')
    .update(swapped.map((l) => `${l}\n`).join(''))
    .digest('hex');
  const closing = lines.at(-1) as string;
  const end = JSON.stringify({
    kind: 'digest',
    decisions: digest.count,
    digest: digest.hex(),
    logDigest,
  });
  return [
    ...swapped,
    macSuffix.test(closing) ? end.replace(/\}$/, closing.match(macSuffix)?.[0] ?? '}') : end,
  ];
}

function write(name: string, lines: readonly string[], tail = '\n'): string {
  writeFileSync(join(work, name), `${lines.join('\n')}${tail}`);
  return name;
}

/** 1-based number of the first line that differs between two logs. */
const firstDifference = (x: readonly string[], y: readonly string[]) =>
  x.findIndex((l, i) => l !== y[i]) + 1;

describe('a forged placement with recomputed digests', () => {
  const plain = recordRun('plain.jsonl');
  const forgedPlain = forgeSwap(plain, 'node-0', 'node-1');

  it('replays to its recorded decisions: digests alone cannot tell', () => {
    expect(forgedPlain).not.toEqual(plain);
    const r = berth('replay', write('forged-plain.jsonl', forgedPlain), '--allow-unsealed');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Digest matches the recording.');
    expect(r.stdout).toContain(
      'integrity: digests protect against accidents, not forgery (log not sealed)',
    );
  });

  it('is not passed without --allow-unsealed: the log is not sealed', () => {
    const r = berth('replay', 'forged-plain.jsonl');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^berth: forged-plain\.jsonl: the log is not sealed/m);
  });

  it('is refused when a key was used, naming the line', () => {
    const sealed = recordRun('sealed.jsonl', '--record-key', 'key');
    expect(berth('replay', 'sealed.jsonl', '--record-key', 'key').code).toBe(0);
    const forged = forgeSwap(sealed, 'node-0', 'node-1');
    const line = firstDifference(forged, sealed);
    expect(line).toBeGreaterThan(1);
    const r = berth('replay', write('forged-sealed.jsonl', forged), '--record-key', 'key');
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe(
      `berth: forged-sealed.jsonl: line ${line}: the seal does not verify (key id ${JSON.parse(sealed[0] as string).seal.keyId}): this line was changed, or a line before it was removed, added or moved`,
    );
    const explained = berth(
      'explain',
      'default/pod-03',
      '--log',
      'forged-sealed.jsonl',
      '--record-key',
      'key',
    );
    expect(explained.code).toBe(1);
    expect(explained.stdout).toBe('');
    expect(explained.stderr).toContain(
      `forged-sealed.jsonl: line ${line}: the seal does not verify`,
    );
  });

  it('is refused with another key: sealed with key id X, given key id Y', () => {
    const r = berth('replay', 'sealed.jsonl', '--record-key', 'other-key');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /sealed\.jsonl: line 1: sealed with key id [0-9a-f]{8}, given key id [0-9a-f]{8}$/m,
    );
  });
});

describe('a log whose closing digest line is missing or cut short', () => {
  const lines = recordRun('whole.jsonl');
  it.each([
    ['missing', () => write('no-digest.jsonl', lines.slice(0, -1)), lines.length - 1],
    [
      'cut short',
      () =>
        write(
          'cut-digest.jsonl',
          [...lines.slice(0, -1), (lines.at(-1) as string).slice(0, 30)],
          '',
        ),
      lines.length - 1,
    ],
  ])('%s: replays, but exits 1 naming where it was truncated', (_, make, last) => {
    const name = make();
    const r = berth('replay', name);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('All recorded decisions reproduced');
    expect(r.stderr).toMatch(
      new RegExp(
        `^berth: ${name.replace('.', '\\.')}: truncated after line ${last}: the closing digest line is missing`,
        'm',
      ),
    );
    expect(berth('replay', name, '--allow-unsealed').code).toBe(0);
  });

  it('sealed and verified up to the cut, still exits 1 without --allow-unsealed', () => {
    const sealed = recordRun('sealed-cut.jsonl', '--record-key', 'key');
    const name = write('sealed-cut2.jsonl', sealed.slice(0, -3));
    const r = berth('replay', name, '--record-key', 'key');
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      `its ${sealed.length - 3} complete lines verified, but its closing line is missing`,
    );
    expect(r.stderr).toContain(`truncated after line ${sealed.length - 3}`);
  });
});

/** `berth simulate` of one pod on one node, recorded to `name`. */
const tinyRun = (name: string, ...flags: string[]) =>
  berth('simulate', '--nodes', '1', '--pods', '1', '--record', name, ...flags);

describe('keys', () => {
  it('refuses a key file shorter than 32 bytes, without printing it', () => {
    writeFileSync(join(work, 'short'), 'secret-but-short\n');
    const r = tinyRun('x.jsonl', '--record-key', 'short');
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(
      'berth: --record-key short holds 16 bytes; a sealing key needs at least 32 (make one with: head -c 32 /dev/urandom > short)',
    );
  });

  it('simulate says whether the log is sealed and how to check it', () => {
    const plain = tinyRun('p.jsonl');
    expect(plain.stdout).toContain(
      'Recorded to p.jsonl (not sealed); check it with: berth replay p.jsonl --allow-unsealed',
    );
    const sealed = tinyRun('s.jsonl', '--record-key', 'key');
    const id = JSON.parse(readFileSync(join(work, 's.jsonl'), 'utf8').split('\n')[0] as string).seal
      .keyId;
    expect(sealed.stdout).toContain(
      `Recorded to s.jsonl, sealed with key id ${id}; check it with: berth replay s.jsonl --record-key key`,
    );
    expect(berth('replay', 's.jsonl', '--record-key', 'key').code).toBe(0);
  });

  it('never writes the key into the log', () => {
    expect(readFileSync(join(work, 'sealed.jsonl'), 'utf8')).not.toContain('s'.repeat(32));
  });
});
