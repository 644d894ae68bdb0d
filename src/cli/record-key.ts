// Reads the sealing key of `--record-key FILE`: raw bytes, at least 32, never printed.
import { readFileSync } from 'node:fs';
import { minKeyBytes, type SealKey, sealKey } from '../events/seal.ts';
import { CliError, describeSystemError } from './errors.ts';

/**
 * The key in `path`: its raw bytes, less one trailing newline (`\n` or `\r\n`, as an editor
 * or `echo` leaves it). A file that cannot be read, or holds fewer than 32 bytes, is a
 * usage error naming the file and what to do; the key's bytes never appear in a message.
 */
export function readRecordKey(path: string): SealKey {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    throw new CliError(
      `cannot read --record-key ${path}: ${describeSystemError(error as Error)}`,
      2,
    );
  }
  let end = bytes.length;
  if (end > 0 && bytes[end - 1] === 0x0a) end -= bytes[end - 2] === 0x0d ? 2 : 1;
  const key = bytes.subarray(0, end);
  if (key.length < minKeyBytes)
    throw new CliError(
      `--record-key ${path} holds ${key.length} bytes; a sealing key needs at least ${minKeyBytes} (make one with: head -c 32 /dev/urandom > ${path})`,
      2,
    );
  return sealKey(Buffer.from(key));
}
