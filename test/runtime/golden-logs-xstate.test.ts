// Every replayable golden log gives the same decisions when the machines run on XState's own transition().
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selectMachineRunner } from '../../src/core/machine-runner.ts';
import { oldestReadableFormat } from '../../src/events/log-format.ts';
import { parseLog } from '../../src/events/reader.ts';
import { replay } from '../../src/runtime/replay.ts';

const dir = join(import.meta.dirname, '..', 'fixtures', 'logs');
const replayable = readdirSync(dir)
  .filter((f) => f.endsWith('.jsonl'))
  .sort()
  .map((file) => ({ file, text: readFileSync(join(dir, file), 'utf8') }))
  .filter(({ text }) => {
    const header = JSON.parse(text.slice(0, text.indexOf('\n'))) as { format?: unknown };
    return Number(header.format) >= oldestReadableFormat;
  });

describe('golden logs with the machines run by XState transition()', () => {
  let previous: ReturnType<typeof selectMachineRunner>;
  beforeAll(() => {
    previous = selectMachineRunner('xstate');
  });
  afterAll(() => {
    selectMachineRunner(previous);
  });

  it('covers at least the gang and preemption logs (both machines run)', () => {
    const names = replayable.map((l) => l.file);
    expect(names).toContain('sim-gang.jsonl');
    expect(names).toContain('sim-preemption.jsonl');
  });

  for (const { file, text } of replayable) {
    it(`${file} replays to its recorded decisions`, () => {
      const log = parseLog(text);
      const result = replay(log);
      expect(result.divergence).toBeUndefined();
      expect(result.summary.decisionDigest).toBe(log.digest?.digest);
      expect(result.matches).toBe(true);
    });
  }
});
