// Every committed log must replay to its recorded decisions, or be refused naming its format.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { logFormatVersion, oldestReadableFormat } from '../../src/events/log-format.ts';
import { LogError, parseLog } from '../../src/events/reader.ts';
import { replay } from '../../src/runtime/replay.ts';
import { replayLogFile } from '../../src/runtime/replay-file.ts';

const dir = join(import.meta.dirname, '..', 'fixtures', 'logs');
const logs = readdirSync(dir)
  .filter((f) => f.endsWith('.jsonl'))
  .sort();

function formatOf(text: string): unknown {
  return (JSON.parse(text.slice(0, text.indexOf('\n'))) as { format?: unknown }).format;
}

describe('golden logs', () => {
  it('include logs of the current format, of an older readable one and of an unreadable one', () => {
    const texts = logs.map((f) => readFileSync(join(dir, f), 'utf8'));
    expect(texts.filter((t) => formatOf(t) === logFormatVersion).length).toBeGreaterThanOrEqual(1);
    expect(texts.filter((t) => formatOf(t) === oldestReadableFormat).length).toBeGreaterThanOrEqual(
      2,
    );
    expect(texts.some((t) => Number(formatOf(t)) < oldestReadableFormat)).toBe(true);
  });

  for (const file of logs) {
    it(`${file} replays to its recorded decisions or is refused naming its format`, () => {
      const text = readFileSync(join(dir, file), 'utf8');
      const format = formatOf(text);
      if (Number(format) < oldestReadableFormat) {
        expect(() => parseLog(text)).toThrow(LogError);
        const refused = new RegExp(
          `^line 1: unsupported log format ${String(format)}: this berth reads formats ${oldestReadableFormat}–${logFormatVersion}`,
        );
        expect(() => parseLog(text)).toThrow(refused);
        expect(() => replayLogFile(join(dir, file))).toThrow(refused);
        return;
      }
      const log = parseLog(text);
      expect(log.digest).toBeDefined();
      const result = replay(log);
      expect(result.divergence).toBeUndefined();
      expect(result.summary.decisionDigest).toBe(log.digest?.digest);
      expect(result.matches).toBe(true);
      const streamed = replayLogFile(join(dir, file));
      expect(streamed.matches).toBe(true);
      const { nodes, scheduled, placements, pending, decisionDigest } = result.summary;
      expect(streamed.summary).toMatchObject({
        nodes,
        scheduled,
        placements,
        pending,
        decisionDigest,
      });
      expect(streamed.lastSeq).toBe(log.envelopes.length);
    });
  }
});
