// How a reflector runs: its kind and source, watchdog, backoff, timers, and the list callbacks.
import type pino from 'pino';
import type { ResourceKind } from '../../events/types.ts';
import type { ListWatchSource } from './watch-source.ts';

/** The timer functions a reflector uses (injected in tests). */
export type Timers = { setTimeout: typeof setTimeout; clearTimeout: typeof clearTimeout };

/** How a reflector runs. */
export interface ReflectorOptions {
  kind: ResourceKind;
  source: ListWatchSource;
  logger?: pino.Logger;
  /** No event and no bookmark for this long → restart the watch (default 90 s). */
  inactivityTimeoutMs?: number;
  /** Reconnect backoff: doubles from `initialMs` to `maxMs` (default 800 ms → 30 s), jittered. */
  backoff?: { initialMs: number; maxMs: number };
  /** Jitter source (default Math.random; adapters may use it, the core may not). */
  random?: () => number;
  timers?: Timers;
  /**
   * The kind is served by a CRD that may not be installed (`optionalObjectKinds`): a list
   * answered 404 ends its relist with `ResyncDone { unavailable }` instead of failing, and
   * is retried every `optionalRetryMs` until the kind is served.
   */
  optional?: boolean;
  /** How often the list of an optional kind that is not served is retried (default 30 s). */
  optionalRetryMs?: number;
  /**
   * Called when a list's objects so far include every pod bound to a node (a Pod source that
   * lists those first says when), after their upserts were emitted; the pending ones follow.
   */
  onAssignedListed?: () => void;
  /** Called whenever a list has completed, after its ResyncDone was emitted. */
  onListed?: () => void;
}
