// Flag parsing helpers: strict flags, numbers checked with messages that name the flag.
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { CliError, FlagError } from './errors.ts';

type Options = NonNullable<ParseArgsConfig['options']>;

/** A token that reads as a negative number (`-1`, `-0.5`, `-.5`, `-1e3`, `-Infinity`). */
const negativeNumber = /^-(\d|\.\d|Infinity$|NaN$)/;

/**
 * Joins `--flag -1` into `--flag=-1` for flags that take a value, so that a negative number
 * reaches the flag's own range check instead of being read as an option.
 */
export function attachNegativeValues(argv: string[], options: Options): string[] {
  const takesValue = (token: string): boolean => {
    if (token.startsWith('--')) return options[token.slice(2)]?.type === 'string';
    if (/^-[^-]$/.test(token))
      return Object.values(options).some((o) => o.short === token[1] && o.type === 'string');
    return false;
  };
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i] as string;
    if (token === '--') return out.concat(argv.slice(i));
    const next = argv[i + 1];
    if (next !== undefined && negativeNumber.test(next) && takesValue(token)) {
      out.push(token.startsWith('--') ? `${token}=${next}` : `${token}${next}`);
      i++;
    } else out.push(token);
  }
  return out;
}

/** The flag a node:util parseArgs message is about (`'--nodes'` or `'--nodes <value>'`). */
function flagIn(message: string): string {
  return /'(-{1,2}[^' ]+)/.exec(message)?.[1] ?? 'a flag';
}

/** Turns a node:util parseArgs error into one complete line that names the flag. */
function describeParseError(error: Error & { code?: string }, argv: string[]): string {
  const first = error.message.split('\n')[0] ?? 'invalid arguments';
  const flag = flagIn(first);
  if (error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return first;
  if (error.code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL')
    return `unexpected argument ${JSON.stringify(/'([^']*)'/.exec(first)?.[1] ?? '')}`;
  if (first.includes('does not take an argument')) return `${flag} takes no value`;
  if (first.includes('argument missing')) return `${flag} needs a value`;
  if (first.includes('ambiguous')) {
    const next = argv[argv.indexOf(flag) + 1] ?? '';
    if (next.startsWith('--')) return `${flag} needs a value, got the flag ${next}`;
    return `${flag} needs a value, got ${JSON.stringify(next)}; a value starting with "-" is written ${flag}=${next}`;
  }
  return first;
}

/** Parses `argv` strictly; unknown flags and missing values become usage errors. */
export function parseFlags<O extends Options>(argv: string[], options: O, positionals = 0) {
  const args = attachNegativeValues(argv, options);
  try {
    const parsed = parseArgs({
      args,
      options,
      strict: true,
      allowPositionals: positionals > 0,
    });
    if (parsed.positionals.length > positionals) {
      throw new FlagError(`unexpected argument ${JSON.stringify(parsed.positionals[positionals])}`);
    }
    return parsed;
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new FlagError(describeParseError(error as Error & { code?: string }, args));
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
