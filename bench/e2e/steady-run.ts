// One steady-arrival run: a scheduler is up, pods arrive at a fixed rate, each pod's latency to bind.

import { readFileSync } from 'node:fs';
import type { Api } from '../../test/e2e/support/api.ts';
import { createPaced } from '../../test/e2e/support/arrivals.ts';
import { pod, pods } from '../../test/e2e/support/manifests.ts';
import { delay, waitFor } from '../../test/e2e/support/wait.ts';
import { type Latency, latency } from '../support/measure.ts';
import { auditLatencies, podAuditPolicy } from './audit-latency.ts';
import { watchBound } from './bindings.ts';
import { benchNamespace, upWithNodes } from './cluster-setup.ts';
import { cpuBetween, cpuSeconds, peakRssMiB, sampleCpu } from './proc-stats.ts';
import type { PooledSamples } from './report.ts';
import {
  type ClientLimits,
  podSchedulerName,
  type SchedulerName,
  startScheduler,
} from './schedulers.ts';

/** A steady-arrival scenario: `perSecond` pods/s for `seconds` on `nodes` nodes. */
export interface SteadyScenario {
  name: string;
  nodes: number;
  perSecond: number;
  seconds: number;
  limits: ClientLimits;
}

/** What one steady run measured. */
export interface SteadyResult {
  scheduler: SchedulerName;
  created: number;
  /** Pods/s the creator achieved. */
  arrivalRate: number;
  bound: number;
  /** Bind seen by the bench's watch − create answered, in ms (0 when the bind was seen first). */
  latencyMs: Latency;
  /**
   * The scheduler's share, from kube-apiserver's audit log: bind received − create answered,
   * in ms, for every pod the log shows created and bound (watch delivery, the decision, and
   * sending the bind; not the bind's own work in the API server, nor the bench's watch).
   */
  schedulerShareMs: Latency;
  /** Bind answered − bind received in kube-apiserver's audit log, ms (the API server and etcd). */
  bindMs: Latency;
  /** Bind answered − create answered in kube-apiserver's audit log, ms (no bench watch in it). */
  createToBoundMs: Latency;
  /** Scheduler CPU ms per pod while the pods arrived and were bound. */
  cpuMsPerPod: number;
  /** CPU ms per pod of each control-plane process (kube-apiserver, etcd, kwok) over the same window. */
  controlPlaneCpuMsPerPod: Record<string, number>;
  peakRssMiB: number;
  /** Times the bench's own watch was ended by the API server and resumed, and pods it relisted. */
  watchRestarts: number;
  relisted: number;
  /** Pods a list at the end finds bound that the watch never showed bound (their latency counts as unknown). */
  unseenBound: number;
}

/** A steady run's figures and its per-pod samples (kept out of the JSON, pooled over runs). */
export interface SteadyOutcome {
  result: SteadyResult;
  samples: PooledSamples;
}

/**
 * When the watch saw fewer than `count` bindings: how many pods of the namespace are bound
 * anyway (a missed watch event, not a missed binding). The warm-up pod is not counted.
 */
async function countUnseenBound(
  api: Api,
  boundAt: ReadonlyMap<string, number>,
  count: number,
): Promise<number> {
  if (boundAt.size >= count) return 0;
  const list = await api.ok<{
    items: Array<{ metadata: { name: string }; spec?: { nodeName?: string } }>;
  }>('GET', `/api/v1/namespaces/${benchNamespace}/pods`);
  return list.items.filter(
    (p) =>
      p.metadata.name !== 'warm-up' &&
      p.spec?.nodeName !== undefined &&
      !boundAt.has(p.metadata.name),
  ).length;
}

/**
 * The audit log's text; '' when the API server wrote none (the run's other figures stand,
 * and the audit figures show 0 pods).
 */
function readAuditLog(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    process.stderr.write(`no audit log at ${path}: ${(err as Error).message}\n`);
    return '';
  }
}

/** Runs `scenario` once for `scheduler` on a fresh control plane. */
export async function steadyRun(
  scenario: SteadyScenario,
  scheduler: SchedulerName,
): Promise<SteadyOutcome> {
  const bc = await upWithNodes(`bench-${scenario.name}-${scheduler}`, scenario.nodes, {
    auditPolicy: podAuditPolicy(benchNamespace),
  });
  let keep = true;
  try {
    const schedulerName = podSchedulerName(scheduler);
    const running = await startScheduler(scheduler, bc.cluster, scenario.limits);
    try {
      // Warm-up: the clock starts once the scheduler has bound one pod.
      await bc.api.createPod(benchNamespace, pod('warm-up', benchNamespace, { schedulerName }));
      await waitFor(
        `${scheduler} to bind the warm-up pod`,
        async () => {
          running.checkAlive();
          const p = await bc.api.ok<{ spec?: { nodeName?: string } }>(
            'GET',
            `/api/v1/namespaces/${benchNamespace}/pods/warm-up`,
          );
          return { ok: p.spec?.nodeName !== undefined, seen: p.spec };
        },
        { timeoutMs: 60_000, intervalMs: 50 },
      );
      const watch = await watchBound(bc.api, benchNamespace);
      const boundAt = watch.doneAt;
      const cpuBefore = cpuSeconds(running.pid);
      const controlPlane = bc.cluster.pids();
      const controlPlaneBefore = sampleCpu(controlPlane);
      const count = scenario.perSecond * scenario.seconds;
      const manifests = pods('a', benchNamespace, count, { schedulerName });
      const created = await createPaced(bc.api, benchNamespace, manifests, scenario.perSecond);
      const deadline = performance.now() + 30_000;
      while (boundAt.size < count && performance.now() < deadline) {
        running.checkAlive();
        await delay(50);
      }
      watch.stop();
      const unseenBound = await countUnseenBound(bc.api, boundAt, count);
      const cpuUsed = cpuSeconds(running.pid) - cpuBefore;
      const controlPlaneUsed = cpuBetween(controlPlaneBefore, sampleCpu(controlPlane));
      const ms = created.arrivals.map((a) => {
        const b = boundAt.get(a.name);
        return b === undefined ? Number.POSITIVE_INFINITY : Math.max(0, b - a.createdAt);
      });
      const audit = auditLatencies(
        readAuditLog(bc.cluster.auditLog),
        created.arrivals.map((a) => a.name),
      );
      if (audit.malformed > 0 || audit.unbound > 0)
        process.stderr.write(
          `${scenario.name} ${scheduler}: audit log ${bc.cluster.auditLog}: ${audit.malformed} ` +
            `unreadable line(s), ${audit.unbound} pod(s) created but never bound in it\n`,
        );
      keep = false;
      const result: SteadyResult = {
        scheduler,
        created: count - created.failed.length,
        arrivalRate: +created.rate.toFixed(1),
        bound: ms.filter(Number.isFinite).length,
        latencyMs: latency(ms),
        schedulerShareMs: latency(audit.schedulerMs),
        bindMs: latency(audit.bindMs),
        createToBoundMs: latency(audit.createToBoundMs),
        cpuMsPerPod: +((cpuUsed * 1000) / count).toFixed(3),
        controlPlaneCpuMsPerPod: Object.fromEntries(
          Object.entries(controlPlaneUsed).map(([name, s]) => [
            name,
            +((s * 1000) / count).toFixed(3),
          ]),
        ),
        peakRssMiB: peakRssMiB(running.pid),
        watchRestarts: watch.restarts,
        relisted: watch.relisted,
        unseenBound,
      };
      return {
        result,
        samples: {
          latencyMs: ms,
          schedulerShareMs: audit.schedulerMs,
          createToBoundMs: audit.createToBoundMs,
        },
      };
    } finally {
      await running.stop();
    }
  } finally {
    await bc.down(keep || process.env.BERTH_BENCH_KEEP !== undefined);
  }
}
