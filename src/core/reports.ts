// The reports the core queues: a pod's PodScheduled=False with its FailedScheduling Event, and pod groups' status.
import type { CoreState } from './core-state.ts';
import type { PodScheduledReason } from './ports.ts';

/** Queues the PodScheduled=False report (and FailedScheduling Event) of pod `uid`. */
export function reportUnschedulable(
  core: CoreState,
  uid: string,
  key: string,
  message: string,
  reason: PodScheduledReason = 'Unschedulable',
): void {
  core.command({
    kind: 'reportUnschedulable',
    pod: { uid, key },
    message,
    observedGeneration: core.generationOf(uid),
    reason,
  });
}

/** Queues the status reports of the groups that changed (gang scheduling only). */
export function queueGroupReports(core: CoreState): void {
  // Checked here, not only inside takeReports: this runs after every input, and most
  // change no group (no callbacks made for nothing).
  if (core.config.gangs === undefined) return;
  if (!core.gangs.changed && core.groupEvents.size === 0) return;
  const reports = core.gangs.takeReports(
    core.cluster,
    (key) => {
      const spec = core.groupSpec(key);
      return 'missing' in spec ? undefined : spec.minMember;
    },
    (uid) => core.pods.has(uid),
    core.groupEvents,
  );
  core.groupEvents.clear();
  for (const report of reports) core.command({ kind: 'reportGroup', report });
}
