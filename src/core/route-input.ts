// Routes one applied input to what it concerns: pod changes, bind and eviction results, relists and timers.
import type { PodEvent } from '../../machines/pod.machine.ts';
import type { ClusterChange } from '../cluster/types.ts';
import type { InputEvent } from '../events/types.ts';
import { onBindingClaimChange, onBindingTimer, onClaimsReserved } from './binding-wait-steps.ts';
import { releaseClaimWaiters } from './claim-gate.ts';
import type { CoreState } from './core-state.ts';
import { decide } from './evolve.ts';
import { expireHold } from './gang-hold.ts';
import { memberLost } from './gang-members.ts';
import { gangPreemptionFailed } from './gang-preemption.ts';
import { ownNominationCleared } from './nominations.ts';
import { onPodChange, podGone } from './pod-changes.ts';
import { bindErrorMessage } from './ports.ts';
import { noteVictimGone } from './preemption-waits.ts';
import { reportUnschedulable } from './reports.ts';
import { requeueParked } from './requeue.ts';

type Input<T extends InputEvent['type']> = Extract<InputEvent, { type: T }>;

/** Applies what input `event` means beyond the cluster state `change` the reducer folded. */
export function routeInput(core: CoreState, event: InputEvent, change: ClusterChange): void {
  switch (event.type) {
    case 'PodUpserted':
    case 'PodDeleted':
      if (change.kind === 'pod') onPodChange(core, change);
      return;
    case 'ResyncDone':
      onResyncDone(core, event, change);
      return;
    case 'BindSucceeded':
      onBindSucceeded(core, event);
      return;
    case 'BindFailed':
      onBindFailed(core, event);
      return;
    case 'PreemptionFailed':
      onPreemptionFailed(core, event);
      return;
    case 'ClaimDeallocationFailed':
      onDeallocationFailed(core, event);
      return;
    case 'ClaimsReserved':
      onClaimsReserved(core, event);
      return;
    case 'TimerFired':
      onTimer(core, event);
      return;
    case 'ObjectUpserted':
    case 'ObjectDeleted':
      releaseClaimWaiters(core, change);
      onBindingClaimChange(core, change);
      return;
    case 'NodeUpserted':
    case 'NodeDeleted':
    case 'ResyncStarted':
    case 'LeadershipChanged':
      return;
    default: {
      const unreachable: never = event;
      throw new Error(`unhandled event ${JSON.stringify(unreachable)}`);
    }
  }
}

/** A relist ended: pods it found gone are gone; PodGroups relisted let waiting members look again. */
function onResyncDone(core: CoreState, event: Input<'ResyncDone'>, change: ClusterChange): void {
  if (event.kind === 'PodGroup' || event.kind === 'CorePodGroup')
    requeueParked(core, 'Coscheduling');
  if (change.kind !== 'resync') return;
  for (const r of change.removedPods) {
    noteVictimGone(core, r.info.uid);
    core.gangs.notePod(r.info, undefined);
    podGone(core, r.info);
  }
}

/** A bind's result ends its held wait, if it had one (a failed claim write, or the end). */
function endBindingWait(core: CoreState, e: { uid: string; attempt: number }): void {
  if (core.bindingWaits.get(e.uid, e.attempt) === undefined) return;
  core.bindingWaits.remove(e.uid, e.attempt);
  core.disarmPodTimer(e.uid, 'bindingConditions');
}

function onBindSucceeded(core: CoreState, e: Input<'BindSucceeded'>): void {
  endBindingWait(core, e);
  const pod = { uid: e.uid, key: e.key };
  // The machine takes the result only while binding this very attempt (its guard).
  if (core.pods.send(e.uid, { type: 'BIND_SUCCEEDED', attempt: e.attempt })) {
    core.command({ kind: 'reportScheduled', pod, node: e.node });
    return;
  }
  // The watch may have shown the pod bound first (its machine has ended): still report it.
  const record = core.cluster.pods.get(e.uid);
  if (!core.pods.has(e.uid) && record?.info.nodeName === e.node)
    core.command({ kind: 'reportScheduled', pod, node: e.node });
}

function onBindFailed(core: CoreState, e: Input<'BindFailed'>): void {
  endBindingWait(core, e);
  const failed: PodEvent = {
    type: 'BIND_FAILED',
    attempt: e.attempt,
    message: e.message,
    now: core.now,
  };
  // The machine takes the failure only while binding this very attempt (its guard).
  if (!core.pods.send(e.uid, failed)) return;
  // Refused (403, 422, 5xx, no answer): kube's SchedulerError. A Conflict or NotFound
  // means the pod is gone, recreated or bound by someone else: the watch tells.
  if (e.reason === 'Error')
    reportUnschedulable(
      core,
      e.uid,
      e.key,
      bindErrorMessage(e.message, e.plugin),
      'SchedulerError',
    );
  // 1.35+: a failed binding cycle clears the pod's nomination (kube's clearNominatedNode).
  const cleared = ownNominationCleared(core, e);
  if (cleared !== undefined) decide(core, cleared);
  memberLost(core, e.uid, `${e.key} lost its place: binding failed: ${e.message}`);
}

function onPreemptionFailed(core: CoreState, e: Input<'PreemptionFailed'>): void {
  const message = `evicting ${e.victim.key} from ${e.node}: ${e.message}`;
  const failed: PodEvent = {
    type: 'PREEMPTION_FAILED',
    attempt: e.attempt,
    message,
    now: core.now,
  };
  // The machine takes the failure only while preempting for this very attempt (its guard).
  if (!core.pods.send(e.uid, failed)) return;
  core.preemptions.forget(e.uid);
  gangPreemptionFailed(core, e.uid);
  // Its PodScheduled=False said it waits for the victims: say that this failed. An
  // eviction the API server refused is an error, not a lack of room (kube: Error status).
  reportUnschedulable(core, e.uid, e.key, `preemption failed: ${message}`, 'SchedulerError');
}

/**
 * The API server refused the PostFilter's deallocation (kube: the PostFilter's statusError,
 * an Error): the pod is told, as for a refused eviction, unless it moved on to a newer
 * attempt. It stays where it is; a change of the claim requeues it.
 */
function onDeallocationFailed(core: CoreState, e: Input<'ClaimDeallocationFailed'>): void {
  if (core.pods.attemptOf(e.uid) !== e.attempt) return;
  const message = `deallocation of ResourceClaim ${e.claim.key} failed: ${e.message}`;
  reportUnschedulable(core, e.uid, e.key, message, 'SchedulerError');
}

function onTimer(core: CoreState, event: Input<'TimerFired'>): void {
  if (event.timer === 'flush') {
    onFlush(core);
    return;
  }
  if (typeof event.uid !== 'string') return;
  if (event.timer === 'backoff') {
    core.pods.fireBackoff(event.uid);
    return;
  }
  if (event.timer === 'bindingConditions') {
    onBindingTimer(core, event.uid);
    return;
  }
  // The permit timer: a pod still waiting gives up its reservation.
  core.pods.permitFired(event.uid, core.now);
  const m = core.pods.inspect(event.uid);
  const node = core.cluster.pods.get(event.uid)?.charge;
  if (m?.state !== 'waiting' || node?.kind !== 'assumed') return;
  decide(core, {
    type: 'PodUnreserved',
    uid: event.uid,
    key: m.key,
    attempt: m.attempt,
    node: node.node,
    reason: 'timed out waiting at permit',
  });
}

/** The periodic flush: holds expire, cooling ends, pods parked too long retry; it is armed again. */
function onFlush(core: CoreState): void {
  expireHold(core);
  for (const [key, until] of core.gangs.cooling)
    if (until <= core.now) core.gangs.cooling.delete(key);
  const stale = core.pods.parked.parkedLongerThan(core.now, core.config.maxParkedMs);
  for (const uid of stale) core.pods.send(uid, { type: 'REQUEUE', now: core.now });
  core.armFlush(core.now);
}
