// The reflector (the source side): list → watch from the list's resourceVersion → resume, relist on 410, backoff.
import pino from 'pino';
import { Observable } from 'rxjs';
import type { InputEvent } from '../../events/types.ts';
import { type ApiFailure, describeApiError, describeStatus } from './api-error.ts';
import { deletedEvent, resourceVersionOf, upsertEvent } from './object-events.ts';
import type { ReflectorOptions } from './reflector-options.ts';
import { Backoff, TimerSlot } from './reflector-timers.ts';
import {
  isGone,
  isNotServed,
  type ListWatchSource,
  notServedMessage,
  type WatchHandlers,
} from './watch-source.ts';

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

/** The reflector's state machine; all I/O goes through the source and the timers. */
class Reflector {
  private readonly log: pino.Logger;
  private readonly backoff: Backoff;
  private readonly inactivityMs: number;
  private readonly optionalRetryMs: number;
  /** An optional kind whose last list was answered 404 (its unavailable relist was emitted). */
  private unavailable = false;
  /** Bumped whenever a list or watch is superseded; callbacks of older ones are ignored. */
  private generation = 0;
  private stopped = false;
  private lastRv = '';
  private watch: { abort(): void } | undefined;
  private readonly retryTimer: TimerSlot;
  private readonly watchdog: TimerSlot;
  /** Whether a list has succeeded yet (only the first may come from the watch cache). */
  private listed = false;

  constructor(
    private readonly opts: ReflectorOptions,
    private readonly emit: (event: InputEvent) => void,
  ) {
    this.log = (opts.logger ?? pino({ level: 'silent' })).child({ reflector: opts.kind });
    const timers = opts.timers ?? { setTimeout, clearTimeout };
    const { initialMs, maxMs } = opts.backoff ?? { initialMs: 800, maxMs: 30_000 };
    this.backoff = new Backoff(initialMs, maxMs, opts.random ?? Math.random);
    this.retryTimer = new TimerSlot(timers);
    this.watchdog = new TimerSlot(timers);
    this.inactivityMs = opts.inactivityTimeoutMs ?? 90_000;
    this.optionalRetryMs = opts.optionalRetryMs ?? 30_000;
  }

  start(): void {
    this.list();
  }

  stop(): void {
    this.stopped = true;
    this.generation++;
    this.watchdog.clear();
    this.retryTimer.clear();
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
      if (this.emitOrSkip(upsertEvent(this.opts.kind, item, trimmed), 'object')) count++;
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
      // Kubernetes' own PodGroups are off by default (beta, gate GenericWorkload): no warning.
      const level = this.opts.kind === 'CorePodGroup' ? 'info' : 'warn';
      this.log[level](
        { unavailable, err: f.message, retryMs: this.optionalRetryMs },
        'not served (404); relisted as unavailable, retrying the list quietly',
      );
      this.emit({ type: 'ResyncStarted', kind: this.opts.kind });
      this.emit({ type: 'ResyncDone', kind: this.opts.kind, unavailable });
    } else {
      this.log.debug({ retryMs: this.optionalRetryMs }, 'still not served');
    }
    this.backoff.reset();
    this.retryTimer.set(this.optionalRetryMs, () => this.list());
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
        this.watchdog.clear();
        this.onWatchClosed(err, delivered);
      },
    };
    new Promise<{ abort(): void }>((resolve) =>
      resolve(this.opts.source.watch(this.lastRv, handlers)),
    ).then(
      (handle) => {
        // A watch superseded while it was connecting (closed, watchdog, stop) is dropped.
        if (gen !== this.generation || this.stopped) this.abortWatch(handle);
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
        this.emitOrSkip(upsertEvent(this.opts.kind, obj), 'object');
        break;
      case 'DELETED':
        this.emitOrSkip(deletedEvent(this.opts.kind, obj), 'deleted object');
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
    this.backoff.reset();
    return true;
  }

  private onErrorEvent(status: unknown): void {
    const f = describeStatus(status);
    this.generation++;
    this.watchdog.clear();
    this.abortWatch();
    this.recover(f, 'watch error event; re-watching');
  }

  private onWatchClosed(err: unknown, delivered: boolean): void {
    if (err === undefined || err === null) {
      this.log.debug({ resourceVersion: this.lastRv }, 'watch closed; resuming');
      // A watch that ran and delivered events resumes at once; an empty one backs off.
      if (delivered) this.startWatch();
      else this.retry('watch');
      return;
    }
    this.recover(describeApiError(err), 'watch failed; re-watching');
  }

  /**
   * After a failed watch: a 410 Gone relists, and so does a 404 of an optional kind (its CRD
   * went away: a relist finds out and says so; re-watching would 404 forever); anything else
   * re-watches, warning `otherwise`. Both after backoff.
   */
  private recover(f: ApiFailure, otherwise: string): void {
    if (isGone(f)) {
      this.log.info(
        { resourceVersion: this.lastRv, err: f.message },
        'watch expired (410); relisting',
      );
      this.retry('list');
    } else if (this.opts.optional === true && isNotServed(f)) {
      this.log.info({ err: f.message }, 'watch: no longer served (404); relisting');
      this.retry('list');
    } else {
      this.log.warn({ code: f.code, err: f.message }, otherwise);
      this.retry('watch');
    }
  }

  private retry(next: 'list' | 'watch'): void {
    if (this.stopped) return;
    const delay = this.backoff.next();
    this.log.debug({ next, delayMs: delay }, 'backing off');
    this.retryTimer.set(delay, () => {
      if (next === 'list') this.list();
      else this.startWatch();
    });
  }

  private armWatchdog(gen: number): void {
    this.watchdog.set(this.inactivityMs, () => {
      if (gen !== this.generation || this.stopped) return;
      this.log.warn({ inactivityMs: this.inactivityMs }, 'watch silent too long; restarting it');
      this.generation++;
      this.abortWatch();
      this.retry('watch');
    });
  }

  /** Emits `event`, or, for an object without `metadata.name` (`what`), warns and skips it. */
  private emitOrSkip(event: InputEvent | undefined, what: string): boolean {
    if (event === undefined) {
      this.log.warn({ kind: this.opts.kind }, `${what} without metadata.name; skipped`);
      return false;
    }
    this.emit(event);
    return true;
  }

  /** Aborts `handle` (by default the current watch, then forgotten); a failure is only logged. */
  private abortWatch(handle = this.watch): void {
    if (handle === this.watch) this.watch = undefined;
    try {
      handle?.abort();
    } catch (err) {
      this.log.debug({ err: describeApiError(err).message }, 'abort failed');
    }
  }
}
