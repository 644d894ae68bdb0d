// `berth run`: schedule a real cluster's pods through the Kubernetes API.
import { hostname } from 'node:os';
import { performance } from 'node:perf_hooks';
import pino, { type Logger } from 'pino';
import {
  checkConnection,
  KubeSetupError,
  loadKubeConfig,
  makeClients,
} from '../adapters/kube/config.ts';
import { KubeEffects } from '../adapters/kube/effects.ts';
import { kubeLeaseApi, LeaseElector, leaderIdentity } from '../adapters/kube/leader-election.ts';
import { nodeSource, objectSource, podSource } from '../adapters/kube/list-watch.ts';
import { TokenBucket } from '../adapters/kube/rate-limiter.ts';
import { reflect } from '../adapters/kube/reflector.ts';
import type { WriteFence } from '../adapters/kube/write-fence.ts';
import { BindHealth } from '../adapters/metrics/bind-health.ts';
import { SchedulerMetrics } from '../adapters/metrics/scheduler-metrics.ts';
import { objectKinds, optionalObjectKinds } from '../cluster/cluster-objects.ts';
import { LiveScheduler } from '../runtime/live.ts';
import { observeAll } from '../runtime/observers.ts';
import { intFlag, numberFlag, parseFlags } from './args.ts';
import { decisionConfig, readConfigFile } from './config-file.ts';
import { CliError, ExitNowError } from './errors.ts';
import {
  applyHeapGrowth,
  applyYoungGrowth,
  defaultHeapGrowthPercent,
  defaultYoungGrowthFactor,
} from './heap-growth.ts';
import { openLogFile } from './log-file.ts';
import { readRecordKey } from './record-key.ts';
import { normalizeBoolFlags, readRunOptions } from './run-options.ts';
import { openSegmentedLog, parseSize } from './segmented-log.ts';
import {
  checkPlainBindAddress,
  readSecureServing,
  servingCert,
  servingFlags,
} from './serving-options.ts';
import { startStatusServers } from './status-servers.ts';

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'];

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

/**
 * Runs `berth run` until SIGTERM/SIGINT; resolves after a clean stop (lease released,
 * binds drained). Losing the lease stops writing at once and fails with exit code 1.
 */
export async function runCommand(argv: string[]): Promise<void> {
  const { values } = parseFlags(normalizeBoolFlags(argv), {
    kubeconfig: { type: 'string' },
    context: { type: 'string' },
    'scheduler-name': { type: 'string' },
    record: { type: 'string' },
    'record-key': { type: 'string' },
    qps: { type: 'string' },
    burst: { type: 'string' },
    'events-qps': { type: 'string' },
    'events-burst': { type: 'string' },
    config: { type: 'string' },
    seed: { type: 'string' },
    'log-level': { type: 'string' },
    'leader-elect': { type: 'string' },
    'leader-elect-lease-duration': { type: 'string' },
    'leader-elect-renew-deadline': { type: 'string' },
    'leader-elect-retry-period': { type: 'string' },
    'leader-elect-resource-name': { type: 'string' },
    'leader-elect-resource-namespace': { type: 'string' },
    'metrics-bind-address': { type: 'string' },
    ...servingFlags,
    'record-segment-size': { type: 'string' },
    'record-retain': { type: 'string' },
    'heap-growth-percent': { type: 'string' },
    'young-growth-factor': { type: 'string' },
  });
  const level = values['log-level'] ?? 'info';
  if (!logLevels.includes(level))
    throw new CliError(`--log-level must be one of ${logLevels.join(', ')}`, 2);
  const file = readConfigFile(values.config);
  const connection = file?.clientConnection ?? {};
  const qps = numberFlag(values.qps, 'qps', connection.qps ?? 50, 0.1, 100_000);
  const burst = intFlag(values.burst, 'burst', connection.burst ?? 100, 1, 100_000);
  // Reports (PodScheduled patch, Events) get a bucket of their own so binds never wait behind
  // them. kube-scheduler's event client is built from the same client config, so it has the
  // same qps/burst as the main client but its own bucket: the defaults follow --qps/--burst.
  const eventsQps = numberFlag(values['events-qps'], 'events-qps', qps, 0.1, 100_000);
  const eventsBurst = intFlag(values['events-burst'], 'events-burst', burst, 1, 100_000);
  const seed = intFlag(values.seed, 'seed', 1, 0, 2 ** 32 - 1);
  applyHeapGrowth(
    intFlag(
      values['heap-growth-percent'],
      'heap-growth-percent',
      defaultHeapGrowthPercent,
      0,
      1000,
    ),
  );
  applyYoungGrowth(
    intFlag(values['young-growth-factor'], 'young-growth-factor', defaultYoungGrowthFactor, 1, 16),
  );
  const segmentSize = values['record-segment-size'];
  const segments =
    segmentSize === undefined
      ? undefined
      : {
          maxBytes: parseSize(segmentSize, '--record-segment-size'),
          retain: intFlag(values['record-retain'], 'record-retain', 0, 0, 1_000_000),
        };
  if (segments !== undefined && values.record === undefined)
    throw new CliError('--record-segment-size needs --record DIR (the segments go there)', 2);
  if (segments === undefined && values['record-retain'] !== undefined)
    throw new CliError('--record-retain needs --record-segment-size', 2);
  if (values['record-key'] !== undefined && values.record === undefined)
    throw new CliError('--record-key needs --record LOG (it seals the recording)', 2);
  const recordKey =
    values['record-key'] === undefined ? undefined : readRecordKey(values['record-key']);
  const options = readRunOptions(values, file?.run ?? {});
  // Checked early, so a typo is a usage error, not a late crash.
  checkPlainBindAddress(options.metricsBindAddress);
  const secure = readSecureServing(values);
  const tls = secure.port === 0 ? undefined : servingCert(secure, hostname(), new Date());
  const config = decisionConfig(file, values['scheduler-name']);

  let clients: ReturnType<typeof makeClients>;
  let kubeConfig: ReturnType<typeof loadKubeConfig>;
  const election = options.leaderElection;
  // Every write asks the elector immediately before it is sent (see LeaseElector.mayWrite).
  let elector: LeaseElector | undefined;
  const fence: WriteFence | undefined = election.enabled
    ? { refusal: () => (elector === undefined ? 'not the leader yet' : elector.refusal()) }
    : undefined;
  try {
    kubeConfig = loadKubeConfig({
      kubeconfig: values.kubeconfig ?? connection.kubeconfig,
      context: values.context,
    });
    clients = makeClients(kubeConfig, fence);
    await checkConnection(clients);
  } catch (error) {
    if (error instanceof KubeSetupError) throw new CliError(error.message);
    throw error;
  }

  const logger = pino({ level, base: { scheduler: config.schedulerName } });
  const segmented =
    values.record === undefined || segments === undefined
      ? undefined
      : openSegmentedLog(values.record, segments);
  const log = values.record === undefined ? undefined : (segmented ?? openLogFile(values.record));
  // A crash (kill -9) loses at most the last 200 ms of the recording.
  const flusher = log === undefined ? undefined : setInterval(() => log.flush(), 200);
  flusher?.unref();
  const limiter = new TokenBucket({ qps, burst });
  const reportLimiter = new TokenBucket({ qps: eventsQps, burst: eventsBurst });
  const identity = leaderIdentity();
  const metrics = new SchedulerMetrics({
    profile: config.schedulerName,
    pending: () => live.core.pendingCounts(),
  });
  const bindHealth = new BindHealth({ now: () => performance.now() });
  // The pending pods are asked for once the nodes are listed (see podSource).
  let nodesWereListed = () => {};
  const nodesListed = new Promise<void>((resolve) => {
    nodesWereListed = resolve;
  });
  const live: LiveScheduler = new LiveScheduler({
    config,
    seed,
    logger,
    observer: observeAll(metrics, bindHealth),
    leading: !election.enabled,
    sources: [
      reflect({
        kind: 'Node',
        source: nodeSource(clients),
        logger,
        onListed: () => nodesWereListed(),
      }),
      reflect({
        kind: 'Pod',
        source: podSource(clients, { pendingAfter: nodesListed }),
        logger,
        // `live` exists by the time a list answers.
        onAssignedListed: () => live.assignedPodsListed(),
      }),
      ...objectKinds.map((kind) =>
        reflect({
          kind,
          source: objectSource(clients, kind),
          logger,
          optional: optionalObjectKinds.has(kind),
        }),
      ),
    ],
    syncKinds: ['Node', 'Pod', ...objectKinds],
    effects: (ingest) =>
      new KubeEffects({
        clients,
        limiter,
        reportLimiter,
        ingest,
        logger,
        reportingInstance: `berth-${hostname()}`,
        schedulerName: config.schedulerName,
        nodeExists: (node) => live.core.state.nodes.has(node),
      }),
    ...(log === undefined ? {} : { record: log.sink }),
    ...(recordKey === undefined ? {} : { recordKey }),
    ...(segmented === undefined ? {} : { rotation: segmented }),
  });
  let lost: (reason: string) => void = () => {};
  const leadershipLost = new Promise<string>((resolve) => {
    lost = resolve;
  });
  elector = election.enabled
    ? new LeaseElector({
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
            lost(reason);
          },
          onNewLeader: (holder) => logger.info({ holder, identity }, 'leader observed'),
        },
      })
    : undefined;
  const health = {
    live: () => elector?.health(),
    ready: () => (live.ready ? bindHealth.problem() : 'waiting for the first node and pod lists'),
  };
  const servers = await startStatusServers({
    secure,
    tls,
    plainAddress: options.metricsBindAddress,
    registry: metrics.registry,
    health,
    logger,
    http: clients.http,
  });
  logger.info(
    {
      server: clients.server,
      qps,
      burst,
      eventsQps,
      eventsBurst,
      record: values.record ?? null,
      // The key's id only: the key itself is never logged.
      recordSeal: recordKey === undefined ? null : { keyId: recordKey.id },
      profiles: (config.profiles ?? [config]).map((p) => p.schedulerName),
      leaderElection: election.enabled
        ? { identity, lease: `${election.resourceNamespace}/${election.resourceName}` }
        : false,
    },
    'starting',
  );
  live.start();
  elector?.start();
  const outcome = await Promise.race([
    untilSignal(logger).then((signal) => ({ signal })),
    leadershipLost.then((reason) => ({ reason })),
  ]);
  if ('reason' in outcome) {
    // The lease is gone: nothing more may be written, so nothing is waited for.
    elector?.stop();
    await live.stop(0);
  } else {
    // Finish what was started, then hand the lease over so a standby takes it at once.
    await live.stop();
    await elector?.release();
  }
  await Promise.all(servers.map((s) => s.close()));
  clearInterval(flusher);
  log?.close();
  logger.flush();
  if ('reason' in outcome) throw new ExitNowError(`lost the leader lease: ${outcome.reason}`, 1);
}
