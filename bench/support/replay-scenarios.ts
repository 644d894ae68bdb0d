// The replay benchmarks' scenarios and how each one's log is recorded by the simulator.
import { generateWorkload } from '../../src/adapters/sim/workload.ts';
import { openLogFile } from '../../src/cli/log-file.ts';
import { defaultConfig } from '../../src/core/config.ts';
import type { SealKey } from '../../src/events/seal.ts';
import { simulate } from '../../src/runtime/simulate.ts';

/** A generated cluster whose simulated run is recorded, then replayed. */
export interface ReplayScenario {
  name: string;
  nodes: number;
  pods: number;
  bindFailureRate: number;
  horizonMs?: number;
}

/** The replay benchmark's scenarios (bench/README.md says what each shows). */
export const replayScenarios: ReplayScenario[] = [
  // Every pod fits; 30% of binds fail and are retried.
  { name: 'fit-200n-2000p', nodes: 200, pods: 2_000, bindFailureRate: 0.3 },
  // Every bind fails: the log is retries (reserve, bind, failure, backoff timer) for 5 min.
  { name: 'retry-50n-500p', nodes: 50, pods: 500, bindFailureRate: 1, horizonMs: 5 * 60_000 },
  // The kind of log issue 8 measured: 200 nodes, 20k pods, every bind fails; one virtual
  // minute is ~330k events (mostly backoff timers and unschedulable cycles), long enough
  // that JIT warm-up does not dominate the figure.
  { name: 'retry-200n-20000p', nodes: 200, pods: 20_000, bindFailureRate: 1, horizonMs: 60_000 },
];

/**
 * Records scenario `s`'s simulated run into the log file at `path` (sealed with `key` if
 * given); returns the run's decision digest.
 */
export function recordScenario(s: ReplayScenario, path: string, key?: SealKey): string {
  const { nodes, pods } = generateWorkload(s.nodes, s.pods, 42);
  const log = openLogFile(path);
  const summary = simulate({
    nodes,
    pods,
    seed: 7,
    config: defaultConfig,
    bindLatencyMs: 5,
    bindFailureRate: s.bindFailureRate,
    ...(s.horizonMs === undefined ? {} : { horizonMs: s.horizonMs }),
    record: log.sink,
    ...(key === undefined ? {} : { recordKey: key }),
  });
  log.close();
  return summary.decisionDigest;
}
