// The snapshot's incremental indexes: node topology labels, node images and nominated pods.
import { isTerminal } from '../model/phase.ts';
import type { ClusterState, NodeInfo, PodRecord } from './types.ts';

/** Adds `node`'s labels to the topology index. */
export function indexNodeLabels(state: ClusterState, node: NodeInfo): void {
  for (const key of Object.keys(node.labels)) {
    const value = node.labels[key] as string;
    let values = state.topology.get(key);
    if (values === undefined) {
      values = new Map();
      state.topology.set(key, values);
    }
    let names = values.get(value);
    if (names === undefined) {
      names = new Set();
      values.set(value, names);
    }
    names.add(node.name);
  }
}

/** Removes `node`'s labels (as they are now) from the topology index. */
export function unindexNodeLabels(state: ClusterState, node: NodeInfo): void {
  for (const key of Object.keys(node.labels)) {
    const values = state.topology.get(key);
    const names = values?.get(node.labels[key] as string);
    if (values === undefined || names === undefined) continue;
    names.delete(node.name);
    if (names.size === 0) values.delete(node.labels[key] as string);
    if (values.size === 0) state.topology.delete(key);
  }
}

/**
 * Adds a live node's images to the image index, as kube's addNodeImageStates: a name new
 * to the index takes this node's size; a known one keeps its size and counts one more node.
 * O(names on the node).
 */
export function indexNodeImages(state: ClusterState, node: NodeInfo): void {
  const index = state.imageStates;
  for (const [name, size] of node.images) {
    const summary = index.get(name);
    if (summary === undefined) index.set(name, { size, numNodes: 1 });
    else summary.numNodes += 1;
  }
}

/**
 * Removes a node's images (as they are now) from the image index, as kube's
 * removeNodeImageStates: a name no live node lists any more leaves the index (so its size
 * is forgotten). O(names on the node).
 */
export function unindexNodeImages(state: ClusterState, node: NodeInfo): void {
  const index = state.imageStates;
  for (const name of node.images.keys()) {
    const summary = index.get(name);
    if (summary === undefined) continue;
    if (summary.numNodes <= 1) index.delete(name);
    else summary.numNodes -= 1;
  }
}

/**
 * Whether a record belongs in the nominated index: waiting, unbound, unassumed, unfinished,
 * (when the state names them) one of the scheduler names whose nominations count, and
 * recorded by kube's nominator (see PodRecord.nominationUnrecorded).
 */
export function isNominated(state: ClusterState, record: PodRecord): boolean {
  const { info, charge } = record;
  return (
    info.nominatedNodeName !== undefined &&
    record.nominationUnrecorded !== true &&
    info.nodeName === undefined &&
    charge.kind === 'none' &&
    !isTerminal(info.phase) &&
    (state.nominationSchedulers === undefined || state.nominationSchedulers.has(info.schedulerName))
  );
}

/**
 * Counts only the nominations of pods naming one of `schedulers` (kube's nominator holds the
 * pods of its own queue), or every pod's (undefined); the index is rebuilt. O(pods).
 */
export function countNominationsOf(
  state: ClusterState,
  schedulers: ReadonlySet<string> | undefined,
): void {
  if (schedulers === undefined) delete state.nominationSchedulers;
  else state.nominationSchedulers = schedulers;
  state.nominated.clear();
  for (const record of state.pods.values()) indexNomination(state, record);
}

/** Adds a pod to the nominated index if it is nominated. */
export function indexNomination(state: ClusterState, record: PodRecord): void {
  if (!isNominated(state, record)) return;
  const target = record.info.nominatedNodeName as string;
  let pods = state.nominated.get(target);
  if (pods === undefined) {
    pods = new Map();
    state.nominated.set(target, pods);
  }
  pods.set(record.info.uid, record.info);
}

/** Removes a pod's record from the nominated index. */
export function unindexNomination(state: ClusterState, record: PodRecord): void {
  const target = record.info.nominatedNodeName;
  if (target === undefined) return;
  const pods = state.nominated.get(target);
  if (pods === undefined || pods.get(record.info.uid) !== record.info) return;
  pods.delete(record.info.uid);
  if (pods.size === 0) state.nominated.delete(target);
}
