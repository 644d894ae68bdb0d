// The cluster-state reducer: folds the event log into nodes, pods and their charges, in place.

import type { BerthEvent, Envelope, ResourceKind } from '../events/types.ts';
import type { ResourceClaimInfo } from '../model/dra-types.ts';
import { type KubeRelease, releaseAtLeast, unrecordedKubeRelease } from '../model/kube-release.ts';
import { isTerminal } from '../model/phase.ts';
import { AllocatedDevices } from './allocated-devices.ts';
import { finishIndexUpdate, reindexNode } from './capacity-index.ts';
import {
  applyCharge,
  bumpGeneration,
  keepAbsentNode,
  NO_CHARGE,
  releaseCharge,
  takeAbsentNode,
} from './charges.ts';
import {
  bindDone,
  claimChanged,
  releaseClaims,
  reserveClaims,
  reservedClaimsOf,
} from './claims-in-flight.ts';
import {
  emptyObjectStore,
  isObjectKind,
  type ObjectKind,
  objectKeyOf,
  objectParsers,
  optionalObjectKinds,
} from './cluster-objects.ts';
import { isRecord } from './fields.ts';
import {
  indexNodeImages,
  indexNodeLabels,
  indexNomination,
  unindexNodeImages,
  unindexNodeLabels,
  unindexNomination,
} from './indexes.ts';
import { nodeInfoFromObject, updateNodeObject } from './node-info.ts';
import { podInfoFromObject } from './pod-info.ts';
import type {
  Charge,
  ClusterChange,
  ClusterState,
  NodeFacts,
  NodeInfo,
  PodInfo,
  PodRecord,
  RejectedObject,
} from './types.ts';

/** How many rejected objects the state keeps for explanation (older ones are dropped). */
export const MAX_REJECTED = 100;

type ObjectChange = Extract<ClusterChange, { kind: 'object' }>;

/** The change of an event that changed nothing. */
export const NO_CHANGE: ClusterChange = Object.freeze({ kind: 'none' });

/** An empty cluster whose pods are charged as kube-scheduler `release` charges them. */
export function initialState(release: KubeRelease = unrecordedKubeRelease): ClusterState {
  return {
    release,
    nodes: new Map(),
    nodeOrder: [],
    nodeIndex: new Map(),
    absentNodes: new Map(),
    generation: 0,
    pods: new Map(),
    podUids: new Map(),
    topology: new Map(),
    nominated: new Map(),
    imageStates: new Map(),
    objects: emptyObjectStore(),
    unavailable: {},
    resync: {},
    rejected: [],
    rejectedTotal: 0,
    allocatedDevices: new AllocatedDevices(),
  };
}

/** The pod record of `uid`, if the cluster has it. */
export function getPod(state: ClusterState, uid: string): PodRecord | undefined {
  return state.pods.get(uid);
}

/** The record of the pod currently called `namespace/name`, if any. */
export function getPodByKey(state: ClusterState, key: string): PodRecord | undefined {
  const uid = state.podUids.get(key);
  return uid === undefined ? undefined : state.pods.get(uid);
}

/** The live node called `name`, if the cluster has it. */
export function getNode(state: ClusterState, name: string): NodeInfo | undefined {
  return state.nodes.get(name);
}

function reject(
  state: ClusterState,
  seq: number,
  kind: RejectedObject['kind'],
  reason: string,
): void {
  state.rejected.push({ seq, kind, reason });
  if (state.rejected.length > MAX_REJECTED) state.rejected.shift();
  state.rejectedTotal += 1;
}

function factsOf(node: NodeInfo): NodeFacts {
  return {
    labels: node.labels,
    taints: node.taints,
    unschedulable: node.unschedulable,
    allocatable: node.allocatable,
    declaredFeatures: node.declaredFeatures,
  };
}

function upsertNode(state: ClusterState, raw: unknown, seq: number): ClusterChange {
  const parsed = nodeInfoFromObject(raw);
  if ('rejected' in parsed) {
    reject(state, seq, 'Node', parsed.rejected);
    return NO_CHANGE;
  }
  const name = parsed.name;
  state.resync.Node?.add(name);
  const existing = state.nodes.get(name);
  if (existing !== undefined) {
    const before = factsOf(existing);
    unindexNodeLabels(state, existing);
    // kube's UpdateNode: the old images out, then the new ones in (sizes follow from that).
    unindexNodeImages(state, existing);
    updateNodeObject(existing, parsed);
    indexNodeLabels(state, existing);
    indexNodeImages(state, existing);
    bumpGeneration(state, existing);
    reindexNode(state, name);
    return { kind: 'node', name, before, after: existing };
  }
  // A node that comes back gets the charges of the pods still bound or assumed to it.
  const absent = takeAbsentNode(state, name);
  const node = absent === undefined ? parsed : updateNodeObject(absent, parsed);
  state.nodes.set(name, node);
  state.nodeIndex.set(name, state.nodeOrder.length);
  state.nodeOrder.push(node);
  indexNodeLabels(state, node);
  indexNodeImages(state, node);
  bumpGeneration(state, node);
  reindexNode(state, name);
  return { kind: 'node', name, before: undefined, after: node };
}

function deleteNode(state: ClusterState, name: string): ClusterChange {
  const node = state.nodes.get(name);
  const index = state.nodeIndex.get(name);
  if (node === undefined || index === undefined) return NO_CHANGE;
  // Swap-remove: the last name takes the freed slot, so removal is O(1).
  const last = state.nodeOrder.pop();
  if (last !== undefined && last.name !== name) {
    state.nodeOrder[index] = last;
    state.nodeIndex.set(last.name, index);
  }
  state.nodeIndex.delete(name);
  state.nodes.delete(name);
  unindexNodeLabels(state, node);
  unindexNodeImages(state, node);
  // Pods charged to it keep their charge; it is restored if the node is added again.
  keepAbsentNode(state, node);
  reindexNode(state, name);
  return { kind: 'node', name, before: factsOf(node), after: undefined };
}

/**
 * Where an upserted pod is charged: on its node while bound and not finished (terminating
 * pods still count); on its assumed node while the binding is in flight; else nowhere.
 */
function chargeFor(info: PodInfo, current: Charge | undefined): Charge {
  if (isTerminal(info.phase)) return NO_CHARGE;
  if (info.nodeName !== undefined) return { kind: 'bound', node: info.nodeName };
  if (current?.kind === 'assumed') return current;
  return NO_CHARGE;
}

/** Replaces a pod's record: uncharges and unindexes the old, charges and indexes the new. */
function setRecord(
  state: ClusterState,
  info: PodInfo,
  charge: Charge,
  nominationUnrecorded = false,
): PodRecord {
  const uid = info.uid;
  const old = state.pods.get(uid);
  if (old !== undefined) {
    releaseCharge(state, uid, old.info, old.charge);
    unindexNomination(state, old);
    // The same uid under another name (only junk input does this): the old name is free.
    if (old.info.key !== info.key && state.podUids.get(old.info.key) === uid)
      state.podUids.delete(old.info.key);
  }
  const record: PodRecord = { info, charge };
  if (nominationUnrecorded) record.nominationUnrecorded = true;
  applyCharge(state, uid, info, charge);
  if (old !== undefined && old.charge.kind !== 'none') reindexNode(state, old.charge.node);
  if (charge.kind !== 'none') reindexNode(state, charge.node);
  state.pods.set(uid, record);
  state.podUids.set(info.key, uid);
  indexNomination(state, record);
  return record;
}

function removeRecord(state: ClusterState, uid: string): PodRecord | undefined {
  const record = state.pods.get(uid);
  if (record === undefined) return undefined;
  releaseCharge(state, uid, record.info, record.charge);
  if (record.charge.kind !== 'none') reindexNode(state, record.charge.node);
  unindexNomination(state, record);
  state.pods.delete(uid);
  if (state.podUids.get(record.info.key) === uid) state.podUids.delete(record.info.key);
  return record;
}

function upsertPod(state: ClusterState, raw: unknown, seq: number): ClusterChange {
  const info = podInfoFromObject(raw, state.release);
  if ('rejected' in info) {
    reject(state, seq, 'Pod', info.rejected);
    return NO_CHANGE;
  }
  state.resync.Pod?.add(info.uid);
  // Another uid under the same name is a pod that was deleted and recreated: drop the old.
  const holder = state.podUids.get(info.key);
  const replaced =
    holder !== undefined && holder !== info.uid ? removeRecord(state, holder) : undefined;
  const before = state.pods.get(info.uid);
  const nominated = keepNomination(info, before, state.followsNominationRemoval === true);
  // kube 1.35–1.36's nominator skips a pod added while gated, until its next update.
  const unrecorded =
    before === undefined && info.schedulingGates.length > 0 && skipsGatedOnAdd(state.release);
  const after = setRecord(state, nominated, chargeFor(info, before?.charge), unrecorded);
  return { kind: 'pod', uid: info.uid, before, after, replaced };
}

/**
 * Whether kube-scheduler `release`'s queue leaves a pod added while gated out of its
 * nominator (1.35 and 1.36; #139057 fixed it in 1.37). berth's 1.34 logs counted it.
 */
function skipsGatedOnAdd(release: KubeRelease): boolean {
  return releaseAtLeast(release, '1.35') && !releaseAtLeast(release, '1.37');
}

/**
 * An update of an unbound pod whose object names no nominated node keeps the nomination
 * the pod had (kube's nominator does the same): berth's own nomination is decided before
 * the API's status patch lands, and an update in between must not undo it. A nomination
 * ends when the pod is bound or gone, when berth clears it, or when the object names
 * another node; with `follow` (kube's UpdateNominatedPod rule) also when the object before
 * this update named one: whoever wrote it removed it.
 */
function keepNomination(info: PodInfo, before: PodRecord | undefined, follow: boolean): PodInfo {
  const kept = before?.info.nominatedNodeName;
  if (kept === undefined || info.nominatedNodeName !== undefined || info.nodeName !== undefined)
    return info;
  if (follow && before?.info.statusNominatedNodeName !== undefined) return info;
  return { ...info, nominatedNodeName: kept };
}

/**
 * Nominates unbound, uncharged pod `uid` to `node` (a preemption's decision), or clears
 * its nomination (undefined). The pod's record carries it; the nominated index follows.
 */
function nominate(state: ClusterState, uid: string, node: string | undefined): ClusterChange {
  const record = state.pods.get(uid);
  if (record === undefined || record.charge.kind !== 'none') return NO_CHANGE;
  const info = record.info;
  if (info.nodeName !== undefined || info.nominatedNodeName === node) return NO_CHANGE;
  unindexNomination(state, record);
  record.info = { ...info, nominatedNodeName: node };
  indexNomination(state, record);
  return NO_CHANGE;
}

function deletePod(state: ClusterState, uid: string): ClusterChange {
  releaseClaims(state, uid);
  const before = removeRecord(state, uid);
  if (before === undefined) return NO_CHANGE;
  return { kind: 'pod', uid, before, after: undefined, replaced: undefined };
}

/** Reserve: charges an unbound, unfinished pod to a live node as assumed by `attempt`. */
function assume(state: ClusterState, uid: string, node: string, attempt: number): ClusterChange {
  const record = state.pods.get(uid);
  if (record === undefined || record.info.nodeName !== undefined || isTerminal(record.info.phase)) {
    return NO_CHANGE;
  }
  if (!state.nodes.has(node)) return NO_CHANGE;
  const before = record.charge;
  const after = setRecord(state, record.info, { kind: 'assumed', node, attempt }).charge;
  return { kind: 'charge', uid, before, after };
}

/** Forgets the assumption of `attempt` on `node`; any other charge is left alone. */
function forget(state: ClusterState, uid: string, node: string, attempt: number): ClusterChange {
  const record = state.pods.get(uid);
  const charge = record?.charge;
  if (record === undefined || charge?.kind !== 'assumed') return NO_CHANGE;
  if (charge.node !== node || charge.attempt !== attempt) return NO_CHANGE;
  setRecord(state, record.info, NO_CHARGE);
  return { kind: 'charge', uid, before: charge, after: NO_CHARGE };
}

function upsertObject(
  state: ClusterState,
  kind: ObjectKind,
  raw: unknown,
  seq: number,
): ClusterChange {
  const key = objectKeyOf(kind, raw);
  const parsed = objectParsers[kind](raw);
  if (key === undefined || 'rejected' in parsed) {
    reject(
      state,
      seq,
      kind,
      'rejected' in parsed ? parsed.rejected : `${kind} has no metadata.name`,
    );
    return NO_CHANGE;
  }
  state.resync[kind]?.add(key);
  const store = state.objects[kind] as Map<string, unknown>;
  const before = store.get(key) as ObjectChange['before'];
  store.set(key, parsed.value);
  noteSliceChange(state, kind);
  if (kind === 'ResourceClaim')
    claimChanged(state, before as ResourceClaimInfo | undefined, parsed.value as ResourceClaimInfo);
  return { kind: 'object', objectKind: kind, key, before, after: parsed.value };
}

/** A ResourceSlice or DeviceTaintRule changed: what was derived from the slices is stale. */
function noteSliceChange(state: ClusterState, kind: ObjectKind): void {
  if (kind === 'ResourceSlice' || kind === 'DeviceTaintRule')
    state.sliceVersion = (state.sliceVersion ?? 0) + 1;
}

function deleteObject(state: ClusterState, kind: ObjectKind, key: string): ClusterChange {
  const store = state.objects[kind] as Map<string, unknown>;
  const before = store.get(key) as ObjectChange['before'];
  if (before === undefined) return NO_CHANGE;
  store.delete(key);
  noteSliceChange(state, kind);
  if (kind === 'ResourceClaim') claimChanged(state, before as ResourceClaimInfo, undefined);
  return { kind: 'object', objectKind: kind, key, before, after: undefined };
}

/**
 * The end of a relist of an object kind: objects not seen are deleted. Reported as the
 * deletion of the first of them (one change per event); hints treat object changes by
 * kind, so the first stands for all.
 */
function finishObjectResync(
  state: ClusterState,
  kind: ObjectKind,
  seen: Set<string>,
): ClusterChange {
  let first: ClusterChange = NO_CHANGE;
  for (const key of [...state.objects[kind].keys()]) {
    if (seen.has(key)) continue;
    const change = deleteObject(state, kind, key);
    if (first === NO_CHANGE) first = change;
  }
  return first;
}

function finishResync(
  state: ClusterState,
  kind: ResourceKind,
  unavailable: string | undefined,
): ClusterChange {
  const seen = state.resync[kind];
  if (seen === undefined) return NO_CHANGE;
  delete state.resync[kind];
  if (isObjectKind(kind)) {
    // Only an optional kind may be unavailable; for another the field means nothing.
    if (unavailable !== undefined && optionalObjectKinds.has(kind)) {
      state.unavailable[kind] = unavailable;
      return finishObjectResync(state, kind, new Set());
    }
    delete state.unavailable[kind];
    return finishObjectResync(state, kind, seen);
  }
  const removedNodes: string[] = [];
  const removedPods: PodRecord[] = [];
  if (kind === 'Node') {
    for (const node of state.nodeOrder) if (!seen.has(node.name)) removedNodes.push(node.name);
    for (const name of removedNodes) deleteNode(state, name);
  } else {
    for (const uid of state.pods.keys()) {
      if (seen.has(uid)) continue;
      // Deleting the current entry while iterating a Map is safe in JavaScript.
      const record = removeRecord(state, uid);
      if (record !== undefined) removedPods.push(record);
    }
  }
  return { kind: 'resync', removedNodes, removedPods };
}

const isKind = (v: unknown): v is ResourceKind => v === 'Node' || v === 'Pod' || isObjectKind(v);
const isString = (v: unknown): v is string => typeof v === 'string';
const isAttempt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

/** Compile-time proof that every event type is handled. */
function exhaustive(_event: never): ClusterChange {
  return NO_CHANGE;
}

function apply(state: ClusterState, event: BerthEvent, seq: number): ClusterChange {
  switch (event.type) {
    case 'NodeUpserted':
      return upsertNode(state, event.node, seq);
    case 'NodeDeleted':
      return isString(event.name) ? deleteNode(state, event.name) : NO_CHANGE;
    case 'PodUpserted':
      return upsertPod(state, event.pod, seq);
    case 'PodDeleted':
      return isString(event.uid) ? deletePod(state, event.uid) : NO_CHANGE;
    case 'ObjectUpserted':
      return isObjectKind(event.kind)
        ? upsertObject(state, event.kind, event.object, seq)
        : NO_CHANGE;
    case 'ObjectDeleted':
      return isObjectKind(event.kind) && isString(event.key)
        ? deleteObject(state, event.kind, event.key)
        : NO_CHANGE;
    case 'ResyncStarted':
      if (isKind(event.kind)) state.resync[event.kind] = new Set();
      return NO_CHANGE;
    case 'ResyncDone':
      return isKind(event.kind)
        ? finishResync(
            state,
            event.kind,
            isString(event.unavailable) ? event.unavailable : undefined,
          )
        : NO_CHANGE;
    case 'PodReserved':
      if (!isString(event.uid) || !isString(event.node) || !isAttempt(event.attempt))
        return NO_CHANGE;
      if (event.claims !== undefined)
        reserveClaims(state, event.uid, event.attempt, reservedClaimsOf(event.claims));
      return assume(state, event.uid, event.node, event.attempt);
    case 'BindFailed':
    case 'PodUnreserved':
      if (!isString(event.uid) || !isString(event.node) || !isAttempt(event.attempt))
        return NO_CHANGE;
      releaseClaims(state, event.uid, event.attempt);
      return forget(state, event.uid, event.node, event.attempt);
    case 'BindSucceeded':
      if (isString(event.uid) && isAttempt(event.attempt))
        bindDone(state, event.uid, event.attempt);
      return NO_CHANGE; // the pod is bound when the watch reports it
    case 'PodNominated':
    case 'PodHeld':
      return isString(event.uid) && isString(event.node)
        ? nominate(state, event.uid, event.node)
        : NO_CHANGE;
    case 'NominationCleared':
      return isRecord(event.pod) && isString(event.pod.uid)
        ? nominate(state, event.pod.uid, undefined)
        : NO_CHANGE;
    case 'VictimPreempted':
    case 'PreemptionFailed':
    case 'ClaimDeallocationRequested':
    case 'ClaimDeallocationFailed':
    case 'ClaimsReserved':
    case 'BindingConditionsMet':
    case 'BindingConditionsFailed':
    case 'BindRequested':
    case 'PodWaiting':
    case 'PodUnschedulable':
    case 'CycleFailed':
    case 'TimerFired':
    case 'LeadershipChanged':
      return NO_CHANGE; // the cluster changes when the watch reports it, not before
    default:
      return exhaustive(event);
  }
}

/**
 * Applies one event to the state, in place, and returns what changed: O(1) amortised per
 * event (a relist's ResyncDone is O(objects of that kind)). Never throws: malformed objects
 * become rejections or `invalid` reasons, and events that do not apply change nothing.
 */
export function reduce(state: ClusterState, env: Envelope): ClusterChange {
  const e: unknown = env;
  let type = 'unknown';
  let seq = -1;
  const generation = state.generation;
  try {
    const event: unknown = isRecord(e) ? e.event : undefined;
    if (!isRecord(event) || typeof event.type !== 'string') return NO_CHANGE;
    type = event.type;
    if (isRecord(e) && typeof e.seq === 'number') seq = e.seq;
    return apply(state, event as unknown as BerthEvent, seq);
  } catch (err) {
    // Unreachable by design (every parser is total); recorded rather than thrown so the fold
    // survives, and visible in `rejected` so that tests can assert it never happens.
    const message = err instanceof Error ? err.message : 'a non-Error value was thrown';
    const kind = type.startsWith('Node') ? 'Node' : 'Pod';
    reject(state, seq, kind, `internal error in evolve(${type}): ${message}`);
    return NO_CHANGE;
  } finally {
    finishIndexUpdate(state, generation);
  }
}

/** `reduce`, returning the state (the fold's classic shape, for tests and tools). */
export function evolve(state: ClusterState, env: Envelope): ClusterState {
  reduce(state, env);
  return state;
}
