// Per-call options of berth's API writes: a timeout and, for patches, the patch content type.

/** What each write is sent with. */
export interface CallOptions {
  /** The request fails with an AbortError after this long without an answer. */
  timeoutMs: number;
  /** The body's content type (a patch type for PATCH; JSON otherwise). */
  contentType?: string;
}

/** The patch content types berth sends. */
export const PatchType = {
  StrategicMerge: 'application/strategic-merge-patch+json',
  Merge: 'application/merge-patch+json',
} as const;

/** Options that give up after `timeoutMs` and, for a patch, name its type. */
export function timeoutOptions(timeoutMs: number, patch?: string): CallOptions {
  return patch === undefined ? { timeoutMs } : { timeoutMs, contentType: patch };
}
