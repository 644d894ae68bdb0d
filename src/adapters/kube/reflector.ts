// The reflector: list → watch from the list's resourceVersion → resume, relist on 410, as events.
import pino from 'pino';
import { Observable } from 'rxjs';
import { isObjectKind, objectKeyOf } from '../../cluster/cluster-objects.ts';
import type { InputEvent, ResourceKind } from '../../events/types.ts';
import type { NodeObject, PodObject } from '../../model/objects.ts';
import { trimNode, trimObject, trimPod } from '../trim.ts';
import { type ApiFailure, describeApiError, describeStatus } from './api-error.ts';

/** Callbacks of one watch connection. */
export interface WatchHandlers {
  /** One watch event: `type` is ADDED, MODIFIED, DELETED, BOOKMARK or ERROR. */
  onEvent(type: string, obj: unknown): void;
  /** The connection ended: normally (server timeout) when `err` is null/undefined. */
  onClose(err?: unknown): void;
}

/** Where a reflector lists and watches one kind of object. */
export interface ListWatchSource {
  /** What it lists, for messages (e.g. `scheduling.x-k8s.io/v1alpha1 podgroups`). */
  readonly resource?: string;
  /**
   * Lists every object, handing each to `onItem` as it arrives (raw JSON, or with `trimmed`
   * already projected as trimPod/trimNode would: a decoded protobuf item), and resolves with
   * the list's resourceVersion. A list that fails may have handed some objects over first.
   * With `fromCache` the API server may answer from its watch cache (resourceVersion=0, as
   * client-go's first list does): much cheaper, possibly a moment old, which the watch from
   * the list's version makes up for. Relists ask for the current state. A Pod source that
   * lists the pods bound to nodes before the pending ones calls `onAssignedListed` in between.
   */
  list(
    opts: { fromCache: boolean },
    onItem: (item: unknown, trimmed?: boolean) => void,
    onAssignedListed?: () => void,
  ): Promise<{ resourceVersion: string }>;
  /** Watches from `resourceVersion` (bookmarks requested). `onClose` is called at most once. */
  watch(resourceVersion: string, handlers: WatchHandlers): Promise<{ abort(): void }>;
}

type Timers = { setTimeout: typeof setTimeout; clearTimeout: typeof clearTimeout };

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

/**
 * The one-line `unavailable` reason of an optional kind's relist when the API server answers
 * 404 for `resource` (e.g. `scheduling.x-k8s.io/v1alpha1 podgroups`).
 */
export function notServedMessage(kind: ResourceKind, resource: string | undefined): string {
  return `the API server does not serve ${resource ?? `${kind} objects`} (is the ${kind} CRD installed?)`;
}

/** The API server does not serve the resource at all (its CRD is not installed, or deleted). */
export function isNotServed(f: ApiFailure): boolean {
  return f.code === 404;
}

type Loose = Record<string, unknown>;

function asObject(value: unknown): Loose | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Loose)
    : undefined;
}

function metadataOf(obj: unknown): Loose | undefined {
  return asObject(asObject(obj)?.metadata);
}

function resourceVersionOf(obj: unknown): string | undefined {
  const rv = metadataOf(obj)?.resourceVersion;
  return typeof rv === 'string' && rv !== '' ? rv : undefined;
}

/** A 410 Gone in any of its shapes: Status code/reason, HTTP status, or the message. */
function isGone(f: ApiFailure): boolean {
  return (
    f.code === 410 ||
    f.reason === 'Expired' ||
    f.reason === 'Gone' ||
    /too old resource version/i.test(f.message)
  );
}

/**
 * Lists and watches one kind of object as InputEvents. On subscribe: list → ResyncStarted,
 * one Upserted per item, ResyncDone → watch from the list's resourceVersion. A watch that
 * ends or fails resumes from the last resourceVersion seen (after backoff unless it ended
 * normally after delivering events); a 410 Gone relists; a silent watch is restarted by the
 * inactivity watchdog. Objects without `metadata.name` are logged and skipped. Never errors;
 * unsubscribing aborts the watch and clears every timer. An `optional` kind the API server
 * does not serve (404) relists as empty with `ResyncDone { unavailable }`, once per outage
 * (one warning), and is listed again every `optionalRetryMs` until it is served.
 */
export function reflect(opts: ReflectorOptions): Observable<InputEvent> {
  return new Observable<InputEvent>((subscriber) => {
    const reflector = new Reflector(opts, (event) => subscriber.next(event));
    reflector.start();
    return () => reflector.stop();
  });
}

type Next = 'list' | 'watch';

/** The reflector's state machine; all I/O goes through the source and the timers. */
class Reflector {
  private readonly log: pino.Logger;
  private readonly timers: Timers;
  private readonly random: () => number;
  private readonly initialMs: number;
  private readonly maxMs: number;
  private readonly inactivityMs: number;
  private readonly optionalRetryMs: number;
  /** An optional kind whose last list was answered 404 (its unavailable relist was emitted). */
  private unavailable = false;
  /** Bumped whenever a list or watch is superseded; callbacks of older ones are ignored. */
  private generation = 0;
  private stopped = false;
  private lastRv = '';
  private delayMs: number;
  private watch: { abort(): void } | undefined;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private watchdog: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly opts: ReflectorOptions,
    private readonly emit: (event: InputEvent) => void,
  ) {
    this.log = (opts.logger ?? pino({ level: 'silent' })).child({ reflector: opts.kind });
    this.timers = opts.timers ?? { setTimeout, clearTimeout };
    this.random = opts.random ?? Math.random;
    this.initialMs = opts.backoff?.initialMs ?? 800;
    this.maxMs = opts.backoff?.maxMs ?? 30_000;
    this.inactivityMs = opts.inactivityTimeoutMs ?? 90_000;
    this.optionalRetryMs = opts.optionalRetryMs ?? 30_000;
    this.delayMs = this.initialMs;
  }

  /** Whether a list has succeeded yet (only the first may come from the watch cache). */
  private listed = false;

  start(): void {
    this.list();
  }

  stop(): void {
    this.stopped = true;
    this.generation++;
    this.clearTimers();
    this.abortWatch();
  }

  private list(): void {
    if (this.stopped) return;
    const gen = ++this.generation;
    const fromCache = !this.listed;
    // Objects are folded as they arrive, while the rest of the list is still on the wire. A
    // list that fails part-way is simply listed again: its ResyncStarted starts the relist
    // over, and the ResyncDone of the one that succeeds drops whatever it did not list.
    let started = false;
    let count = 0;
    const start = () => {
      if (started) return;
      started = true;
      this.emit({ type: 'ResyncStarted', kind: this.opts.kind });
    };
    const onItem = (item: unknown, trimmed = false) => {
      if (gen !== this.generation || this.stopped) return;
      start();
      if (this.upsert(item, trimmed)) count++;
    };
    // `new Promise` also catches a source that throws instead of rejecting.
    new Promise<Awaited<ReturnType<ListWatchSource['list']>>>((resolve) =>
      resolve(
        this.opts.source.list({ fromCache }, onItem, () => {
          if (gen !== this.generation || this.stopped) return;
          start();
          this.opts.onAssignedListed?.();
        }),
      ),
    ).then(
      (result) => {
        if (gen !== this.generation || this.stopped) return;
        this.listed = true;
        const rv = typeof result?.resourceVersion === 'string' ? result.resourceVersion : '';
        if (this.unavailable) {
          this.unavailable = false;
          this.log.info({ resource: this.opts.source.resource }, 'now served; watching it');
        }
        start();
        this.lastRv = rv;
        // Logged before ResyncDone so it precedes whatever the relist's end sets off downstream.
        this.log.info({ items: count, resourceVersion: rv }, 'listed');
        this.emit({ type: 'ResyncDone', kind: this.opts.kind });
        this.opts.onListed?.();
        this.startWatch();
      },
      (err) => {
        if (gen !== this.generation || this.stopped) return;
        const f = describeApiError(err);
        if (this.opts.optional === true && isNotServed(f)) {
          this.notServed(f);
          return;
        }
        this.log.warn({ err: f.message, listedBeforeFailing: count }, 'list failed; retrying');
        this.retry('list');
      },
    );
  }

  /**
   * An optional kind is not served: the first time in an outage its relist ends empty and
   * unavailable (so that what waits for it is told why); then the list is retried quietly.
   */
  private notServed(f: ApiFailure): void {
    if (!this.unavailable) {
      this.unavailable = true;
      const unavailable = notServedMessage(this.opts.kind, this.opts.source.resource);
      this.log.warn(
        { unavailable, err: f.message, retryMs: this.optionalRetryMs },
        'not served (404); relisted as unavailable, retrying the list quietly',
      );
      this.emit({ type: 'ResyncStarted', kind: this.opts.kind });
      this.emit({ type: 'ResyncDone', kind: this.opts.kind, unavailable });
    } else {
      this.log.debug({ retryMs: this.optionalRetryMs }, 'still not served');
    }
    this.delayMs = this.initialMs;
    this.clearRetry();
    this.retryTimer = this.timers.setTimeout(() => {
      this.retryTimer = undefined;
      this.list();
    }, this.optionalRetryMs);
  }

  private startWatch(): void {
    if (this.stopped) return;
    const gen = ++this.generation;
    let delivered = false;
    this.armWatchdog(gen);
    const handlers: WatchHandlers = {
      onEvent: (type, obj) => {
        if (gen !== this.generation || this.stopped) return;
        if (this.onWatchEvent(type, obj)) {
          delivered = true;
          this.armWatchdog(gen);
        }
      },
      onClose: (err) => {
        if (gen !== this.generation || this.stopped) return;
        this.generation++;
        this.watch = undefined;
        this.clearWatchdog();
        this.onWatchClosed(err, delivered);
      },
    };
    new Promise<{ abort(): void }>((resolve) =>
      resolve(this.opts.source.watch(this.lastRv, handlers)),
    ).then(
      (handle) => {
        // A watch superseded while it was connecting (closed, watchdog, stop) is dropped.
        if (gen !== this.generation || this.stopped) this.abortHandle(handle);
        else this.watch = handle;
      },
      (err) => handlers.onClose(err ?? new Error('watch failed')),
    );
  }

  /** Applies one watch event; returns true when it shows the watch is healthy. */
  private onWatchEvent(type: string, obj: unknown): boolean {
    switch (type) {
      case 'ADDED':
      case 'MODIFIED':
        this.upsert(obj);
        break;
      case 'DELETED':
        this.delete(obj);
        break;
      case 'BOOKMARK':
        break;
      case 'ERROR':
        this.onErrorEvent(obj);
        return false;
      default:
        this.log.warn({ type }, 'unknown watch event type; ignored');
        return false;
    }
    const rv = resourceVersionOf(obj);
    if (rv !== undefined) this.lastRv = rv;
    this.delayMs = this.initialMs;
    return true;
  }

  private onErrorEvent(status: unknown): void {
    const f = describeStatus(status);
    const gone = isGone(f);
    this.generation++;
    this.clearWatchdog();
    this.abortWatch();
    if (gone) {
      this.log.info(
        { resourceVersion: this.lastRv, err: f.message },
        'watch expired (410); relisting',
      );
      this.retry('list');
    } else if (this.opts.optional === true && isNotServed(f)) {
      this.log.info({ err: f.message }, 'watch: no longer served (404); relisting');
      this.retry('list');
    } else {
      this.log.warn({ code: f.code, err: f.message }, 'watch error event; re-watching');
      this.retry('watch');
    }
  }

  private onWatchClosed(err: unknown, delivered: boolean): void {
    if (err === undefined || err === null) {
      this.log.debug({ resourceVersion: this.lastRv }, 'watch closed; resuming');
      // A watch that ran and delivered events resumes at once; an empty one backs off.
      if (delivered) this.startWatch();
      else this.retry('watch');
      return;
    }
    const f = describeApiError(err);
    if (isGone(f)) {
      this.log.info(
        { resourceVersion: this.lastRv, err: f.message },
        'watch expired (410); relisting',
      );
      this.retry('list');
      return;
    }
    if (this.opts.optional === true && isNotServed(f)) {
      // The CRD went away: a relist finds out and says so (re-watching would 404 forever).
      this.log.info({ err: f.message }, 'watch: no longer served (404); relisting');
      this.retry('list');
      return;
    }
    this.log.warn({ code: f.code, err: f.message }, 'watch failed; re-watching');
    this.retry('watch');
  }

  private retry(next: Next): void {
    if (this.stopped) return;
    this.clearRetry();
    const base = this.delayMs;
    this.delayMs = Math.min(this.maxMs, base * 2);
    // ±25 % jitter so that many reflectors (or berths) do not reconnect in lockstep.
    const delay = Math.round(base * (0.75 + 0.5 * this.random()));
    this.log.debug({ next, delayMs: delay }, 'backing off');
    this.retryTimer = this.timers.setTimeout(() => {
      this.retryTimer = undefined;
      if (next === 'list') this.list();
      else this.startWatch();
    }, delay);
  }

  private armWatchdog(gen: number): void {
    this.clearWatchdog();
    this.watchdog = this.timers.setTimeout(() => {
      this.watchdog = undefined;
      if (gen !== this.generation || this.stopped) return;
      this.log.warn({ inactivityMs: this.inactivityMs }, 'watch silent too long; restarting it');
      this.generation++;
      this.abortWatch();
      this.retry('watch');
    }, this.inactivityMs);
  }

  /** Emits the object's upsert (trimmed here unless `trimmed` says it already is). */
  private upsert(obj: unknown, trimmed = false): boolean {
    const meta = metadataOf(obj);
    if (typeof meta?.name !== 'string' || meta.name === '') {
      this.log.warn({ kind: this.opts.kind }, 'object without metadata.name; skipped');
      return false;
    }
    const kind = this.opts.kind;
    if (kind === 'Node')
      this.emit({ type: 'NodeUpserted', node: trimmed ? (obj as NodeObject) : trimNode(obj) });
    else if (kind === 'Pod')
      this.emit({ type: 'PodUpserted', pod: trimmed ? (obj as PodObject) : trimPod(obj) });
    else this.emit({ type: 'ObjectUpserted', kind, object: trimObject(kind, obj) });
    return true;
  }

  private delete(obj: unknown): void {
    const meta = metadataOf(obj);
    const name = meta?.name;
    if (typeof name !== 'string' || name === '') {
      this.log.warn({ kind: this.opts.kind }, 'deleted object without metadata.name; skipped');
      return;
    }
    const kind = this.opts.kind;
    if (kind === 'Node') {
      this.emit({ type: 'NodeDeleted', name });
      return;
    }
    if (isObjectKind(kind)) {
      this.emit({ type: 'ObjectDeleted', kind, key: objectKeyOf(kind, obj) ?? name });
      return;
    }
    const ns =
      typeof meta?.namespace === 'string' && meta.namespace !== '' ? meta.namespace : 'default';
    const key = `${ns}/${name}`;
    // The uid says which pod went; without one (never from a real API server) the name is
    // the identity, as the reducer falls back to for uid-less pods.
    const uid = typeof meta?.uid === 'string' && meta.uid !== '' ? meta.uid : key;
    this.emit({ type: 'PodDeleted', uid, key });
  }

  private abortWatch(): void {
    const handle = this.watch;
    this.watch = undefined;
    this.abortHandle(handle);
  }

  private abortHandle(handle: { abort(): void } | undefined): void {
    try {
      handle?.abort();
    } catch (err) {
      this.log.debug({ err: describeApiError(err).message }, 'abort failed');
    }
  }

  private clearWatchdog(): void {
    if (this.watchdog !== undefined) this.timers.clearTimeout(this.watchdog);
    this.watchdog = undefined;
  }

  private clearRetry(): void {
    if (this.retryTimer !== undefined) this.timers.clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
  }

  private clearTimers(): void {
    this.clearWatchdog();
    this.clearRetry();
  }
}
