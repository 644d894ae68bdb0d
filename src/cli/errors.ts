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
