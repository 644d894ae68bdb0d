// Flag parsing helpers: strict flags, numbers checked with messages that name the flag.
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { CliError } from './errors.ts';

type Options = NonNullable<ParseArgsConfig['options']>;

/** Parses `argv` strictly; unknown flags and missing values become usage errors. */
export function parseFlags<O extends Options>(argv: string[], options: O, positionals = 0) {
  try {
    const parsed = parseArgs({
      args: argv,
      options,
      strict: true,
      allowPositionals: positionals > 0,
    });
    if (parsed.positionals.length > positionals) {
      throw new CliError(
        `unexpected argument ${JSON.stringify(parsed.positionals[positionals])}`,
        2,
      );
    }
    return parsed;
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError((error as Error).message.split('\n')[0] ?? 'invalid arguments', 2);
  }
}

function rangedFlag(
  kind: 'integer' | 'number',
  value: string | undefined,
  flag: string,
  fallback: number,
  min: number,
  max: number,
): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  const wellFormed =
    kind === 'integer'
      ? /^-?\d+$/.test(value.trim()) && Number.isSafeInteger(n)
      : value.trim() !== '' && Number.isFinite(n);
  if (!wellFormed || n < min || n > max) {
    throw new CliError(
      `--${flag} must be ${kind === 'integer' ? 'an integer' : 'a number'} from ${min} to ${max}, got ${JSON.stringify(value)}`,
      2,
    );
  }
  return n;
}

/** Reads an integer flag within [min, max], or the default when absent. */
export const intFlag = rangedFlag.bind(undefined, 'integer');

/** Reads a number flag within [min, max], or the default when absent. */
export const numberFlag = rangedFlag.bind(undefined, 'number');
