// `berth run`: schedule a real cluster's pods through the Kubernetes API.
import { hostname } from 'node:os';
import { performance } from 'node:perf_hooks';
import pino from 'pino';
import { kubeEffects, liveAdapters } from '../adapters/kube/effects.ts';
import { leaderIdentity } from '../adapters/kube/leader-election.ts';
import { TokenBucket } from '../adapters/kube/rate-limiter.ts';
import { BindHealth } from '../adapters/metrics/bind-health.ts';
import { SchedulerMetrics } from '../adapters/metrics/scheduler-metrics.ts';
import { emulatedReleaseOf } from '../core/config.ts';
import { releaseAtLeast } from '../model/kube-release.ts';
import { LiveScheduler } from '../runtime/live.ts';
import { observeAll } from '../runtime/observers.ts';
import { readRunFlags, startingFields } from './run-flags.ts';
import { Leadership, leaseLostError } from './run-leadership.ts';
import { openRunRecording } from './run-recording.ts';
import { connectCluster, watchSources } from './run-sources.ts';
import { startStatusServers } from './status-servers.ts';

/**
 * Runs `berth run` until SIGTERM/SIGINT; resolves after a clean stop (lease released,
 * binds drained). Losing the lease stops writing at once and fails with exit code 1.
 */
export async function runCommand(argv: string[]): Promise<void> {
  const flags = readRunFlags(argv);
  const { config, options } = flags;
  const leadership = new Leadership(options.leaderElection);
  const { kubeconfig, context } = flags;
  const { clients, kubeConfig } = await connectCluster(kubeconfig, context, leadership.fence);
  const logger = pino({ level: flags.level, base: { scheduler: config.schedulerName } });
  const recording = openRunRecording(flags);
  const limiter = new TokenBucket({ qps: flags.qps, burst: flags.burst });
  const reportLimiter = new TokenBucket({ qps: flags.eventsQps, burst: flags.eventsBurst });
  const identity = leaderIdentity();
  const metrics = new SchedulerMetrics({
    profile: config.schedulerName,
    pending: () => live.core.pendingCounts(),
  });
  const bindHealth = new BindHealth({ now: () => performance.now() });
  const live: LiveScheduler = new LiveScheduler({
    config,
    seed: flags.seed,
    logger,
    observer: observeAll(metrics, bindHealth),
    leading: !options.leaderElection.enabled,
    // `live` exists by the time a list answers.
    ...watchSources(clients, logger, () => live.assignedPodsListed()),
    effects: (ingest) =>
      liveAdapters(
        kubeEffects({
          ...{ clients, limiter, reportLimiter, ingest, logger },
          reportingInstance: `berth-${hostname()}`,
          schedulerName: config.schedulerName,
          nodeExists: (node) => live.core.state.nodes.has(node),
          preemptedEventsNamePreemptor: !releaseAtLeast(emulatedReleaseOf(config), '1.37'),
          ...leadership.bindFence(identity),
        }),
      ),
    ...recording.options,
  });
  leadership.elect(kubeConfig, live, identity, logger);
  const servers = await startStatusServers({
    ...{ secure: flags.secure, tls: flags.tls, plainAddress: options.metricsBindAddress },
    registry: metrics.registry,
    health: {
      live: () => leadership.health(),
      ready: () => (live.ready ? bindHealth.problem() : 'waiting for the first node and pod lists'),
    },
    ...{ logger, http: clients.http },
  });
  logger.info(startingFields(flags, clients.server, identity), 'starting');
  live.start();
  leadership.start();
  const lost = await leadership.untilDone(live);
  await Promise.all(servers.map((s) => s.close()));
  recording.close();
  logger.flush();
  if (lost !== undefined) throw leaseLostError(lost);
}
