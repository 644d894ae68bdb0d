// The key file of --record-key: raw bytes less one trailing newline, at least 32, never echoed.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { keyIdOf } from '../events/seal.ts';
import { readRecordKey } from './record-key.ts';

const dir = mkdtempSync(join(tmpdir(), 'berth-key-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function keyFile(name: string, bytes: Buffer | string): string {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
}

describe('readRecordKey', () => {
  const raw = Buffer.from(Array.from({ length: 32 }, (_, i) => (i * 37) % 256));

  it('takes the raw bytes, binary included', () => {
    const key = readRecordKey(keyFile('raw', raw));
    expect(key.bytes.equals(raw)).toBe(true);
    expect(key.id).toBe(keyIdOf(raw));
  });

  it.each([
    ['\\n', '\n'],
    ['\\r\\n', '\r\n'],
  ])('drops one trailing %s, as an editor or echo leaves it', (_, newline) => {
    const text = 'a'.repeat(32);
    expect(readRecordKey(keyFile('nl', `${text}${newline}`)).id).toBe(keyIdOf(Buffer.from(text)));
  });

  it('refuses fewer than 32 bytes once the newline is dropped, without printing them', () => {
    const path = keyFile('short', `${'b'.repeat(31)}\n`);
    expect(() => readRecordKey(path)).toThrow(
      `--record-key ${path} holds 31 bytes; a sealing key needs at least 32`,
    );
    try {
      readRecordKey(path);
    } catch (error) {
      expect((error as Error).message).not.toContain('b'.repeat(31));
      expect((error as { exitCode: number }).exitCode).toBe(2);
    }
  });

  it('names a file it cannot read', () => {
    expect(() => readRecordKey(join(dir, 'missing'))).toThrow(
      /cannot read --record-key .*missing: ENOENT/,
    );
  });
});
