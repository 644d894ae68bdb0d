// Moving parked pods back to the queue: by the rejecting plugins' queueing hints, or all those one plugin rejected.
import { NO_CHANGE } from '../cluster/reducer.ts';
import type { ClusterChange } from '../cluster/types.ts';
import { changeCouldHelp, pluginsHelpedBy } from '../queue/requeue.ts';
import type { CoreState } from './core-state.ts';

/** Moves back the parked pods that `change` could help, by the rejecting plugins' hints. */
export function requeueHelped(core: CoreState, change: ClusterChange): void {
  const parked = core.pods.parked;
  if (parked.size === 0 || change === NO_CHANGE || change.kind === 'none') return;
  const moving = core.profiles.size === 1 ? helpedByOne(core, change) : helpedByEach(core, change);
  const holder = core.gangs.hold?.key;
  for (const uid of moving) {
    const info = holder === undefined ? undefined : core.cluster.pods.get(uid)?.info;
    const retry = info !== undefined && core.groupOf(info) === holder;
    core.pods.send(uid, retry ? { type: 'RETRY' } : { type: 'REQUEUE', now: core.now });
  }
}

/**
 * The parked pods `change` could help, with the one profile's hints (kube's rule, as
 * `changeCouldHelp`): found through the pool's index by rejecting plugin, in parking order.
 */
function helpedByOne(core: CoreState, change: ClusterChange): string[] {
  const hints = core.ctx.profile.queueingHints;
  const helped = pluginsHelpedBy(change, hints);
  return core.pods.parked.parkedWhere((plugin) => helped.has(plugin) || !hints.has(plugin));
}

/** The parked pods `change` could help, each judged by its own profile's hints (computed once per profile). */
function helpedByEach(core: CoreState, change: ClusterChange): string[] {
  const moving: string[] = [];
  const helpedBy = new Map<string, Set<string>>();
  for (const [uid, entry] of core.pods.parked.entries()) {
    const name = core.cluster.pods.get(uid)?.info.schedulerName ?? '';
    const hints = (core.profiles.get(name)?.profile ?? core.ctx.profile).queueingHints;
    let helped = helpedBy.get(name);
    if (helped === undefined) {
      helped = pluginsHelpedBy(change, hints);
      helpedBy.set(name, helped);
    }
    if (changeCouldHelp(entry, helped, hints)) moving.push(uid);
  }
  return moving;
}

/** Moves back every parked pod that `plugin` rejected. */
export function requeueParked(core: CoreState, plugin: string): void {
  const moving: string[] = [];
  for (const [uid, entry] of core.pods.parked.entries())
    if (entry.plugins.includes(plugin)) moving.push(uid);
  for (const uid of moving) core.pods.send(uid, { type: 'REQUEUE', now: core.now });
}
