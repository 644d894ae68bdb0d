// Polling with a deadline: waits for a condition and, on timeout, says what it last saw.

/** What one poll saw: whether the condition holds, and what to print if time runs out. */
export interface Poll<T> {
  ok: boolean;
  seen: T;
}

/** Options of `waitFor`. */
export interface WaitOptions {
  timeoutMs?: number;
  intervalMs?: number;
}

function describe(value: unknown): string {
  if (value instanceof Error) return value.message;
  const text = typeof value === 'string' ? value : JSON.stringify(value, null, 1);
  return text === undefined ? String(value) : text.length > 6000 ? `${text.slice(0, 6000)}…` : text;
}

/** Thrown by a probe when waiting longer cannot help (e.g. the process it watches exited). */
export class GiveUp extends Error {
  override name = 'GiveUp';
}

/** Resolves after `ms` milliseconds (for deliberate holds, never instead of polling). */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Polls `probe` every `intervalMs` (default 300) until it reports `ok`, then returns what it
 * saw. A probe that throws counts as not ok (its error is what was seen), except a GiveUp,
 * which ends the wait at once. After `timeoutMs`
 * (default 60 s) throws an Error naming `what` and showing the last thing seen.
 */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<Poll<T>>,
  { timeoutMs = 60_000, intervalMs = 300 }: WaitOptions = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown = '(nothing yet)';
  for (;;) {
    try {
      const r = await probe();
      if (r.ok) return r.seen;
      last = r.seen;
    } catch (error) {
      if (error instanceof GiveUp) throw error;
      last = error;
    }
    if (Date.now() >= deadline) {
      throw new Error(
        `timed out after ${Math.round(timeoutMs / 1000)} s waiting for ${what}; last saw:\n${describe(last)}`,
      );
    }
    await delay(intervalMs);
  }
}
