// Reading the files users name on the command line, with one-line errors.
import { readFileSync } from 'node:fs';
import { CliError } from './errors.ts';

/** Reads a UTF-8 file; a failure becomes `cannot read <what>PATH: CODE`. */
export function readTextFile(path: string, what = ''): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new CliError(`cannot read ${what}${path}: ${reason}`);
  }
}
