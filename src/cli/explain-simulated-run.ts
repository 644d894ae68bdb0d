// The in-memory run both `berth explain` and `berth explain group` read with --cluster: the manifests, simulated as `berth simulate` runs them.
import type { BerthConfig } from '../core/config.ts';
import type { PodObject } from '../model/objects.ts';
import { type LogPart, memoryPart } from '../runtime/explain-log.ts';
import { simulate } from '../runtime/simulate.ts';
import { loadCluster } from './simulate-command.ts';

/**
 * Loads `files` (with the API server's admission defaults), lets `check` see the pods before
 * anything runs (it throws to refuse), then simulates them as `berth simulate` does (its
 * default bind latency, no failures, its horizon) and returns the recorded run as a log part.
 */
export function simulatedRun(
  files: string[],
  seed: number,
  config: BerthConfig,
  check: (pods: readonly PodObject[]) => void = () => {},
): LogPart {
  const { nodes, pods, objects } = loadCluster({
    files,
    seed,
    schedulerName: config.schedulerName,
  });
  check(pods);
  const lines: string[] = [];
  simulate({
    nodes,
    pods,
    objects,
    seed,
    config,
    bindLatencyMs: 5,
    bindFailureRate: 0,
    record: (line) => lines.push(line),
  });
  return memoryPart('the simulated run', lines);
}
