// Errors the CLI reports as one line, with the exit code they deserve.

/** A user-facing failure: printed as `berth: <message>` with no stack trace. */
export class CliError extends Error {
  override name = 'CliError';
  constructor(
    message: string,
    /** 2 for usage errors, 1 for everything else (bad files, divergence). */
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

/**
 * A failure after which the process must end at once, whatever is still open (requests in
 * flight to an unresponsive API server, their sockets and timers): a scheduler that lost its
 * lease exits so that its supervisor restarts it as a standby.
 */
export class ExitNowError extends CliError {
  override name = 'ExitNowError';
}

/**
 * A flag the command does not know, or one given without (or with a stray) value: a usage
 * error (exit 2) to which `berth` adds where to find the command's flags.
 */
export class FlagError extends CliError {
  override name = 'FlagError';
  constructor(message: string) {
    super(message, 2);
  }
}

/** `ENOENT: no such file or directory, open 'x'` → `ENOENT (no such file or directory)`. */
export function describeSystemError(error: NodeJS.ErrnoException): string {
  if (error.code === undefined) return error.message;
  const description = /^[A-Z_]+: ([^,]+)/.exec(error.message)?.[1];
  return description === undefined ? error.code : `${error.code} (${description})`;
}
