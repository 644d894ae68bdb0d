// `berth run`'s leadership: the lease election, the write fence, and how the run ends (signal or lost lease).
import pino, { type Logger } from 'pino';
import type { BindFenceIdentity } from '../adapters/kube/bind-fence.ts';
import type { loadKubeConfig } from '../adapters/kube/config.ts';
import { kubeLeaseApi, LeaseElector } from '../adapters/kube/leader-election.ts';
import type { WriteFence } from '../adapters/kube/write-fence.ts';
import type { LiveScheduler } from '../runtime/live.ts';
import { ExitNowError } from './errors.ts';
import type { LeaderElectionOptions } from './run-options.ts';

/**
 * The lease this replica runs under. With election enabled, `fence` asks the elector
 * immediately before every write is sent (see LeaseElector.mayWrite), refusing all until
 * `elect` made one; without, there is no fence and no elector (this replica always leads).
 */
export class Leadership {
  /** Passed to the API clients; undefined when election is disabled. */
  readonly fence: WriteFence | undefined;
  private elector: LeaseElector | undefined;
  private logger: Logger | undefined;
  private lost: (reason: string) => void = () => {};
  private readonly leadershipLost = new Promise<string>((resolve) => {
    this.lost = resolve;
  });

  constructor(private readonly election: LeaderElectionOptions) {
    const refusal = () =>
      this.elector === undefined ? 'not the leader yet' : this.elector.refusal();
    this.fence = election.enabled ? { refusal } : undefined;
  }

  /**
   * Makes the elector as `identity` (election enabled): on winning the lease `live` leads; on losing it
   * `live` stops writing first, then it is said, and `untilDone` ends with the reason.
   */
  elect(
    kubeConfig: ReturnType<typeof loadKubeConfig>,
    live: LiveScheduler,
    identity: string,
    logger: Logger,
  ): void {
    this.logger = logger;
    const { election } = this;
    if (!election.enabled) return;
    this.elector = new LeaseElector({
      api: kubeLeaseApi(kubeConfig, election.renewDeadlineMs),
      config: {
        namespace: election.resourceNamespace,
        name: election.resourceName,
        identity,
        leaseDurationMs: election.leaseDurationMs,
        renewDeadlineMs: election.renewDeadlineMs,
        retryPeriodMs: election.retryPeriodMs,
      },
      logger,
      callbacks: {
        onStartedLeading: () => {
          logger.info({ identity }, 'became the leader; scheduling');
          live.lead(identity);
        },
        onStoppedLeading: (reason) => {
          // Stop writing first, then say so: another replica may already be binding.
          live.abdicate(identity);
          logger.error({ identity, reason }, 'lost the leader lease; exiting');
          this.lost(reason);
        },
        onNewLeader: (holder) => logger.info({ holder, identity }, 'leader observed'),
      },
    });
  }

  /**
   * The Lease and `identity` Bindings are annotated with, for the chart's admission policy to
   * refuse a bind from a replica that no longer holds the Lease; none without election.
   */
  bindFence(identity: string): { bindFence?: BindFenceIdentity } {
    const { election } = this;
    if (!election.enabled) return {};
    const { resourceNamespace: leaseNamespace, resourceName: leaseName } = election;
    return { bindFence: { leaseNamespace, leaseName, identity } };
  }

  /** The elector's liveness problem, if any (undefined without election). */
  health(): string | undefined {
    return this.elector?.health();
  }

  /** Starts campaigning for the lease (no-op without election). */
  start(): void {
    this.elector?.start();
  }

  /**
   * Runs until SIGTERM/SIGINT or the lease is lost, then stops `live`: after a signal it
   * finishes what was started and hands the lease over (a standby takes it at once); after a
   * lost lease nothing more may be written, so nothing is waited for. Resolves with the
   * lost lease's reason, if that is what ended the run.
   */
  async untilDone(live: LiveScheduler): Promise<string | undefined> {
    const outcome = await Promise.race([
      untilSignal(this.logger ?? pino({ level: 'silent' })).then((signal) => ({ signal })),
      this.leadershipLost.then((reason) => ({ reason })),
    ]);
    if ('reason' in outcome) {
      this.elector?.stop();
      await live.stop(0);
      return outcome.reason;
    }
    await live.stop();
    await this.elector?.release();
    return undefined;
  }
}

/** The error `berth run` ends with after losing the lease (exit code 1). */
export function leaseLostError(reason: string): ExitNowError {
  return new ExitNowError(`lost the leader lease: ${reason}`, 1);
}

/** Resolves with the signal that asked berth to stop. */
function untilSignal(logger: Logger): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      logger.info({ signal }, 'stopping');
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
      resolve(signal);
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
}
