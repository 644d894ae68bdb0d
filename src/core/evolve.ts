// Evolve: stamps one decision, folds it into the cluster state and moves the machines it concerns.
import { corePodGroupKeyOfGroup } from '../cluster/core-pod-groups.ts';
import { reduce } from '../cluster/reducer.ts';
import type { DecisionEvent, Envelope, PodRef } from '../events/types.ts';
import { cycleErrorText } from '../framework/running.ts';
import { bindingPlugin, bindingWaitFor, claimRefsOf } from './binding-wait-hold.ts';
import type { ClaimBinding } from './commands.ts';
import type { CoreState } from './core-state.ts';
import { reportUnschedulable } from './reports.ts';
import { requeueHelped } from './requeue.ts';

type Handlers = {
  [T in DecisionEvent['type']]: (
    core: CoreState,
    d: Extract<DecisionEvent, { type: T }>,
    plugins: readonly string[],
  ) => void;
};

/** The DRA claims the reserved attempt's bind writes first (none for most pods). */
function claimBindingsOf(
  core: CoreState,
  uid: string,
  attempt: number,
): ClaimBinding[] | undefined {
  const reservation = core.cluster.claimReservations?.get(uid);
  if (reservation === undefined || reservation.attempt !== attempt) return undefined;
  return reservation.claims.map((c) => {
    const [namespace = '', name = ''] = c.key.split('/');
    return {
      namespace,
      name,
      uid: c.uid,
      ...(c.allocation ? { allocation: c.allocation } : {}),
      ...(c.podGroup ? { podGroup: c.podGroup } : {}),
      ...(c.extended ? { extended: c.extended } : {}),
    };
  });
}

/**
 * What each decision does beyond the cluster state (which the reducer folds): the machine
 * transitions it causes and the commands it queues. A planner's later steps see it applied.
 */
const handlers: Handlers = {
  // The charge is assumed (reduced); the machine moves with Permit's verdict.
  PodReserved: () => {},
  PodWaiting: (core, d) => {
    core.pods.send(d.uid, { type: 'RESERVED', node: d.node, permit: 'wait' });
    core.pods.armPermit(d, core.now + d.timeoutMs);
  },
  BindRequested: (core, d) => {
    // A pod waiting at Permit is allowed (only `waiting` takes ALLOWED); else it is reserved now.
    if (core.pods.send(d.uid, { type: 'ALLOWED' })) core.pods.disarmPermit(d.uid);
    else core.pods.send(d.uid, { type: 'RESERVED', node: d.node, permit: 'allow' });
    const claims = claimBindingsOf(core, d.uid, d.attempt);
    const reservation = core.cluster.claimReservations?.get(d.uid);
    const wait = bindingWaitFor(
      core,
      d,
      reservation?.attempt === d.attempt ? reservation.claims : undefined,
    );
    if (wait !== undefined) core.bindingWaits.add(wait);
    core.command({
      kind: 'bind',
      attempt: { uid: d.uid, key: d.key, attempt: d.attempt },
      node: d.node,
      ...(claims === undefined ? {} : { claims }),
      ...(wait === undefined ? {} : { awaitBindingConditions: true as const }),
    });
  },
  BindingConditionsMet: (core, d) => {
    const claims = claimRefsOf(core.bindingWaits.get(d.uid, d.attempt));
    core.bindingWaits.remove(d.uid, d.attempt);
    core.disarmPodTimer(d.uid, 'bindingConditions');
    const attempt = { uid: d.uid, key: d.key, attempt: d.attempt };
    core.command({ kind: 'completeBind', attempt, node: d.node, claims });
  },
  BindingConditionsFailed: (core, d) => {
    const claims = claimRefsOf(core.bindingWaits.get(d.uid, d.attempt));
    core.bindingWaits.remove(d.uid, d.attempt);
    core.disarmPodTimer(d.uid, 'bindingConditions');
    const attempt = { uid: d.uid, key: d.key, attempt: d.attempt };
    const failure = { plugin: bindingPlugin, message: d.message };
    core.command({ kind: 'completeBind', attempt, node: d.node, claims, failure });
  },
  PodUnreserved: (core, d) => {
    core.pods.send(d.uid, { type: 'UNRESERVED', reason: d.reason, now: core.now });
  },
  PodUnschedulable: (core, d, plugins) => {
    core.pods.send(d.uid, { type: 'UNSCHEDULABLE', message: d.message, plugins, now: core.now });
    reportUnschedulable(core, d.uid, d.key, d.message);
  },
  CycleFailed: (core, d) => {
    const message = cycleErrorText(d);
    core.pods.send(d.uid, { type: 'CYCLE_FAILED', message, now: core.now });
    // kube's handleSchedulingFailure: an Error status is still told on the pod (SchedulerError).
    reportUnschedulable(core, d.uid, d.key, message, 'SchedulerError');
  },
  PodNominated: (core, d) => {
    core.pods.send(d.uid, { type: 'PREEMPTING', node: d.node, message: d.message, now: core.now });
    core.preemptions.start(d.uid, d.node);
    reportUnschedulable(core, d.uid, d.key, d.message);
    core.command({ kind: 'nominate', pod: { uid: d.uid, key: d.key }, node: d.node });
  },
  VictimPreempted: (core, d) => {
    const charge = core.cluster.pods.get(d.victim.uid)?.charge;
    if (charge !== undefined && charge.kind !== 'none' && charge.node === d.node)
      core.preemptions.addVictim(d.uid, d.victim.uid);
    core.command({
      kind: 'preempt',
      preemptor: { uid: d.uid, key: d.key, attempt: d.attempt },
      schedulerName: core.cluster.pods.get(d.uid)?.info.schedulerName ?? '',
      victim: d.victim,
      node: d.node,
      observedGeneration: core.generationOf(d.victim.uid),
      ...preemptorGroupOf(core, d.uid),
    });
  },
  NominationCleared: (core, d) => {
    core.command({ kind: 'nominate', pod: d.pod, node: undefined });
  },
  ClaimDeallocationRequested: (core, d) => {
    core.command({
      kind: 'deallocateClaim',
      pod: { uid: d.uid, key: d.key, attempt: d.attempt },
      claim: d.claim,
    });
  },
  PodHeld: (core, d) => {
    core.command({ kind: 'nominate', pod: { uid: d.uid, key: d.key }, node: d.node });
  },
};

/**
 * Stamps `decision` with the next seq at the step's logical time, records it in the step,
 * folds it into the cluster state and applies it (`plugins`: the rejecting plugins of a
 * PodUnschedulable, for queueing hints); parked pods it could help move back.
 */
export function decide(
  core: CoreState,
  decision: DecisionEvent,
  plugins: readonly string[] = [],
): void {
  const env: Envelope<DecisionEvent> = { seq: core.seq + 1, time: core.now, event: decision };
  core.seq = env.seq;
  core.lastTime = env.time;
  core.inspect?.('before', env, core.cluster);
  core.recordDecision(env);
  const change = reduce(core.cluster, env);
  const apply = handlers[decision.type] as (
    core: CoreState,
    d: DecisionEvent,
    plugins: readonly string[],
  ) => void;
  apply(core, decision, plugins);
  requeueHelped(core, change);
  core.inspect?.('after', env, core.cluster);
}

/** `{ preemptorGroup }` when pod `uid` preempts as a member of a core PodGroup, else nothing. */
function preemptorGroupOf(core: CoreState, uid: string): { preemptorGroup?: PodRef } {
  const info = core.cluster.pods.get(uid)?.info;
  const group = info === undefined ? undefined : core.groupOf(info);
  const objectKey = group === undefined ? undefined : corePodGroupKeyOfGroup(group);
  const pg = objectKey === undefined ? undefined : core.cluster.objects.CorePodGroup.get(objectKey);
  return pg === undefined ? {} : { preemptorGroup: { uid: pg.uid ?? '', key: pg.key } };
}
