// The cluster-state reducer: folds the event log into nodes, pods and their charges, in place.
import type { BerthEvent, Envelope, ResourceKind } from '../events/types.ts';
import {
  applyCharge,
  bumpGeneration,
  keepAbsentNode,
  NO_CHARGE,
  releaseCharge,
  takeAbsentNode,
} from './charges.ts';
import { isRecord } from './fields.ts';
import { nodeInfoFromObject, updateNodeObject } from './node-info.ts';
import { podInfoFromObject } from './pod-info.ts';
import type { Charge, ClusterState, NodeInfo, PodInfo, PodRecord } from './types.ts';

/** How many rejected objects the state keeps for explanation (older ones are dropped). */
export const MAX_REJECTED = 100;

/** An empty cluster. */
export function initialState(): ClusterState {
  return {
    nodes: new Map(),
    nodeOrder: [],
    nodeIndex: new Map(),
    absentNodes: new Map(),
    generation: 0,
    pods: new Map(),
    resync: {},
    rejected: [],
    rejectedTotal: 0,
  };
}

/** The pod record for `namespace/name`, if the cluster has it. */
export function getPod(state: ClusterState, key: string): PodRecord | undefined {
  return state.pods.get(key);
}

/** The live node called `name`, if the cluster has it. */
export function getNode(state: ClusterState, name: string): NodeInfo | undefined {
  return state.nodes.get(name);
}

function reject(state: ClusterState, seq: number, kind: 'Node' | 'Pod', reason: string): void {
  state.rejected.push({ seq, kind, reason });
  if (state.rejected.length > MAX_REJECTED) state.rejected.shift();
  state.rejectedTotal += 1;
}

function upsertNode(state: ClusterState, raw: unknown, seq: number): void {
  const parsed = nodeInfoFromObject(raw);
  if ('rejected' in parsed) {
    reject(state, seq, 'Node', parsed.rejected);
    return;
  }
  const name = parsed.name;
  state.resync.Node?.add(name);
  const existing = state.nodes.get(name);
  if (existing !== undefined) {
    updateNodeObject(existing, parsed);
    bumpGeneration(state, existing);
    return;
  }
  // A node that comes back gets the charges of the pods still bound or assumed to it.
  const absent = takeAbsentNode(state, name);
  const node = absent === undefined ? parsed : updateNodeObject(absent, parsed);
  state.nodes.set(name, node);
  state.nodeIndex.set(name, state.nodeOrder.length);
  state.nodeOrder.push(node);
  bumpGeneration(state, node);
}

function deleteNode(state: ClusterState, name: string): void {
  const node = state.nodes.get(name);
  const index = state.nodeIndex.get(name);
  if (node === undefined || index === undefined) return;
  // Swap-remove: the last name takes the freed slot, so removal is O(1).
  const last = state.nodeOrder.pop();
  if (last !== undefined && last.name !== name) {
    state.nodeOrder[index] = last;
    state.nodeIndex.set(last.name, index);
  }
  state.nodeIndex.delete(name);
  state.nodes.delete(name);
  // Pods charged to it keep their charge; it is restored if the node is added again.
  keepAbsentNode(state, node);
}

const isTerminal = (info: PodInfo): boolean =>
  info.phase === 'Succeeded' || info.phase === 'Failed';

/**
 * Where an upserted pod is charged: on its node while bound and not finished (terminating
 * pods still count); on its assumed node while the binding is in flight; else nowhere.
 */
function chargeFor(info: PodInfo, current: Charge | undefined): Charge {
  if (isTerminal(info)) return NO_CHARGE;
  if (info.nodeName !== undefined) return { kind: 'bound', node: info.nodeName };
  if (current?.kind === 'assumed') return current;
  return NO_CHARGE;
}

/** Moves a pod's charge (and swaps in new info): uncharges the old, charges the new. */
function setRecord(state: ClusterState, key: string, info: PodInfo, charge: Charge): void {
  const old = state.pods.get(key);
  if (old !== undefined) releaseCharge(state, key, old.info, old.charge);
  applyCharge(state, key, info, charge);
  state.pods.set(key, { info, charge });
}

function upsertPod(state: ClusterState, raw: unknown, seq: number): void {
  const info = podInfoFromObject(raw);
  if ('rejected' in info) {
    reject(state, seq, 'Pod', info.rejected);
    return;
  }
  state.resync.Pod?.add(info.key);
  setRecord(state, info.key, info, chargeFor(info, state.pods.get(info.key)?.charge));
}

function deletePod(state: ClusterState, key: string): void {
  const record = state.pods.get(key);
  if (record === undefined) return;
  releaseCharge(state, key, record.info, record.charge);
  state.pods.delete(key);
}

function assume(state: ClusterState, key: string, node: string): void {
  const record = state.pods.get(key);
  if (record === undefined || record.info.nodeName !== undefined || isTerminal(record.info)) {
    return;
  }
  if (!state.nodes.has(node)) return;
  setRecord(state, key, record.info, { kind: 'assumed', node });
}

function forget(state: ClusterState, key: string, node: string): void {
  const record = state.pods.get(key);
  if (record?.charge.kind !== 'assumed' || record.charge.node !== node) return;
  setRecord(state, key, record.info, NO_CHARGE);
}

function finishResync(state: ClusterState, kind: ResourceKind): void {
  const seen = state.resync[kind];
  if (seen === undefined) return;
  delete state.resync[kind];
  if (kind === 'Node') {
    const unseen = state.nodeOrder.filter((n) => !seen.has(n.name)).map((n) => n.name);
    for (const name of unseen) deleteNode(state, name);
  } else {
    // Deleting the current entry while iterating a Map is safe in JavaScript.
    for (const key of state.pods.keys()) if (!seen.has(key)) deletePod(state, key);
  }
}

const isKind = (v: unknown): v is ResourceKind => v === 'Node' || v === 'Pod';
const isString = (v: unknown): v is string => typeof v === 'string';

/** Compile-time proof that every event type is handled. */
function exhaustive(_event: never): void {}

function apply(state: ClusterState, event: BerthEvent, seq: number): void {
  switch (event.type) {
    case 'NodeUpserted':
      upsertNode(state, event.node, seq);
      break;
    case 'NodeDeleted':
      if (isString(event.name)) deleteNode(state, event.name);
      break;
    case 'PodUpserted':
      upsertPod(state, event.pod, seq);
      break;
    case 'PodDeleted':
      if (isString(event.key)) deletePod(state, event.key);
      break;
    case 'ResyncStarted':
      if (isKind(event.kind)) state.resync[event.kind] = new Set();
      break;
    case 'ResyncDone':
      if (isKind(event.kind)) finishResync(state, event.kind);
      break;
    case 'PodAssumed':
      if (isString(event.key) && isString(event.node)) assume(state, event.key, event.node);
      break;
    case 'BindFailed':
      if (isString(event.key) && isString(event.node)) forget(state, event.key, event.node);
      break;
    case 'BindSucceeded':
    case 'PodUnschedulable':
    case 'TimerFired':
      break; // the cluster changes when the watch reports it, not before
    default:
      exhaustive(event);
  }
}

/**
 * Applies one event to the state, in place, and returns the same state: O(1) amortised per
 * event (a relist's ResyncDone is O(objects of that kind)). Never throws: malformed objects
 * become rejections or `invalid` reasons, and events that do not apply change nothing.
 */
export function evolve(state: ClusterState, env: Envelope): ClusterState {
  const e: unknown = env;
  let type = 'unknown';
  let seq = -1;
  try {
    const event: unknown = isRecord(e) ? e.event : undefined;
    if (!isRecord(event) || typeof event.type !== 'string') return state;
    type = event.type;
    if (isRecord(e) && typeof e.seq === 'number') seq = e.seq;
    apply(state, event as unknown as BerthEvent, seq);
  } catch (err) {
    // Unreachable by design (every parser is total); recorded rather than thrown so the fold
    // survives, and visible in `rejected` so that tests can assert it never happens.
    const message = err instanceof Error ? err.message : 'a non-Error value was thrown';
    const kind = type.startsWith('Node') ? 'Node' : 'Pod';
    reject(state, seq, kind, `internal error in evolve(${type}): ${message}`);
  }
  return state;
}
