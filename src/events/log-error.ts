// The error a log reader throws for a bad line, named by its 1-based number.

/** Why a log could not be read; `line` is 1-based. */
export class LogError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(`line ${line}: ${message}`);
    this.name = 'LogError';
  }
}
