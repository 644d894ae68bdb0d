// Fencing: a write leaves the process only while it may (the lease is held and fresh).

/** What a fenced client asks immediately before each write it sends. */
export interface WriteFence {
  /** undefined when a write may go out now; otherwise why not (one line, for logs). */
  refusal(): string | undefined;
}

/** A write the fence refused: it was never sent, so the API server never saw it. */
export class FencedWriteError extends Error {
  override name = 'FencedWriteError';
  constructor(method: string, path: string, reason: string) {
    super(`${method} ${path} not sent: ${reason}`);
  }
}

/** Whether `error` is a write the fence refused (nothing reached the API server). */
export function isFencedWrite(error: unknown): error is FencedWriteError {
  return error instanceof FencedWriteError;
}

/** Methods that only read: they are never fenced. */
const readMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Throws FencedWriteError when `method` writes and `fence` refuses it now. */
export function checkFence(fence: WriteFence | undefined, method: string, path: string): void {
  if (fence === undefined || readMethods.has(method.toUpperCase())) return;
  const reason = fence.refusal();
  if (reason !== undefined) throw new FencedWriteError(method, path, reason);
}
