// Consistency checks of a ClusterState: what the reducer must keep true after every event.

import { isTerminal } from '../model/phase.ts';
import { amountsJson, subAmounts } from './amount.ts';
import { absentNodes } from './charges.ts';
import { isNominated } from './indexes.ts';
import { checkPodAffinity } from './pod-affinity-invariants.ts';
import {
  addNonZero,
  addResources,
  type NonZeroRequests,
  resourcesEqual,
  zeroResources,
} from './resources.ts';
import type { ClusterState, NodeInfo } from './types.ts';

function checkNodeCharges(state: ClusterState, node: NodeInfo, where: string, out: string[]): void {
  const sum = zeroResources();
  const nonZero: NonZeroRequests = { milliCPU: 0, memory: 0 };
  for (const [key, held] of node.pods) {
    const record = state.pods.get(key);
    if (record === undefined) {
      out.push(`${where} ${node.name} holds unknown pod ${key}`);
      continue;
    }
    if (record.charge.kind === 'none' || record.charge.node !== node.name) {
      out.push(`${where} ${node.name} holds ${key}, whose charge is elsewhere`);
    }
    if (held !== record.info) out.push(`${where} ${node.name} holds a stale copy of pod ${key}`);
    addResources(sum, record.info.requests, 1);
    addNonZero(nonZero, record.info.nonZeroRequests, 1);
  }
  if (!resourcesEqual(sum, node.requested)) {
    out.push(
      `${where} ${node.name}: requested ${amountsJson(node.requested)} ≠ sum of pods ${amountsJson(sum)}`,
    );
  }
  if (
    nonZero.milliCPU !== node.nonZeroRequested.milliCPU ||
    nonZero.memory !== node.nonZeroRequested.memory
  ) {
    out.push(`${where} ${node.name}: nonZeroRequested ≠ sum of pods`);
  }
}

/**
 * Lists every broken invariant of `state` (empty when consistent): node order and index agree;
 * each node's `requested`/`nonZeroRequested`/`pods` are exactly the sums over the pods charged
 * to it; every charge points at a node (live or held while absent) that holds the pod; charges
 * agree with pod fields (bound ⇔ nodeName set and not finished; assumed only without nodeName);
 * the indexes (topology, images, nominations, pod affinity lists, groups and memo) agree with
 * a recomputation. O(nodes + pods) (× memo entries): for tests and debugging, not the hot path.
 */
export function checkClusterInvariants(state: ClusterState): string[] {
  const out: string[] = [];
  if (state.nodeOrder.length !== state.nodes.size || state.nodeIndex.size !== state.nodes.size) {
    out.push('nodeOrder, nodeIndex and nodes differ in size');
  }
  state.nodeOrder.forEach((node, i) => {
    const name = node.name;
    if (state.nodeIndex.get(name) !== i) out.push(`nodeIndex of ${name} is not ${i}`);
    if (state.nodes.get(name) !== node) out.push(`nodeOrder holds a stale or unknown node ${name}`);
  });
  for (const node of state.nodes.values()) {
    checkNodeCharges(state, node, 'node', out);
    const a = node.allocatable;
    const r = node.requested;
    if (
      node.freeMilliCPU !== subAmounts(a.milliCPU, r.milliCPU) ||
      node.freeMemory !== subAmounts(a.memory, r.memory) ||
      node.freeEphemeralStorage !== subAmounts(a.ephemeralStorage, r.ephemeralStorage) ||
      node.freePods !== a.pods - node.pods.size ||
      node.allocMilliCPU !== a.milliCPU ||
      node.allocMemory !== a.memory ||
      node.nonZeroMilliCPU !== node.nonZeroRequested.milliCPU ||
      node.nonZeroMemory !== node.nonZeroRequested.memory
    ) {
      out.push(`node ${node.name}: inline headroom disagrees with allocatable − requested`);
    }
  }
  const absent = absentNodes(state);
  for (const node of absent.values()) {
    if (state.nodes.has(node.name)) out.push(`absent node ${node.name} is also live`);
    if (node.pods.size === 0) out.push(`absent node ${node.name} holds no pods`);
    checkNodeCharges(state, node, 'absent node', out);
  }
  if (state.podUids.size !== state.pods.size) out.push('podUids and pods differ in size');
  for (const [key, uid] of state.podUids) {
    if (state.pods.get(uid)?.info.key !== key) out.push(`podUids maps ${key} to a stale uid`);
  }
  for (const [key, { info, charge }] of state.pods) {
    if (info.uid !== key) out.push(`pod stored under ${key} has uid ${info.uid}`);
    const finished = isTerminal(info.phase);
    if (charge.kind === 'none') {
      if (info.nodeName !== undefined && !finished) out.push(`bound pod ${key} is not charged`);
      continue;
    }
    const node = state.nodes.get(charge.node) ?? absent.get(charge.node);
    if (node?.pods.has(key) !== true) out.push(`pod ${key} is not held by ${charge.node}`);
    if (charge.kind === 'bound' && (info.nodeName !== charge.node || finished)) {
      out.push(`pod ${key} is charged as bound to ${charge.node} but is not`);
    }
    if (charge.kind === 'assumed' && info.nodeName !== undefined) {
      out.push(`pod ${key} is assumed but already has a nodeName`);
    }
  }
  checkIndexes(state, out);
  checkPodAffinity(state, out);
  return out;
}

/**
 * The image index counts, for each name, exactly the live nodes listing it, and holds no
 * other name. (Sizes are history, as in kube's cache, so they are not recomputable here.)
 */
function checkImageIndex(state: ClusterState, out: string[]): void {
  const counts = new Map<string, number>();
  for (const node of state.nodes.values())
    for (const name of node.images.keys()) counts.set(name, (counts.get(name) ?? 0) + 1);
  for (const [name, n] of counts) {
    const indexed = state.imageStates.get(name)?.numNodes;
    if (indexed !== n) out.push(`image index counts ${indexed ?? 0} nodes with ${name}, not ${n}`);
  }
  for (const name of state.imageStates.keys())
    if (!counts.has(name)) out.push(`image index holds ${name}, which no live node lists`);
}

/** The topology, image and nomination indexes agree with a recomputation from scratch. */
function checkIndexes(state: ClusterState, out: string[]): void {
  checkImageIndex(state, out);
  let entries = 0;
  for (const node of state.nodes.values()) {
    for (const [k, v] of Object.entries(node.labels)) {
      entries++;
      if (state.topology.get(k)?.get(v)?.has(node.name) !== true)
        out.push(`topology index lacks ${k}=${v} on ${node.name}`);
    }
  }
  let indexed = 0;
  for (const values of state.topology.values())
    for (const names of values.values()) indexed += names.size;
  if (indexed !== entries)
    out.push(`topology index holds ${indexed} entries, nodes have ${entries}`);
  let nominated = 0;
  for (const record of state.pods.values()) {
    if (!isNominated(state, record)) continue;
    const { info } = record;
    const target = info.nominatedNodeName as string;
    nominated++;
    if (state.nominated.get(target)?.get(info.uid) !== info)
      out.push(`pod ${info.key} nominated to ${target} is not indexed`);
  }
  let indexedNominated = 0;
  for (const pods of state.nominated.values()) indexedNominated += pods.size;
  if (indexedNominated !== nominated) out.push('nominated index holds stale pods');
}
