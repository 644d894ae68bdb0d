// One pod's scheduling cycle with its profile, and the decisions its result leads to.
import type { PodInfo } from '../cluster/types.ts';
import { type CycleResult, scheduleOne } from '../framework/cycle.ts';
import type { Profile } from '../framework/types.ts';
import type { CoreState } from './core-state.ts';
import { decide } from './evolve.ts';
import { decidePreemption } from './preemption-plan.ts';

/** Each profile without its PostFilters, made once: a gang step never preempts. */
const withoutPostFilters = new WeakMap<Profile, Profile>();

function plainProfile(profile: Profile): Profile {
  let plain = withoutPostFilters.get(profile);
  if (plain === undefined) {
    plain = { ...profile, postFilter: [] };
    withoutPostFilters.set(profile, plain);
  }
  return plain;
}

/** One cycle for `pod` with its profile (without PostFilters for a gang step), against the current state. */
export function cycleFor(core: CoreState, pod: PodInfo, withPostFilters = true): CycleResult {
  const { ctx } = core;
  const inUse = core.profiles.get(pod.schedulerName);
  if (inUse !== undefined) {
    ctx.profile = withPostFilters ? inUse.profile : plainProfile(inUse.profile);
    ctx.percentageOfNodesToScore = inUse.percentageOfNodesToScore;
  }
  ctx.now = core.now;
  return scheduleOne(pod, core.cluster, ctx);
}

/**
 * Runs `pod`'s cycle and decides: reserved and bound (Permit allows every reservation at
 * once: no plugin of the profile waits yet), nominated with victims (preemption),
 * unschedulable with the rejecting plugins, or failed in a plugin.
 */
export function decideCycle(core: CoreState, pod: PodInfo): void {
  const ref = core.refOf(pod);
  const result = cycleFor(core, pod);
  if (result.kind === 'Unschedulable' && result.nomination !== undefined) {
    decidePreemption(core, ref, result.message, result.nomination);
  } else if (result.kind === 'Scheduled') {
    decide(core, { type: 'PodReserved', ...ref, node: result.node });
    decide(core, { type: 'BindRequested', ...ref, node: result.node });
  } else if (result.kind === 'Unschedulable') {
    decide(core, { type: 'PodUnschedulable', ...ref, message: result.message }, [
      ...result.diagnosis.unschedulablePlugins,
    ]);
  } else {
    decide(core, { type: 'CycleFailed', ...ref, plugin: result.plugin, message: result.message });
  }
}
