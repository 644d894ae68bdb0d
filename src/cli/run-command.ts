// `berth run`: schedule a real cluster's pods through the Kubernetes API.
import { hostname } from 'node:os';
import pino from 'pino';
import { parse as parseYaml } from 'yaml';
import {
  checkConnection,
  KubeSetupError,
  loadKubeConfig,
  makeClients,
} from '../adapters/kube/config.ts';
import { KubeEffects } from '../adapters/kube/effects.ts';
import { TokenBucket } from '../adapters/kube/rate-limiter.ts';
import { nodeSource, podSource, reflect } from '../adapters/kube/reflector.ts';
import { parseConfig } from '../core/config.ts';
import { LiveScheduler } from '../runtime/live.ts';
import { intFlag, numberFlag, parseFlags } from './args.ts';
import { CliError } from './errors.ts';
import { readTextFile } from './files.ts';
import { openLogFile } from './log-file.ts';

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'];

function readConfigFile(path: string | undefined): unknown {
  if (path === undefined) return undefined;
  const text = readTextFile(path, 'config ');
  try {
    return parseYaml(text);
  } catch (error) {
    throw new CliError(
      `config ${path} is not valid YAML/JSON: ${(error as Error).message.split('\n')[0]}`,
    );
  }
}

/** Runs `berth run` until SIGTERM/SIGINT; resolves after a clean stop. */
export async function runCommand(argv: string[]): Promise<void> {
  const { values } = parseFlags(argv, {
    kubeconfig: { type: 'string' },
    context: { type: 'string' },
    'scheduler-name': { type: 'string' },
    record: { type: 'string' },
    qps: { type: 'string' },
    burst: { type: 'string' },
    'events-qps': { type: 'string' },
    'events-burst': { type: 'string' },
    config: { type: 'string' },
    seed: { type: 'string' },
    'log-level': { type: 'string' },
  });
  const level = values['log-level'] ?? 'info';
  if (!logLevels.includes(level))
    throw new CliError(`--log-level must be one of ${logLevels.join(', ')}`, 2);
  const qps = numberFlag(values.qps, 'qps', 50, 0.1, 100_000);
  const burst = intFlag(values.burst, 'burst', 100, 1, 100_000);
  // Reports (PodScheduled patch, Events) get a bucket of their own so binds never wait behind
  // them. kube-scheduler's event client is built from the same client config, so it has the
  // same qps/burst as the main client but its own bucket: the defaults follow --qps/--burst.
  const eventsQps = numberFlag(values['events-qps'], 'events-qps', qps, 0.1, 100_000);
  const eventsBurst = intFlag(values['events-burst'], 'events-burst', burst, 1, 100_000);
  const seed = intFlag(values.seed, 'seed', 1, 0, 2 ** 32 - 1);
  let config: ReturnType<typeof parseConfig>;
  try {
    const raw = readConfigFile(values.config) ?? {};
    const name = values['scheduler-name'];
    config = parseConfig(name === undefined ? raw : { ...(raw as object), schedulerName: name });
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError((error as Error).message);
  }

  let clients: ReturnType<typeof makeClients>;
  try {
    clients = makeClients(
      loadKubeConfig({ kubeconfig: values.kubeconfig, context: values.context }),
    );
    await checkConnection(clients);
  } catch (error) {
    if (error instanceof KubeSetupError) throw new CliError(error.message);
    throw error;
  }

  const logger = pino({ level, base: { scheduler: config.schedulerName } });
  const log = values.record === undefined ? undefined : openLogFile(values.record);
  // A crash (kill -9) loses at most the last 200 ms of the recording.
  const flusher = log === undefined ? undefined : setInterval(() => log.flush(), 200);
  flusher?.unref();
  const limiter = new TokenBucket({ qps, burst });
  const reportLimiter = new TokenBucket({ qps: eventsQps, burst: eventsBurst });
  const live = new LiveScheduler({
    config,
    seed,
    logger,
    sources: [
      reflect({ kind: 'Node', source: nodeSource(clients), logger }),
      reflect({ kind: 'Pod', source: podSource(clients), logger }),
    ],
    effects: (ingest) =>
      new KubeEffects({
        clients,
        limiter,
        reportLimiter,
        ingest,
        logger,
        reportingInstance: `berth-${hostname()}`,
        schedulerName: config.schedulerName,
      }),
    ...(log === undefined ? {} : { record: log.sink }),
  });
  logger.info(
    { server: clients.server, qps, burst, eventsQps, eventsBurst, record: values.record ?? null },
    'starting',
  );
  live.start();
  await new Promise<void>((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      logger.info({ signal }, 'stopping');
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
      resolve();
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
  await live.stop();
  clearInterval(flusher);
  log?.close();
  logger.flush();
}
