// Runs the core against live event sources on the wall clock: the runtime behind `berth run`.
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import { merge, type Observable, Subject, type Subscription, takeUntil } from 'rxjs';
import type { BinderCommand, CommandHandler, ReportCommand } from '../core/commands.ts';
import type { BerthConfig } from '../core/config.ts';
import { Scheduler, type Step, StepError } from '../core/scheduler.ts';
import type { LiveObserver } from '../events/observer.ts';
import type { LineSink, Recorder } from '../events/recorder.ts';
import type { SealKey } from '../events/seal.ts';
import type { DecisionEvent, Envelope, InputEvent, ResourceKind } from '../events/types.ts';
import { type CommandTargets, executeCommands } from './commands.ts';
import { connectSources } from './pipeline.ts';
import { startRecording } from './recording.ts';
import { WallTimers } from './wall-timers.ts';

/** Where a live run's commands go: the binder and the reports, drained and stopped as one. */
export interface LiveAdapters {
  /** Binds and evictions; their results must come back through `ingest`. */
  binder: CommandHandler<BinderCommand>;
  /** Pod conditions, Events, nominations, PodGroup status (absent: none are written). */
  reports?: CommandHandler<ReportCommand>;
  /**
   * Resolves when every scheduling write in flight (binds, preemptions, nominations) has
   * settled, its result ingested (reports are not waited for).
   */
  idle?(): Promise<void>;
  /** Makes later commands no-ops. */
  stop?(): void;
}

/** Where a rotated recording gets its next segment. */
export interface LogRotation {
  /** True when the current segment is full. */
  due(): boolean;
  /** Opens the next segment: its file name (for the segment-end line) and its sink. */
  next(): { name: string; sink: LineSink };
}

/** What a live run is built from. */
export interface LiveOptions {
  config: BerthConfig;
  seed: number;
  /** Watches (reflectors); each emits a relist before its watch events. */
  sources: Observable<InputEvent>[];
  /** Builds the effect adapter; `ingest` is where its results must go. */
  effects: (ingest: (event: InputEvent) => void) => LiveAdapters;
  logger: Logger;
  /** Receives log lines when recording. */
  record?: LineSink;
  /** Seals the recording with this key (`--record-key`). */
  recordKey?: SealKey;
  /**
   * Cuts the recording into segments: checked after every step (an input or a cycle with
   * its decisions); when due, the next segment starts with a snapshot of the core.
   */
  rotation?: LogRotation;
  /**
   * The kinds whose first relist must finish before the first cycle (kube waits for every
   * informer cache): default nodes and pods; `berth run` adds every watched object kind.
   */
  syncKinds?: readonly ResourceKind[];
  /**
   * At most this many cycles run before yielding to I/O (watch events, bind results; default
   * 64). A burst starts with one cycle per turn and doubles up to this, so the first bind goes
   * out after one decision, not after a whole turn of cold code.
   */
  cyclesPerTurn?: number;
  /** Monotonic wall time in ms (injectable for tests). */
  now?: () => number;
  /** Sees envelopes and cycles (metrics). */
  observer?: LiveObserver;
  /**
   * Whether this process may write from the start (default true). A standby (false) keeps
   * its watches and state warm but runs no cycle, so it issues no command, until `lead()`.
   */
  leading?: boolean;
}

const defaultSyncKinds: readonly ResourceKind[] = ['Node', 'Pod'];

/**
 * The live loop. Watch events, effect results and timer firings are merged into one RxJS
 * stream and enter one log in arrival order; scheduling cycles run in turns between I/O,
 * and only after the first relist of nodes and of the pods bound to them, so capacity used
 * by pods bound before berth started is known before anything is placed.
 */
export class LiveScheduler {
  readonly core: Scheduler;
  private readonly results = new Subject<InputEvent>();
  private readonly firings = new Subject<InputEvent>();
  private readonly effects: LiveAdapters;
  private readonly recorder: Recorder | undefined;
  private readonly timers: WallTimers;
  private readonly targets: CommandTargets;
  private readonly watchesStopped = new Subject<void>();
  private inputs: Subscription | undefined;
  private readonly synced = new Set<ResourceKind>();
  /** Every sync kind is in `synced` (kept, not recomputed: scheduleTurn asks on every event). */
  private isReady = false;
  private turnPending = false;
  /** Cycles the next turn may run (see turn()). */
  private turnLimit = 1;
  private stopping = false;
  private isLeading: boolean;
  private decisions = 0;
  private readonly now: () => number;

  constructor(private readonly opts: LiveOptions) {
    this.now = opts.now ?? (() => Math.floor(performance.timeOrigin + performance.now()));
    this.isLeading = opts.leading ?? true;
    this.recorder =
      opts.record === undefined
        ? undefined
        : startRecording(
            opts.record,
            opts.seed,
            opts.config,
            opts.rotation !== undefined,
            opts.recordKey,
          );
    this.effects = opts.effects((event) => this.results.next(event));
    this.core = new Scheduler({ config: opts.config, seed: opts.seed });
    this.timers = new WallTimers(
      this.now,
      (event) => this.firings.next(event),
      () => this.stopping,
    );
    this.targets = {
      binder: this.effects.binder,
      reports: this.effects.reports ?? { execute: () => {} },
      timers: this.timers,
    };
  }

  /** Whether nodes, the other synced kinds and the pods bound to nodes are listed (scheduling has begun). */
  get ready(): boolean {
    return this.isReady;
  }

  /** Whether this process may write (always true without leader election). */
  get leading(): boolean {
    return this.isLeading;
  }

  /**
   * This process won the election: records it, and scheduling starts (at once when the
   * initial relists are in, else when they are).
   */
  lead(identity: string): void {
    if (this.stopping || this.isLeading) return;
    this.isLeading = true;
    this.opts.observer?.leading?.(true);
    this.ingest({ type: 'LeadershipChanged', leading: true, identity });
  }

  /**
   * Leadership was lost: stops writing at once (no cycle starts, later commands are
   * no-ops) and records it. The caller then stops the run and exits non-zero.
   */
  abdicate(identity: string): void {
    if (!this.isLeading) return;
    this.isLeading = false;
    this.effects.stop?.();
    this.opts.observer?.leading?.(false);
    this.ingest({ type: 'LeadershipChanged', leading: false, identity });
  }

  /** Connects the sources; scheduling starts once both initial relists are in. */
  start(): void {
    this.opts.observer?.leading?.(this.isLeading);
    executeCommands(this.core.start(this.now()), this.targets);
    // One door: watches, effect results and timer firings merge into one stream. On
    // shutdown the watches end first; results keep coming while in-flight binds drain.
    const watches = merge(...this.opts.sources).pipe(takeUntil(this.watchesStopped));
    this.inputs = connectSources([watches, this.results, this.firings], (event) =>
      this.ingest(event),
    );
  }

  /**
   * Stops cleanly: no new cycles, watches closed, in-flight writes awaited (at most
   * `graceMs`) so their results are logged, then the recording is closed with its digest.
   */
  async stop(graceMs = 10_000): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.watchesStopped.next();
    this.timers.clear();
    const idle = this.effects.idle?.() ?? Promise.resolve();
    let timeout: NodeJS.Timeout | undefined;
    const expired = new Promise<'timeout'>((resolve) => {
      timeout = setTimeout(() => resolve('timeout'), graceMs);
    });
    const outcome = await Promise.race([idle.then(() => 'idle' as const), expired]);
    clearTimeout(timeout);
    if (outcome === 'timeout')
      this.opts.logger.warn({ graceMs }, 'in-flight writes did not finish; abandoning them');
    this.effects.stop?.();
    // Results that arrived while draining are in the log; nothing else may enter now.
    this.inputs?.unsubscribe();
    const digest = this.recorder?.close();
    this.opts.logger.info({ decisions: this.decisions, digest }, 'stopped');
  }

  private ingest(event: InputEvent): void {
    try {
      this.carryOut(this.core.ingest(event, this.now()));
      this.rotateIfDue();
    } catch (error) {
      // The reducer is total; this guards the process against a bug elsewhere in the core.
      if (error instanceof StepError) this.carryOut(error.step);
      this.opts.logger.error(
        { err: error, event: event.type },
        'failed to apply an event; continuing',
      );
    }
    if (event.type === 'ResyncDone') this.markSynced(event.kind);
    this.scheduleTurn();
  }

  /**
   * The first Pod list has handed over every pod bound to a node; the pending ones are still
   * arriving. That is all a cycle needs of the pods (what each node already runs), so
   * scheduling may begin once the other kinds are listed: the first binds go out while the
   * pending pods stream in, each queued as it arrives. Not recorded: replay runs its cycles
   * where the log has their decisions.
   */
  assignedPodsListed(): void {
    this.markSynced('Pod');
    this.scheduleTurn();
  }

  private markSynced(kind: ResourceKind): void {
    if (this.synced.has(kind)) return;
    this.synced.add(kind);
    this.isReady = (this.opts.syncKinds ?? defaultSyncKinds).every((k) => this.synced.has(k));
    if (!this.isReady) return;
    this.opts.logger.info(
      {
        nodes: this.core.state.nodes.size,
        pods: this.core.state.pods.size,
        pending: this.core.activeCount,
      },
      'scheduling',
    );
  }

  private scheduleTurn(): void {
    if (this.turnPending || this.stopping || !this.isLeading || !this.ready) return;
    if (this.core.activeCount === 0) return;
    this.turnPending = true;
    setImmediate(() => this.turn());
  }

  /**
   * Runs a bounded batch of cycles, then yields so I/O can deliver events. The bound starts at
   * one when the queue was empty and doubles with every full turn, up to `cyclesPerTurn`.
   */
  private turn(): void {
    this.turnPending = false;
    if (this.stopping || !this.isLeading) return;
    const limit = this.turnLimit;
    const observer = this.opts.observer;
    const timed = observer?.cycle !== undefined;
    for (let i = 0; i < limit; i++) {
      let step: Step;
      const started = timed ? performance.now() : 0;
      try {
        step = this.core.cycle(this.now());
      } catch (error) {
        if (error instanceof StepError) this.carryOut(error.step);
        this.opts.logger.error({ err: error }, 'a scheduling cycle failed; continuing');
        break;
      }
      const decided = step.decisions;
      if (decided.length === 0) {
        this.turnLimit = 1;
        return;
      }
      // Recorded and sent before the cycle is timed, as its writes are part of it.
      this.carryOut(step);
      if (timed) observer?.cycle?.(decided, (performance.now() - started) / 1000);
      this.rotateIfDue();
    }
    this.turnLimit = Math.min(limit * 2, this.opts.cyclesPerTurn ?? 64);
    this.scheduleTurn();
  }

  /** Between steps: starts the next segment of a rotated recording when this one is full. */
  private rotateIfDue(): void {
    const rotation = this.opts.rotation;
    if (rotation === undefined || this.recorder === undefined || !rotation.due()) return;
    try {
      const next = rotation.next();
      this.recorder.rotate(next.name, next.sink, this.core.snapshot());
      this.opts.logger.info({ segment: next.name, seq: this.core.lastSeq }, 'log segment started');
    } catch (error) {
      this.opts.logger.error({ err: error }, 'failed to start the next log segment');
    }
  }

  private logDecisions(decided: Envelope<DecisionEvent>[]): void {
    const log = this.opts.logger;
    for (const { event: d } of decided) {
      this.decisions++;
      if (d.type === 'PodUnschedulable') {
        log.info(
          { pod: d.key, uid: d.uid, attempt: d.attempt, reason: d.message },
          'unschedulable',
        );
      } else if (d.type === 'CycleFailed') {
        log.error(
          { pod: d.key, uid: d.uid, attempt: d.attempt, plugin: d.plugin, err: d.message },
          'scheduling cycle failed in a plugin; the pod backs off',
        );
      } else if (d.type === 'PodReserved') {
        log.debug({ pod: d.key, uid: d.uid, attempt: d.attempt, node: d.node }, 'reserved');
      }
    }
  }

  /** Records a step (its input, then its decisions), logs the decisions, then sends its commands. */
  private carryOut(step: Step): void {
    if (step.input !== undefined) this.onEnvelope(step.input);
    for (const d of step.decisions) this.onEnvelope(d);
    this.logDecisions(step.decisions);
    executeCommands(step.commands, this.targets);
  }

  private onEnvelope(env: Envelope): void {
    try {
      this.recorder?.record(env);
    } catch (error) {
      this.opts.logger.error({ err: error, seq: env.seq }, 'failed to record an event');
    }
    try {
      this.opts.observer?.envelope?.(env);
    } catch (error) {
      this.opts.logger.error({ err: error, seq: env.seq }, 'a metrics observer failed');
    }
  }
}
