// DRA PreBind's wait for device binding conditions, event-sourced: held at BindRequested, begun at ClaimsReserved, settled by claim changes or the binding timer.
import type { ClusterChange } from '../cluster/types.ts';
import type { ClaimsReserved } from '../events/types.ts';
import { bindingTimeoutText, podBindingState } from '../plugins/dra/binding-conditions.ts';
import type { BindingWait } from './binding-waits.ts';
import type { CoreState } from './core-state.ts';
import { decide } from './evolve.ts';

/** kube's error when PollUntilContextTimeout's deadline passes first. */
export const bindingDeadlineMessage = `${bindingTimeoutText}: context deadline exceeded`;

/**
 * ClaimsReserved: the claims are written, the wait begins (kube's Event
 * BindingConditionsPending, then PollUntilContextTimeout with an immediate first check):
 * the binding timer is armed at now + bindingTimeout and the devices are checked at once.
 */
export function onClaimsReserved(core: CoreState, e: ClaimsReserved): void {
  const wait = core.bindingWaits.get(e.uid, e.attempt);
  if (wait === undefined || wait.deadline !== undefined) return;
  wait.deadline = core.now + wait.timeoutMs;
  const pod = { uid: e.uid, key: e.key };
  core.armPodTimer(pod, 'bindingConditions', wait.deadline);
  core.command({ kind: 'reportBindingWait', pod, node: wait.node });
  checkWait(core, wait);
}

/** A ResourceClaim changed or went away: the waits on it look again. */
export function onBindingClaimChange(core: CoreState, change: ClusterChange): void {
  if (change.kind !== 'object' || change.objectKind !== 'ResourceClaim') return;
  const uid = (change.after ?? change.before) as { uid?: string } | undefined;
  for (const wait of core.bindingWaits.waitingOn({ key: change.key, uid: uid?.uid }))
    checkWait(core, wait);
}

/** The binding timer fired: a wait still held past its deadline gives up (kube's timeout). */
export function onBindingTimer(core: CoreState, uid: string): void {
  const wait = core.bindingWaits.of(uid);
  if (wait?.deadline === undefined || core.now < wait.deadline) return;
  settle(core, wait, { kind: 'failed', message: bindingDeadlineMessage });
}

/** kube's isPodReadyForBinding over the held bind's claims as the state shows them now. */
function checkWait(core: CoreState, wait: BindingWait): void {
  const claims = wait.claims.map((c) => {
    const claim = core.cluster.objects.ResourceClaim.get(c.key);
    // Right after PreBind the watch may not show the allocation yet: the cycle's stands in.
    const own = claim?.uid === c.uid ? c.allocation : undefined;
    return own === undefined ? { key: c.key, claim } : { key: c.key, claim, allocation: own };
  });
  const state = podBindingState(claims, core.now, wait.timeoutMs);
  if (state.kind !== 'pending') settle(core, wait, state);
}

function settle(
  core: CoreState,
  wait: BindingWait,
  state: { kind: 'ready' } | { kind: 'failed'; message: string },
): void {
  const { uid, key, attempt, node } = wait;
  if (state.kind === 'ready')
    decide(core, { type: 'BindingConditionsMet', uid, key, attempt, node });
  else
    decide(core, {
      type: 'BindingConditionsFailed',
      uid,
      key,
      attempt,
      node,
      message: state.message,
    });
}
