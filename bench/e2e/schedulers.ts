// The schedulers the end-to-end bench compares (and the null binder, their ceiling), started the same way against one control plane.
import { startBerth } from '../../test/e2e/support/berth.ts';
import type { Cluster } from '../../test/e2e/support/control-plane.ts';
import { freeLoopbackPort, startKubeScheduler } from '../../test/e2e/support/kube-scheduler.ts';
import { startNullBinder } from './null-binder-process.ts';
import type { ClientLimits, RunningScheduler, SchedulerName } from './scheduler-types.ts';

export type { ClientLimits, RunningScheduler, SchedulerName } from './scheduler-types.ts';

/** The two schedulers compared, in the order a run starts with. */
export const schedulerNames: readonly SchedulerName[] = ['berth', 'kube-scheduler'];

/** The two schedulers and the null binder. */
export const withNullBinder: readonly SchedulerName[] = [...schedulerNames, 'null-binder'];

/**
 * `names` in run `run`'s order, rotated by one per run (for two: berth first when `run` is
 * even, kube-scheduler when odd).
 */
export function runOrder(
  run: number,
  names: readonly SchedulerName[] = schedulerNames,
): readonly SchedulerName[] {
  const k = run % names.length;
  return [...names.slice(k), ...names.slice(0, k)];
}

/**
 * Starts `name` against `cluster` with the same client limits, no leader election and its
 * defaults otherwise, /metrics served on a free loopback port; returns at once (the bench's
 * clock starts at the spawn).
 */
export async function startScheduler(
  name: SchedulerName,
  cluster: Cluster,
  limits: ClientLimits,
): Promise<RunningScheduler> {
  if (name === 'null-binder') return startNullBinder(cluster, limits);
  if (name === 'kube-scheduler') {
    const securePort = await freeLoopbackPort();
    const startedAt = performance.now();
    const kube = startKubeScheduler(cluster, { qps: limits.qps, burst: limits.burst, securePort });
    return {
      name,
      pid: kube.pid,
      startedAt,
      checkAlive() {
        // kube-scheduler's exit shows as a process gone from /proc.
        try {
          process.kill(kube.pid, 0);
        } catch {
          throw new Error(`kube-scheduler exited; see ${kube.logPath}`);
        }
      },
      async metrics() {
        const r = await kube.get('/metrics');
        if (r.status !== 200) throw new Error(`kube-scheduler /metrics: HTTP ${r.status}`);
        return r.body;
      },
      stop: () => kube.stop(),
    };
  }
  const startedAt = performance.now();
  // Admin, as the kube-scheduler it is timed against: both pay the same authorization.
  const berth = await startBerth(cluster, {
    kubeconfig: cluster.kubeconfig,
    name: 'berth',
    waitForScheduling: false,
    nodeArgs: nodeArgs(),
    args: ['--qps', String(limits.qps), '--burst', String(limits.burst), ...berthArgs()],
  });
  return {
    name,
    pid: berth.pid,
    startedAt,
    checkAlive: () => berth.checkAlive(),
    async metrics() {
      const line = await berth.waitForLog(
        'its status server',
        (e) => e.msg === 'status server listening',
      );
      const res = await fetch(`${String((line as Record<string, unknown>).url)}/metrics`);
      if (res.status !== 200) throw new Error(`berth /metrics: HTTP ${res.status}`);
      return res.text();
    },
    stop: async () => {
      await berth.stop('SIGTERM', 10_000);
    },
  };
}

/**
 * Node flags for berth from BERTH_BENCH_NODE_ARGS, split on spaces, e.g.
 * `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile berth during the bench.
 */
function nodeArgs(): string[] {
  return (process.env.BERTH_BENCH_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');
}

/** Extra `berth run` flags from BERTH_BENCH_ARGS, split on spaces (e.g. `--heap-growth-percent 0`). */
function berthArgs(): string[] {
  return (process.env.BERTH_BENCH_ARGS ?? '').split(' ').filter((a) => a !== '');
}

/** The `spec.schedulerName` pods for `name` carry (`null`: left out, the default scheduler). */
export function podSchedulerName(name: SchedulerName): string | null {
  return name === 'kube-scheduler' ? null : name;
}
