// How berth schedules pod groups: the gang part of BerthConfig, its defaults and its parsing.
import { isRecord } from '../model/record.ts';
import { positive } from './config-checks.ts';

/** How berth schedules pod groups. */
export interface GangConfig {
  /**
   * How long a group may stay partially placed (some members reserved and waiting) before
   * its reservations are released, when its PodGroup sets no `scheduleTimeoutSeconds`
   * (Coscheduling's default: 60 s).
   */
  scheduleTimeoutMs: number;
  /**
   * A group that cannot be placed whole preempts lower-priority pods and groups (taken
   * whole) across nodes when that makes the whole group fit (format 7), if its members'
   * profile has DefaultPreemption. Absent in logs from before berth's groups preempted:
   * blocked groups waited, and replay does the same; fresh runs record true.
   */
  preemption?: boolean;
  /**
   * A gang step whose first pass (members in gang order, kube's one pass) leaves an unlike
   * member unplaced tries again with that member first (`searchGroup`). Absent in logs from
   * before berth searched: one pass, and replay does the same; fresh runs record true.
   */
  search?: boolean;
  /**
   * The members of a core PodGroup (scheduling.k8s.io/v1beta1) left unplaced by a blocked
   * step get kube-scheduler 1.37.2's PodScheduled messages: `pod group is unschedulable,
   * <the PodGroup's condition message>` on those that fitted, the cycle's own `0/N nodes are
   * available: …` on the rest. Absent in logs from before: every member got berth's group
   * message, and replay does the same; fresh runs record true.
   */
  kubeMemberMessages?: boolean;
}

/** berth's gang scheduling defaults. */
export const defaultGangConfig: GangConfig = {
  scheduleTimeoutMs: 60_000,
  preemption: true,
  search: true,
  kubeMemberMessages: true,
};

/** The `gangs` object of a configuration file, checked; undefined when absent. */
export function parseGangs(raw: unknown): GangConfig | undefined {
  if (raw === undefined) return undefined;
  if (!isRecord(raw)) throw new Error('config gangs must be an object');
  if (raw.preemption !== undefined && typeof raw.preemption !== 'boolean')
    throw new Error('config gangs.preemption must be true or false');
  if (raw.search !== undefined && typeof raw.search !== 'boolean')
    throw new Error('config gangs.search must be true or false');
  if (raw.kubeMemberMessages !== undefined && typeof raw.kubeMemberMessages !== 'boolean')
    throw new Error('config gangs.kubeMemberMessages must be true or false');
  return {
    scheduleTimeoutMs: positive(
      raw.scheduleTimeoutMs,
      defaultGangConfig.scheduleTimeoutMs,
      'gangs.scheduleTimeoutMs',
    ),
    ...(raw.preemption === undefined ? {} : { preemption: raw.preemption }),
    ...(raw.search === undefined ? {} : { search: raw.search }),
    ...(raw.kubeMemberMessages === undefined ? {} : { kubeMemberMessages: raw.kubeMemberMessages }),
  };
}
