// One scheduling cycle for one pod (kube's scheduleOne): schedulePod, with exceptions named.
import type { ClusterSnapshot, PodInfo } from '../cluster/types.ts';
import { newRunning, runningPlugin } from './running.ts';
import { schedulePod } from './schedule-pod.ts';
import type { CycleResult, SchedulingContext } from './scheduling-context.ts';

export type { CycleResult, SchedulingContext } from './scheduling-context.ts';
export { runFilterPlugins } from './what-if.ts';

/**
 * Schedules `pod` against the snapshot as kube's scheduleOne does, deterministically (see
 * `schedulePod`: `findNodesThatFitPod` → `prioritizeNodes` → `selectHost`), advancing
 * `ctx.cursor`. A plugin that throws or returns Error ends the cycle with `Error` naming
 * the plugin. With `ctx.recorder`, the cycle tells it each step; without, nothing is
 * recorded and nothing is allocated for it.
 */
export function scheduleOne(
  pod: PodInfo,
  snapshot: ClusterSnapshot,
  ctx: SchedulingContext,
): CycleResult {
  const running = newRunning();
  try {
    return schedulePod(pod, snapshot, ctx, running);
  } catch (err) {
    const message = err instanceof Error ? err.message : `threw ${String(err)}`;
    return { kind: 'Error', plugin: runningPlugin(running), message };
  }
}
