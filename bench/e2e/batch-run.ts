// One batch run: nodes and pending pods exist, a scheduler starts, the clock stops at the last bind.
import { pods } from '../../test/e2e/support/manifests.ts';
import { delay } from '../../test/e2e/support/wait.ts';
import { watchBound } from './bindings.ts';
import { benchNamespace, createAll, upWithNodes } from './cluster-setup.ts';
import { type SchedulerCost, sampleCpu, schedulerCost } from './proc-stats.ts';
import {
  type ClientLimits,
  podSchedulerName,
  type SchedulerName,
  startScheduler,
} from './schedulers.ts';

/** The size and client limits of a batch scenario. */
export interface BatchScenario {
  name: string;
  nodes: number;
  pods: number;
  limits: ClientLimits;
  /** Give up on a run after this long without every pod bound. */
  timeoutMs: number;
}

/** What one batch run measured (times in seconds from the scheduler's spawn). */
export interface BatchResult extends SchedulerCost {
  scheduler: SchedulerName;
  bound: number;
  firstBindS: number;
  lastBindS: number;
  /** Pods ÷ (last bind − spawn). */
  podsPerSecFromStart: number;
  /** (Pods − 1) ÷ (last bind − first bind). */
  podsPerSecAfterFirstBind: number;
  /** Times the bench's own watch was ended by the API server and resumed, and pods it relisted. */
  watchRestarts: number;
  relisted: number;
}

const round = (x: number, digits = 3) => +x.toFixed(digits);

/** Runs `scenario` once for `scheduler` on a fresh control plane. */
export async function batchRun(
  scenario: BatchScenario,
  scheduler: SchedulerName,
): Promise<BatchResult> {
  const bc = await upWithNodes(`bench-${scenario.name}-${scheduler}`, scenario.nodes);
  let keep = true;
  try {
    const manifests = pods('p', benchNamespace, scenario.pods, {
      schedulerName: podSchedulerName(scheduler),
    });
    await createAll(bc.api, `/api/v1/namespaces/${benchNamespace}/pods`, manifests);
    const watch = await watchBound(bc.api, benchNamespace);
    const boundAt = watch.doneAt;
    const controlPlane = bc.cluster.pids();
    const before = sampleCpu(controlPlane);
    const running = await startScheduler(scheduler, bc.cluster, scenario.limits);
    try {
      const deadline = running.startedAt + scenario.timeoutMs;
      while (boundAt.size < scenario.pods) {
        if (performance.now() > deadline)
          throw new Error(
            `${scheduler}: ${boundAt.size}/${scenario.pods} pods bound after ${scenario.timeoutMs / 1000} s (cluster kept in ${bc.cluster.dir})`,
          );
        running.checkAlive();
        await delay(20);
      }
      const cost = schedulerCost(running.pid, controlPlane, before, scenario.pods);
      const times = [...boundAt.values()].map((at) => at - running.startedAt);
      const first = Math.min(...times) / 1000;
      const last = Math.max(...times) / 1000;
      keep = false;
      return {
        scheduler,
        bound: boundAt.size,
        firstBindS: round(first),
        lastBindS: round(last),
        podsPerSecFromStart: round(scenario.pods / last, 1),
        podsPerSecAfterFirstBind: round((scenario.pods - 1) / (last - first), 1),
        ...cost,
        watchRestarts: watch.restarts,
        relisted: watch.relisted,
      };
    } finally {
      watch.stop();
      await running.stop();
    }
  } finally {
    await bc.down(keep || process.env.BERTH_BENCH_KEEP !== undefined);
  }
}
