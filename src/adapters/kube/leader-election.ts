// Lease-based leader election with client-go's semantics (as kube-scheduler runs it).
import type { V1Lease } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { describeApiError } from './api-error.ts';
import type { LeaseApi } from './lease-api.ts';
import {
  acquireJitterFactor,
  formatMicroTime,
  type LeaderElectionConfig,
  type LeaseRecord,
  leaseWith,
  recordOf,
  recordText,
  validateLeaderElectionConfig,
} from './lease-record.ts';
import type { WriteFence } from './write-fence.ts';

export { kubeLeaseApi, type LeaseApi, leaderIdentity } from './lease-api.ts';
export {
  formatMicroTime,
  type LeaderElectionConfig,
  validateLeaderElectionConfig,
} from './lease-record.ts';

/** What the elector tells its owner. Called at most once each for started/stopped. */
export interface LeaderCallbacks {
  onStartedLeading(): void;
  /** Leadership lost (renew deadline passed, or the lease was taken). Not called after release(). */
  onStoppedLeading(reason: string): void;
  /** The observed holder changed (including to us); '' when nobody holds it. */
  onNewLeader?(holder: string): void;
}

/** What a LeaseElector is built with. */
export interface LeaseElectorOptions {
  api: LeaseApi;
  config: LeaderElectionConfig;
  callbacks: LeaderCallbacks;
  logger: Logger;
  /** Monotonic milliseconds (default `performance.now()`); expiry is judged on this clock. */
  now?: () => number;
  /** Wall clock for the Lease's acquireTime/renewTime (default `new Date()`). */
  wallClock?: () => Date;
  /** Uniform in [0, 1) for the acquire jitter (default Math.random). */
  random?: () => number;
}

type Phase = 'idle' | 'acquiring' | 'leading' | 'lost' | 'stopped';

/** How long release() may take in all (waiting for a write in flight, then its own PUT). */
const releaseBudgetMs = 2_000;
/** kube's leader-election health check tolerates this much beyond the lease duration. */
const healthGraceMs = 20_000;

/**
 * Elects one leader among the processes sharing a Lease, as client-go's LeaderElector with a
 * LeaseLock does: tries to acquire every retryPeriod (jittered ×1.2), takes a lease held by
 * another only once leaseDuration has passed on this process's monotonic clock since it
 * last saw the record change (never trusting the holder's renewTime), writes with the last
 * resourceVersion, and renews every retryPeriod while leading. Leadership is lost when no
 * renew has succeeded for renewDeadline, or at once when another holder is seen. API errors
 * are logged and retried; nothing here throws after construction.
 */
export class LeaseElector implements WriteFence {
  private readonly api: LeaseApi;
  private readonly config: LeaderElectionConfig;
  private readonly callbacks: LeaderCallbacks;
  private readonly log: Logger;
  private readonly now: () => number;
  private readonly wallClock: () => Date;
  private readonly random: () => number;
  private phase: Phase = 'idle';
  /** The Lease as last read or written (its resourceVersion goes into the next PUT). */
  private lease: V1Lease | undefined;
  private observed: LeaseRecord | undefined;
  private observedText: string | undefined;
  /** Monotonic time at which `observed` was first seen (or written by us). */
  private observedAt = 0;
  /** When the request of the last successful acquire or renew was started (monotonic). */
  private lastRenewAt = 0;
  /** When the attempt in flight (or the last one) started (monotonic). */
  private attemptStartedAt = 0;
  private reportedLeader = '';
  private tryTimer: NodeJS.Timeout | undefined;
  private deadlineTimer: NodeJS.Timeout | undefined;
  private inFlight: Promise<boolean> | undefined;
  private releasing: Promise<void> | undefined;

  /** Throws if `config` is not usable (see validateLeaderElectionConfig). */
  constructor(opts: LeaseElectorOptions) {
    validateLeaderElectionConfig(opts.config);
    this.api = opts.api;
    this.config = opts.config;
    this.callbacks = opts.callbacks;
    const { namespace, name, identity } = opts.config;
    this.log = opts.logger.child({ lease: `${namespace}/${name}`, identity });
    this.now = opts.now ?? (() => performance.now());
    this.wallClock = opts.wallClock ?? (() => new Date());
    this.random = opts.random ?? Math.random;
  }

  /** Begins trying to acquire the lease (at once), then renews it while leading. */
  start(): void {
    if (this.phase !== 'idle') return;
    this.phase = 'acquiring';
    this.log.info('attempting to acquire leader lease');
    this.acquireStep();
  }

  /** Whether this process holds leadership now. */
  get leading(): boolean {
    return this.phase === 'leading';
  }

  /**
   * Whether a write may leave the process now: leading, and less than renewDeadline since the
   * request of the last successful renew was started, on the monotonic clock (which runs on
   * through SIGSTOP, VM freezes and GC pauses). A standby takes the lease only leaseDuration
   * after it saw that renew land, so a write allowed here reaches the API server at least
   * leaseDuration − renewDeadline before anyone else may lead. Once the deadline has passed,
   * leadership is lost here and now (onStoppedLeading), not when a timer gets to run.
   */
  mayWrite(): boolean {
    return this.refusal() === undefined;
  }

  /** WriteFence: undefined while mayWrite(); otherwise why writes are refused. */
  refusal(): string | undefined {
    if (this.phase !== 'leading') return `not the leader (${this.phase})`;
    const age = this.now() - this.lastRenewAt;
    if (age < this.config.renewDeadlineMs) return undefined;
    const reason = `no renew of the lease succeeded within the renew deadline (${this.config.renewDeadlineMs} ms; last ${Math.round(age)} ms ago)`;
    this.lose(reason);
    return reason;
  }

  /**
   * Stops the loops; if this process holds the lease (as last seen), writes it released —
   * holder '', leaseDurationSeconds 1, as client-go's ReleaseOnCancel — so that a standby
   * takes over at its next retry. Waits for a write already in flight first. Best effort,
   * resolves within ~2 s whatever happens; never rejects. onStoppedLeading is not called.
   */
  release(): Promise<void> {
    this.releasing ??= this.releaseOnce();
    return this.releasing;
  }

  /** Stops the loops without writing anything; no callback is called. */
  stop(): void {
    if (this.phase === 'stopped') return;
    this.phase = 'stopped';
    this.clearTimers();
  }

  /**
   * For /healthz: undefined while fine; a message when leading but the last successful renew
   * is older than leaseDuration + 20 s (kube's leader-election health check). The renew
   * deadline normally ends leadership long before; this catches a stalled event loop.
   */
  health(): string | undefined {
    if (this.phase !== 'leading') return undefined;
    const age = this.now() - this.lastRenewAt;
    if (age <= this.config.leaseDurationMs + healthGraceMs) return undefined;
    return `failed election to renew leadership on lease ${this.config.name}: last renewed ${Math.round(age / 1000)} s ago`;
  }

  private get target() {
    return { namespace: this.config.namespace, name: this.config.name };
  }

  /** Whether the last record seen names this process (client-go's IsLeader). */
  private holdsObserved(): boolean {
    return this.observed?.holderIdentity === this.config.identity;
  }

  private clearTimers(): void {
    clearTimeout(this.tryTimer);
    clearTimeout(this.deadlineTimer);
    this.tryTimer = undefined;
    this.deadlineTimer = undefined;
  }

  private acquireStep(): void {
    void this.attempt().then((acquired) => {
      if (this.phase !== 'acquiring') return;
      this.reportTransition();
      if (!acquired) {
        this.tryTimer = setTimeout(() => this.acquireStep(), this.nextAcquireWait());
        return;
      }
      this.phase = 'leading';
      this.renewed();
      this.log.info('successfully acquired lease');
      this.call('onStartedLeading', () => this.callbacks.onStartedLeading());
    });
  }

  private renewStep(): void {
    void this.attempt().then((renewed) => {
      if (this.phase !== 'leading') return;
      this.reportTransition();
      if (renewed) return this.renewed();
      if (this.observed !== undefined && !this.holdsObserved()) {
        const holder = this.observed.holderIdentity;
        return this.lose(`the lease is now held by ${holder === '' ? 'nobody' : holder}`);
      }
      this.tryTimer = setTimeout(() => this.renewStep(), this.config.retryPeriodMs);
    });
  }

  /**
   * How long a candidate waits before its next try: retryPeriod jittered (×1–2.2, as
   * client-go), but no longer than until the lease it saw held expires, so that a lease left
   * by a dead leader is taken as soon as it may be rather than up to a jittered retry later.
   */
  private nextAcquireWait(): number {
    const jittered = this.config.retryPeriodMs * (1 + this.random() * acquireJitterFactor);
    const seen = this.observed;
    if (seen === undefined || seen.holderIdentity === '') return jittered;
    // One millisecond past expiry: tryAcquireOrRenew takes it only once strictly expired.
    const untilExpiry = this.observedAt + seen.leaseDurationSeconds * 1000 - this.now() + 1;
    return Math.max(0, Math.min(jittered, untilExpiry));
  }

  /**
   * A write succeeded while leading: leadership counts from when that attempt's request was
   * started, the renew deadline starts again from there, and the next renew is due.
   */
  private renewed(): void {
    this.lastRenewAt = this.attemptStartedAt;
    clearTimeout(this.deadlineTimer);
    const deadline = this.config.renewDeadlineMs;
    this.deadlineTimer = setTimeout(
      () => this.lose(`failed to renew the lease within the renew deadline (${deadline} ms)`),
      Math.max(0, this.lastRenewAt + deadline - this.now()),
    );
    this.tryTimer = setTimeout(() => this.renewStep(), this.config.retryPeriodMs);
  }

  private lose(reason: string): void {
    if (this.phase !== 'leading') return;
    this.phase = 'lost';
    this.clearTimers();
    this.log.error({ reason }, 'leader lease lost');
    this.call('onStoppedLeading', () => this.callbacks.onStoppedLeading(reason));
  }

  private reportTransition(): void {
    const holder = this.observed?.holderIdentity ?? '';
    if (holder === this.reportedLeader) return;
    this.reportedLeader = holder;
    this.log.info({ holder }, 'new leader observed');
    const notify = this.callbacks.onNewLeader;
    if (notify !== undefined) this.call('onNewLeader', () => notify.call(this.callbacks, holder));
  }

  private call(what: string, callback: () => void): void {
    try {
      callback();
    } catch (error) {
      this.log.error({ err: describeApiError(error).message }, `${what} threw`);
    }
  }

  /** Runs one tryAcquireOrRenew, remembered so that release() can wait for it. */
  private attempt(): Promise<boolean> {
    this.attemptStartedAt = this.now();
    const running = this.tryAcquireOrRenew().catch((error: unknown) => {
      this.logFailure('unexpected failure in a lease attempt', error);
      return false;
    });
    this.inFlight = running;
    return running;
  }

  private remember(lease: V1Lease): void {
    this.lease = lease;
    this.observed = recordOf(lease);
    this.observedText = recordText(this.observed);
    this.observedAt = this.now();
  }

  private logFailure(msg: string, error: unknown): void {
    const f = describeApiError(error);
    this.log.error({ status: f.code, reason: f.reason, err: f.message }, msg);
  }

  /** client-go's tryAcquireOrRenew: true when this process holds the lease after it. */
  private async tryAcquireOrRenew(): Promise<boolean> {
    const nowText = formatMicroTime(this.wallClock());
    const desired: LeaseRecord = {
      holderIdentity: this.config.identity,
      leaseDurationSeconds: Math.floor(this.config.leaseDurationMs / 1000),
      acquireTime: nowText,
      renewTime: nowText,
      leaseTransitions: 0,
    };
    // 1. The leader's fast path: assume the record it last saw is still current.
    const seen = this.observed;
    if (seen !== undefined && this.lease !== undefined && this.holdsObserved()) {
      const valid = this.observedAt + seen.leaseDurationSeconds * 1000 > this.now();
      if (valid) {
        const renewal = {
          ...desired,
          acquireTime: seen.acquireTime,
          leaseTransitions: seen.leaseTransitions,
        };
        try {
          this.remember(await this.api.replace(leaseWith(this.lease, this.target, renewal)));
          return true;
        } catch (error) {
          this.logFailure('failed to renew the lease optimistically; reading it again', error);
        }
      }
    }
    // 2. Read the lease; create it if there is none.
    let current: V1Lease | undefined;
    try {
      current = await this.api.get(this.config.namespace, this.config.name);
    } catch (error) {
      this.logFailure('error retrieving the lease', error);
      return false;
    }
    if (current === undefined) {
      try {
        this.remember(await this.api.create(leaseWith(undefined, this.target, desired)));
        return true;
      } catch (error) {
        this.logFailure('error creating the lease', error);
        return false;
      }
    }
    // 3. Expiry counts from when this process first saw the record as it is now.
    this.lease = current;
    const record = recordOf(current);
    const text = recordText(record);
    if (text !== this.observedText) this.remember(current);
    const expired = this.observedAt + record.leaseDurationSeconds * 1000 < this.now();
    const ours = this.holdsObserved();
    if (record.holderIdentity !== '' && !expired && !ours) {
      this.log.debug({ holder: record.holderIdentity }, 'the lease is held and not yet expired');
      return false;
    }
    // 4. Take it (a new holder counts a transition) or renew it (acquireTime kept).
    const next: LeaseRecord = ours
      ? { ...desired, acquireTime: record.acquireTime, leaseTransitions: record.leaseTransitions }
      : { ...desired, leaseTransitions: record.leaseTransitions + 1 };
    try {
      this.remember(await this.api.replace(leaseWith(current, this.target, next)));
    } catch (error) {
      this.logFailure(ours ? 'failed to renew the lease' : 'failed to acquire the lease', error);
      return false;
    }
    if (!ours && record.holderIdentity !== '')
      this.log.info({ previousHolder: record.holderIdentity }, 'took over an expired lease');
    return true;
  }

  private async releaseOnce(): Promise<void> {
    const wasLeading = this.phase === 'leading';
    this.stop();
    const deadline = this.now() + releaseBudgetMs;
    // A renew (or an acquire) still in flight may yet make this process the holder.
    if (this.inFlight !== undefined) await withinMs(this.inFlight, releaseBudgetMs);
    const seen = this.observed;
    if (seen === undefined || this.lease === undefined || !this.holdsObserved()) {
      if (wasLeading) this.log.info('not releasing: the lease is no longer ours');
      return;
    }
    const nowText = formatMicroTime(this.wallClock());
    const released: LeaseRecord = {
      holderIdentity: '',
      leaseDurationSeconds: 1,
      acquireTime: nowText,
      renewTime: nowText,
      leaseTransitions: seen.leaseTransitions,
    };
    const write = this.api.replace(leaseWith(this.lease, this.target, released)).then(
      (lease) => {
        this.remember(lease);
        this.log.info('released the lease');
        return true;
      },
      (error: unknown) => {
        this.logFailure('failed to release the lease', error);
        return false;
      },
    );
    const finished = await withinMs(write, Math.max(0, deadline - this.now()));
    if (!finished) this.log.warn({ timeoutMs: releaseBudgetMs }, 'gave up waiting to release');
  }
}

/** Resolves true when `p` settles within `ms`, false otherwise (`p` must not reject). */
async function withinMs(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([p.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
