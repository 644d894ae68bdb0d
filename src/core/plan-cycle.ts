// One pod's scheduling cycle with its profile, and the decisions its result leads to, planned as data.
import type { PodInfo } from '../cluster/types.ts';
import type { AttemptRef, DecisionEvent } from '../events/types.ts';
import { type CycleResult, scheduleOne } from '../framework/cycle.ts';
import type { CycleUnschedulable } from '../framework/scheduling-context.ts';
import type { Nomination, Profile } from '../framework/types.ts';
import type { CoreState } from './core-state.ts';
import { decide } from './evolve.ts';
import { ownNominationCleared } from './nominations.ts';
import { settlePreemption } from './preemption-waits.ts';

/** A decision a planner returns, with the plugins that rejected the pod (for a PodUnschedulable). */
export interface Planned {
  decision: DecisionEvent;
  plugins?: readonly string[];
}

/**
 * Each profile without its PostFilters, made once: a gang step's members run none (the
 * group preempts as a whole: gang-preemption.ts).
 */
const withoutPostFilters = new WeakMap<Profile, Profile>();

function plainProfile(profile: Profile): Profile {
  let plain = withoutPostFilters.get(profile);
  if (plain === undefined) {
    plain = { ...profile, postFilter: [] };
    withoutPostFilters.set(profile, plain);
  }
  return plain;
}

/**
 * One cycle for `pod` with its profile (without PostFilters for a gang step), against the
 * current state; `adapt`, when given, extends the profile for this cycle (a gang step's
 * topology domain).
 */
export function cycleFor(
  core: CoreState,
  pod: PodInfo,
  withPostFilters = true,
  adapt?: (profile: Profile) => Profile,
): CycleResult {
  const { ctx } = core;
  const inUse = core.profiles.get(pod.schedulerName);
  if (inUse !== undefined) {
    const profile = withPostFilters ? inUse.profile : plainProfile(inUse.profile);
    ctx.profile = adapt === undefined ? profile : adapt(profile);
    ctx.percentageOfNodesToScore = inUse.percentageOfNodesToScore;
  }
  ctx.now = core.now;
  return scheduleOne(pod, core.cluster, ctx);
}

/**
 * What `pod`'s cycle decides, as data: reserved and bound (Permit allows every
 * reservation at once: no plugin of the profile waits yet), nominated with victims
 * (preemption), unschedulable with the rejecting plugins, or failed in a plugin. From
 * 1.35 a failure kube answers with clearNominatedNode also clears the pod's nomination. A
 * claim the DynamicResources PostFilter deallocates follows as ClaimDeallocationRequested.
 */
export function planCycle(
  core: CoreState,
  pod: PodInfo,
  adapt?: (profile: Profile) => Profile,
): Planned[] {
  const ref = core.refOf(pod);
  const result = cycleFor(core, pod, true, adapt);
  switch (result.kind) {
    case 'Scheduled':
      return [
        {
          decision: {
            type: 'PodReserved',
            ...ref,
            node: result.node,
            ...(result.claims === undefined ? {} : { claims: result.claims }),
          },
        },
        { decision: { type: 'BindRequested', ...ref, node: result.node } },
      ];
    case 'Unschedulable': {
      const planned = planUnschedulable(core, ref, result);
      // The PostFilter's deallocation comes last: planners read the first decision.
      if (result.deallocate !== undefined)
        planned.push({
          decision: { type: 'ClaimDeallocationRequested', ...ref, claim: result.deallocate },
        });
      return planned;
    }
    default: {
      const failed: Planned = {
        decision: {
          type: 'CycleFailed',
          ...ref,
          plugin: result.plugin,
          message: result.message,
          ...(result.point === undefined ? {} : { point: result.point }),
        },
      };
      return withOwnClearing(core, ref, [failed]);
    }
  }
}

/** A failed cycle: nominated with victims (preemption), or unschedulable. */
function planUnschedulable(
  core: CoreState,
  ref: AttemptRef,
  result: CycleUnschedulable,
): Planned[] {
  if (result.nomination !== undefined)
    return planPreemption(core, ref, result.message, result.nomination);
  const planned: Planned[] = [
    {
      decision: { type: 'PodUnschedulable', ...ref, message: result.message },
      plugins: [...result.diagnosis.unschedulablePlugins],
    },
  ];
  return result.clearsNomination === true ? withOwnClearing(core, ref, planned) : planned;
}

/** `planned`, then the clearing of the pod's own nomination when kube would clear it. */
function withOwnClearing(core: CoreState, ref: AttemptRef, planned: Planned[]): Planned[] {
  const cleared = ownNominationCleared(core, ref);
  return cleared === undefined ? planned : [...planned, { decision: cleared }];
}

/**
 * A preemption made room: the preemptor is nominated, each victim evicted (one waiting at
 * Permit is rejected instead, as kube does), lower nominations to the node cleared.
 */
function planPreemption(
  core: CoreState,
  ref: AttemptRef,
  message: string,
  n: Nomination,
): Planned[] {
  const out: Planned[] = [{ decision: { type: 'PodNominated', ...ref, node: n.node, message } }];
  for (const victim of n.victims) {
    const waiting = core.pods.inspect(victim.uid);
    const charge = core.cluster.pods.get(victim.uid)?.charge;
    const pod = { uid: victim.uid, key: victim.key };
    if (waiting?.state === 'waiting' && charge?.kind === 'assumed') {
      const reason = `preempted by ${ref.key} (${ref.uid})`;
      const attempt = waiting.attempt;
      const decision: DecisionEvent = {
        type: 'PodUnreserved',
        ...pod,
        attempt,
        node: charge.node,
        reason,
      };
      out.push({ decision });
    } else {
      out.push({ decision: { type: 'VictimPreempted', ...ref, node: n.node, victim: pod } });
    }
  }
  for (const p of n.clearNominated) {
    const pod = { uid: p.uid, key: p.key };
    out.push({ decision: { type: 'NominationCleared', ...ref, node: n.node, pod } });
  }
  return out;
}

/**
 * Runs `pod`'s cycle and applies what it planned; a preemptor with no victim left to wait
 * for is retried at once.
 */
export function decideCycle(
  core: CoreState,
  pod: PodInfo,
  adapt?: (profile: Profile) => Profile,
): void {
  const planned = planCycle(core, pod, adapt);
  for (const p of planned) decide(core, p.decision, p.plugins);
  if (planned[0]?.decision.type === 'PodNominated') settlePreemption(core, pod.uid);
}
