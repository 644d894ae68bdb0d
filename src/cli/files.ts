// Reading the files users name on the command line, with one-line errors.
import { readFileSync } from 'node:fs';
import { CliError, describeSystemError } from './errors.ts';

/**
 * Reads a UTF-8 text file. A file that cannot be read becomes `cannot read <what>PATH: CODE
 * (description)`; one holding NUL bytes (named by offset) or bytes that are not UTF-8 is
 * refused as not text, rather than handed to a parser as replacement characters.
 */
export function readTextFile(path: string, what = ''): string {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    throw new CliError(`cannot read ${what}${path}: ${describeSystemError(error as Error)}`);
  }
  const nul = bytes.indexOf(0);
  if (nul >= 0) throw new CliError(`${what}${path} is not a text file (a NUL byte at byte ${nul})`);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_ENCODING_INVALID_ENCODED_DATA')
      throw new CliError(`${what}${path} is not UTF-8 text`);
    throw new CliError(
      `cannot read ${what}${path}: ${bytes.length} bytes is too large to read whole`,
    );
  }
}
