// DynamicResources' PreEnqueue: a pod whose resource claims do not all exist yet waits, gated, until they do.
import type { ClusterChange, ClusterState, PodInfo } from '../cluster/types.ts';
import { name as dynamicResources } from '../plugins/dra/claims-cycle.ts';
import { podClaims } from '../plugins/dra/pod-claims.ts';
import type { CoreState } from './core-state.ts';

/**
 * Why pod `info` must wait before any cycle (kube's DynamicResources PreEnqueue), or
 * undefined: a claim made from a template that the resourceclaim controller has not made
 * (or not named in the pod's status) yet, a claim that does not exist, one being deleted,
 * or one made for another pod. Only where its profile runs DynamicResources, and only when
 * the configuration allocates claims (older logs refused such pods instead).
 */
export function claimGate(core: CoreState, info: PodInfo): string | undefined {
  if (info.resourceClaims === undefined || core.config.resourceClaims !== true) return undefined;
  const profile = core.profiles.get(info.schedulerName)?.profile;
  if (profile === undefined || !profile.preFilter.some((p) => p.name === dynamicResources))
    return undefined;
  const found = podClaims(info, core.cluster.objects.ResourceClaim);
  return 'message' in found ? found.message : undefined;
}

/** The claims (`namespace/name`) pod `info` names, made from templates or not. */
function claimKeysOf(info: PodInfo): string[] {
  const keys: string[] = [];
  for (const c of info.resourceClaims ?? []) {
    const name = c.claimName ?? c.generatedName;
    if (typeof name === 'string') keys.push(`${info.namespace}/${name}`);
  }
  return keys;
}

/**
 * The pods gated for claims, by each claim key they name: a superset (a pod that left
 * `gated` stays until that claim changes), rebuilt from the machines when absent. Kept per
 * cluster state, so a restored snapshot (a new state) starts from a fresh scan.
 */
const waitersByState = new WeakMap<ClusterState, Map<string, Set<string>>>();

function waitersOf(core: CoreState): Map<string, Set<string>> {
  let waiters = waitersByState.get(core.cluster);
  if (waiters !== undefined) return waiters;
  waiters = new Map();
  waitersByState.set(core.cluster, waiters);
  for (const uid of core.pods.uids()) {
    const info = core.cluster.pods.get(uid)?.info;
    if (info !== undefined && core.pods.stateOf(uid) === 'gated') addWaiter(waiters, uid, info);
  }
  return waiters;
}

function addWaiter(waiters: Map<string, Set<string>>, uid: string, info: PodInfo): void {
  for (const key of claimKeysOf(info)) {
    let uids = waiters.get(key);
    if (uids === undefined) {
      uids = new Set();
      waiters.set(key, uids);
    }
    uids.add(uid);
  }
}

/** Pod `info` was just gated for its claims: a change of any claim it names releases it. */
export function noteClaimWaiter(core: CoreState, info: PodInfo): void {
  addWaiter(waitersOf(core), info.uid, info);
}

/**
 * A ResourceClaim was added, changed or deleted: the gated pods of its namespace that name
 * it go back to the queue, where the gate is asked again before their cycle (a pod still
 * waiting for another claim is gated again there). kube's queueing hint for PreEnqueue.
 * Released in the machines' creation order.
 */
export function releaseClaimWaiters(core: CoreState, change: ClusterChange): void {
  if (change.kind !== 'object' || change.objectKind !== 'ResourceClaim') return;
  const waiters = waitersOf(core);
  const candidates = waiters.get(change.key);
  if (candidates === undefined) return;
  waiters.delete(change.key);
  const waiting = [...candidates].filter((uid) => {
    if (core.pods.stateOf(uid) !== 'gated') return false;
    const info = core.cluster.pods.get(uid)?.info;
    if (info === undefined || info.schedulingGates.length > 0) return false;
    return claimKeysOf(info).includes(change.key);
  });
  if (waiting.length > 1) {
    const order = new Map(core.pods.uids().map((uid, i) => [uid, i]));
    waiting.sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0));
  }
  for (const uid of waiting) core.pods.send(uid, { type: 'UNGATED' });
}
