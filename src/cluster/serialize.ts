// ClusterState to and from plain JSON data, for the core's snapshot (log rotation).

import type { ResourceKind } from '../events/types.ts';
import { type KubeRelease, unrecordedKubeRelease } from '../model/kube-release.ts';
import type { Taint } from '../model/objects.ts';
import { buildPodAffinityIndex, indexAffinityPod } from './charges.ts';
import * as inFlight from './claims-in-flight.ts';
import { isObjectKind, type ObjectKind, objectKinds } from './cluster-objects.ts';
import { parseDeclaredFeatures } from './declared-features.ts';
import { disruptionBudgetData, restoreDisruptionBudget } from './disruption-budgets.ts';
import { emptyRecord, isRecord } from './fields.ts';
import { imagePairs } from './image-pairs.ts';
import { NO_IMAGES } from './images.ts';
import { indexNodeImages, indexNodeLabels, indexNomination } from './indexes.ts';
import { newNodeInfo, refreshHeadroom } from './node-info.ts';
import { restoredPodAffinity } from './pod-affinity.ts';
import { noVolumes } from './pod-volumes.ts';
import { initialState } from './reducer.ts';
import {
  isPlainResources,
  type NonZeroData,
  nonZeroData,
  nonZeroFromData,
  podGroupData,
  podGroupFromData,
  type ResourcesData,
  resourcesData,
  resourcesFromData,
} from './resources-data.ts';
import { noSpreadConstraints } from './spread-constraints.ts';
import type {
  Charge,
  ClusterState,
  NodeInfo,
  PodInfo,
  PodRecord,
  RejectedObject,
} from './types.ts';

/**
 * A node as a snapshot holds it: its object part, what is charged to it (stored, not
 * re-summed, so that the amounts are bit-identical) and the uids charged, in charge order.
 * The inline headroom fields are recomputed on restore.
 */
export interface NodeData {
  name: string;
  labels: Record<string, string>;
  taints: Taint[];
  unschedulable: boolean;
  allocatable: ResourcesData & { pods: number };
  /** Absent (JSON drops undefined) for a usable node. */
  invalid?: string | undefined;
  /** `images` as [name, sizeBytes] pairs; absent for a node without images. */
  images?: [string, number][];
  /** `declaredFeatures`; absent when the node declares none. */
  declaredFeatures?: string[];
  requested: ResourcesData;
  nonZeroRequested: NonZeroData;
  generation: number;
  /** The uids of the pods charged here, in the order they were charged. */
  pods: string[];
}

/** A PodInfo as JSON holds it: its amounts as in ResourcesData. */
export type PodInfoData = Omit<PodInfo, 'requests' | 'nonZeroRequests'> & {
  requests: ResourcesData;
  nonZeroRequests: NonZeroData;
};

/**
 * A pod as a snapshot holds it. `info` is the PodInfo itself (its undefined fields drop out
 * in JSON), or a copy with its amounts as data when one is beyond 2^53.
 */
export interface PodData {
  info: PodInfoData;
  charge: Charge;
  /** PodRecord.nominationUnrecorded (absent when false, as in older snapshots). */
  nominationUnrecorded?: true;
}

/**
 * Everything of a ClusterState that later decisions depend on, as plain data. The indexes
 * (`nodeIndex`, `podUids`, `topology`, `nominated`, the image counts) are not stored: they
 * are rebuilt, which is deterministic, from the nodes and pods in their stored order. Only
 * the image index's sizes are stored, as the nodes alone cannot tell them.
 */
export interface ClusterStateData extends inFlight.ClaimsInFlightData {
  /** Last node generation handed out. */
  generation: number;
  /** Live nodes, in the order of the `nodes` map. */
  nodes: NodeData[];
  /** The names of `nodeOrder` (the sampling order a cycle walks, with its cursor). */
  nodeOrder: string[];
  /** Deleted or never-seen nodes that still hold charges, in map order. */
  absentNodes: NodeData[];
  /**
   * The image index's [name, size] pairs in index order. kube keeps the size of the node
   * that first reported a name, even after that node left, so the sizes are history, not a
   * function of the live nodes. Absent in snapshots older than the index: sizes then come
   * from the first live node listing each name.
   */
  imageSizes?: [string, number][];
  /** Every pod, in the order of the `pods` map. */
  pods: PodData[];
  /**
   * The other watched kinds: per kind, [key, parsed view] pairs in store order (the parsed
   * views are plain JSON data; a PodDisruptionBudget's `disruptedPods` set is written as a
   * list, see `disruptionBudgetData`). Absent in snapshots older than object watches.
   */
  objects?: Partial<Record<ObjectKind, [string, unknown][]>>;
  /** Optional kinds the API server does not serve, with its message; absent in older snapshots. */
  unavailable?: Partial<Record<ObjectKind, string>>;
  /** Open relists: what each has seen so far. */
  resync: Partial<Record<ResourceKind, string[]>>;
  rejected: RejectedObject[];
  rejectedTotal: number;
}

/** Why a snapshot's cluster data cannot be restored. */
export class SnapshotDataError extends Error {
  constructor(message: string) {
    super(`snapshot: ${message}`);
    this.name = 'SnapshotDataError';
  }
}

/** `info` as data: itself (shared, as the reducer never mutates it) unless it holds a bigint. */
function podInfoData(info: PodInfo): PodInfoData {
  const { requests, nonZeroRequests } = info;
  if (
    isPlainResources(requests) &&
    typeof nonZeroRequests.milliCPU === 'number' &&
    typeof nonZeroRequests.memory === 'number'
  ) {
    // Every amount was just checked to be a number, which is its own data form.
    return info as unknown as PodInfoData;
  }
  return {
    ...info,
    requests: resourcesData(requests),
    nonZeroRequests: nonZeroData(nonZeroRequests),
  };
}

function nodeData(node: NodeInfo): NodeData {
  const data: NodeData = {
    name: node.name,
    // Labels and taints are replaced, never mutated, by the reducer: shared.
    labels: node.labels,
    taints: node.taints,
    unschedulable: node.unschedulable,
    allocatable: { ...resourcesData(node.allocatable), pods: node.allocatable.pods },
    requested: resourcesData(node.requested),
    nonZeroRequested: nonZeroData(node.nonZeroRequested),
    generation: node.generation,
    pods: [...node.pods.keys()],
  };
  if (node.invalid !== undefined) data.invalid = node.invalid;
  if (node.images.size > 0) data.images = Array.from(node.images);
  if (node.declaredFeatures.length > 0) data.declaredFeatures = [...node.declaredFeatures];
  return data;
}

/**
 * The state as plain data (no Map, Set or class; JSON round-trips it exactly). PodInfo
 * objects, which the reducer never mutates, are shared rather than copied, so this is
 * O(nodes + pods) with little allocation; everything mutable is copied.
 */
export function serializeClusterState(state: ClusterState): ClusterStateData {
  const pods: PodData[] = new Array(state.pods.size);
  let i = 0;
  for (const { info, charge, nominationUnrecorded: u } of state.pods.values())
    pods[i++] = { info: podInfoData(info), charge, ...(u ? { nominationUnrecorded: u } : {}) };
  const resync: ClusterStateData['resync'] = {};
  for (const kind of Object.keys(state.resync) as ResourceKind[]) {
    const seen = state.resync[kind];
    if (seen !== undefined) resync[kind] = [...seen];
  }
  const objects: NonNullable<ClusterStateData['objects']> = {};
  for (const kind of objectKinds) {
    const store: ReadonlyMap<string, unknown> = state.objects[kind];
    if (store.size === 0) continue;
    objects[kind] =
      kind === 'PodDisruptionBudget'
        ? Array.from(state.objects.PodDisruptionBudget, ([key, b]) => [
            key,
            disruptionBudgetData(b),
          ])
        : kind === 'PodGroup'
          ? Array.from(state.objects.PodGroup, ([key, g]) => [key, podGroupData(g)])
          : Array.from(store);
  }
  return {
    generation: state.generation,
    nodes: Array.from(state.nodes.values(), nodeData),
    nodeOrder: state.nodeOrder.map((n) => n.name),
    absentNodes: Array.from(state.absentNodes.values(), nodeData),
    imageSizes: Array.from(state.imageStates, ([name, s]): [string, number] => [name, s.size]),
    pods,
    objects,
    ...(Object.keys(state.unavailable).length === 0
      ? {}
      : { unavailable: { ...state.unavailable } }),
    resync,
    rejected: state.rejected.map((r) => ({ ...r })),
    rejectedTotal: state.rejectedTotal,
    ...inFlight.claimsInFlightData(state),
  };
}

/** Throws the snapshot's error (for the data-form readers of resources-data.ts). */
function fail(message: string): never {
  throw new SnapshotDataError(message);
}

/** A prototype-less copy of a string-keyed map, as the parsers make them (see `emptyRecord`). */
function record<T>(from: Record<string, T> | undefined, what: string): Record<string, T> {
  if (typeof from !== 'object' || from === null || Array.isArray(from))
    throw new SnapshotDataError(`${what} is not an object`);
  const out = emptyRecord<T>();
  for (const key of Object.keys(from)) out[key] = from[key] as T;
  return out;
}

const noStrings: readonly string[] = Object.freeze([]);
const noPorts: PodInfo['hostPorts'] = Object.freeze([]);
const noTaints: Taint[] = Object.freeze([]) as unknown as Taint[];

/**
 * A PodInfo rebuilt field by field from its JSON form: every field present (undefined when
 * JSON dropped it), maps without a prototype, as `podInfoFromObject` builds them. Listing
 * the fields makes a new PodInfo field a compile error here until the snapshot carries it.
 */
function podInfo(j: PodInfoData, at: string): PodInfo {
  if (typeof j !== 'object' || j === null || typeof j.uid !== 'string')
    throw new SnapshotDataError(`${at} has no pod info with a uid`);
  return {
    uid: j.uid,
    key: j.key,
    namespace: j.namespace,
    name: j.name,
    labels: record(j.labels, `${at}.labels`),
    schedulerName: j.schedulerName,
    priority: j.priority,
    preemptionPolicy: j.preemptionPolicy,
    creationMs: j.creationMs,
    // Absent in snapshots older than observedGeneration.
    generation: typeof j.generation === 'number' ? j.generation : 0,
    nodeName: j.nodeName ?? undefined,
    phase: j.phase,
    terminating: j.terminating,
    // Both absent in snapshots older than preemption's pod fields.
    startMs: typeof j.startMs === 'number' ? j.startMs : undefined,
    preemptedByScheduler: j.preemptedByScheduler === true,
    requests: resourcesFromData(j.requests, `${at}.requests`, fail),
    scalarRequestNames: j.scalarRequestNames.length === 0 ? noStrings : j.scalarRequestNames,
    nonZeroRequests: nonZeroFromData(j.nonZeroRequests, `${at}.nonZeroRequests`, fail),
    invalid: j.invalid ?? undefined,
    nodeSelector: record(j.nodeSelector, `${at}.nodeSelector`),
    requiredNodeAffinity: j.requiredNodeAffinity ?? undefined,
    preferredNodeAffinity: j.preferredNodeAffinity,
    tolerations: j.tolerations,
    schedulingGates: j.schedulingGates.length === 0 ? noStrings : j.schedulingGates,
    // Absent in snapshots older than the core PodGroup API, and for most pods.
    ...(typeof j.schedulingGroup === 'string' ? { schedulingGroup: j.schedulingGroup } : {}),
    nominatedNodeName: j.nominatedNodeName ?? undefined,
    // Absent in snapshots older than external nominations.
    statusNominatedNodeName: j.statusNominatedNodeName ?? undefined,
    hostPorts: j.hostPorts.length === 0 ? noPorts : j.hostPorts,
    // Absent in snapshots older than PodTopologySpread.
    spreadConstraints: j.spreadConstraints ?? noSpreadConstraints,
    // Absent in snapshots older than InterPodAffinity.
    podAffinity: restoredPodAffinity(j.podAffinity),
    // Absent in snapshots older than ImageLocality.
    images: Array.isArray(j.images) && j.images.length > 0 ? j.images : noStrings,
    // Absent in snapshots older than image volumes (ImageLocality, kube 1.36).
    imageVolumes:
      Array.isArray(j.imageVolumes) && j.imageVolumes.length > 0 ? j.imageVolumes : noStrings,
    // Absent in snapshots older than the volume plugins.
    volumes: Array.isArray(j.volumes) && j.volumes.length > 0 ? j.volumes : noVolumes,
    // Absent in snapshots older than default spreading.
    controllerRef: j.controllerRef ?? undefined,
    // Absent in snapshots older than NodeDeclaredFeatures.
    requiredNodeFeatures: parseDeclaredFeatures(j.requiredNodeFeatures),
    unsupported: j.unsupported ?? undefined,
    // Absent for pods without DRA claims, and in snapshots older than DynamicResources.
    ...(Array.isArray(j.resourceClaims) ? { resourceClaims: j.resourceClaims } : {}),
    // Absent for pods without extended resources, and in snapshots older than DRA-backed ones.
    ...(Array.isArray(j.extendedContainers) ? { extendedContainers: j.extendedContainers } : {}),
  };
}

function nodeInfo(j: NodeData, pods: ReadonlyMap<string, PodInfo>, at: string): NodeInfo {
  if (typeof j !== 'object' || j === null || typeof j.name !== 'string')
    throw new SnapshotDataError(`${at} has no name`);
  const node = newNodeInfo({
    name: j.name,
    labels: record(j.labels, `${at}.labels`),
    taints: j.taints.length === 0 ? noTaints : j.taints,
    unschedulable: j.unschedulable,
    allocatable: {
      ...resourcesFromData(j.allocatable, `${at}.allocatable`, fail),
      pods: j.allocatable.pods,
    },
    invalid: j.invalid ?? undefined,
    images: j.images === undefined ? NO_IMAGES : imagePairs(j.images, `${at}.images`, fail),
    // Absent for a node declaring none, and in snapshots older than NodeDeclaredFeatures.
    declaredFeatures: parseDeclaredFeatures(j.declaredFeatures),
  });
  node.requested = resourcesFromData(j.requested, `${at}.requested`, fail);
  node.nonZeroRequested = nonZeroFromData(j.nonZeroRequested, `${at}.nonZeroRequested`, fail);
  node.generation = j.generation;
  for (const uid of j.pods) {
    const info = pods.get(uid);
    if (info === undefined) throw new SnapshotDataError(`${at} charges unknown pod ${uid}`);
    node.pods.set(uid, info);
    indexAffinityPod(node, uid, info);
  }
  refreshHeadroom(node);
  return node;
}

/**
 * Rebuilds the image index: the stored sizes first, in their order, then the counts from
 * the live nodes (a name without a stored size takes its first node's); names no live node
 * lists are dropped.
 */
function restoreImageIndex(state: ClusterState, sizes: unknown): void {
  const index = state.imageStates;
  if (sizes !== undefined) {
    for (const [name, size] of imagePairs(sizes, 'cluster.imageSizes', fail))
      index.set(name, { size, numNodes: 0 });
  }
  for (const node of state.nodes.values()) indexNodeImages(state, node);
  for (const [name, summary] of index) if (summary.numNodes === 0) index.delete(name);
}

/** A parsed view from its snapshot form: the same data, but for a PDB's `disruptedPods` Set. */
function restoredObject(kind: ObjectKind, data: unknown, at: string): unknown {
  if (kind === 'PodGroup' || kind === 'CorePodGroup') return podGroupFromData(kind, data, at, fail);
  if (kind !== 'PodDisruptionBudget') return data;
  const budget = restoreDisruptionBudget(data);
  if (budget === undefined) throw new SnapshotDataError(`${at} is not a PodDisruptionBudget`);
  return budget;
}

function restoreObjects(state: ClusterState, objects: ClusterStateData['objects']): void {
  if (objects === undefined) return;
  for (const kind of Object.keys(objects)) {
    if (!isObjectKind(kind))
      throw new SnapshotDataError(`cluster.objects has an unknown kind ${JSON.stringify(kind)}`);
    const pairs = objects[kind];
    if (!Array.isArray(pairs)) throw new SnapshotDataError(`cluster.objects.${kind} is not a list`);
    const store = state.objects[kind] as Map<string, unknown>;
    pairs.forEach((pair, i) => {
      if (!Array.isArray(pair) || typeof pair[0] !== 'string' || !isRecord(pair[1]))
        throw new SnapshotDataError(`cluster.objects.${kind}[${i}] is not a [key, object] pair`);
      store.set(pair[0], restoredObject(kind, pair[1], `cluster.objects.${kind}[${i}]`));
    });
  }
}

function checkCharge(record: PodRecord, state: ClusterState, at: string): void {
  const c = record.charge;
  if (c.kind === 'none') return;
  const node = state.nodes.get(c.node) ?? state.absentNodes.get(c.node);
  if (node?.pods.get(record.info.uid) !== record.info)
    throw new SnapshotDataError(`${at} is charged to ${c.node}, which does not hold it`);
}

/**
 * Rebuilds a ClusterState from `serializeClusterState` output (or its JSON round trip):
 * the same nodes, pods, charges, generations and orders, with the indexes recomputed.
 * Throws SnapshotDataError for data that does not hang together (a node charging an
 * unknown pod, a charge its node does not hold, a `nodeOrder` that is not the live nodes).
 */
export function restoreClusterState(
  data: ClusterStateData,
  release: KubeRelease = unrecordedKubeRelease,
): ClusterState {
  const state = initialState(release);
  const infos = new Map<string, PodInfo>();
  data.pods.forEach((p, i) => {
    const info = podInfo(p.info, `cluster.pods[${i}]`);
    if (infos.has(info.uid)) throw new SnapshotDataError(`pod ${info.uid} appears twice`);
    infos.set(info.uid, info);
    const charge: Charge = p.charge.kind === 'none' ? { kind: 'none' } : { ...p.charge };
    const rec: PodRecord = { info, charge };
    if (p.nominationUnrecorded === true) rec.nominationUnrecorded = true;
    state.pods.set(info.uid, rec);
    state.podUids.set(info.key, info.uid);
  });
  data.nodes.forEach((n, i) => {
    const node = nodeInfo(n, infos, `cluster.nodes[${i}]`);
    state.nodes.set(node.name, node);
    indexNodeLabels(state, node);
  });
  restoreImageIndex(state, data.imageSizes);
  data.absentNodes.forEach((n, i) => {
    const node = nodeInfo(n, infos, `cluster.absentNodes[${i}]`);
    state.absentNodes.set(node.name, node);
  });
  if (data.nodeOrder.length !== state.nodes.size)
    throw new SnapshotDataError('cluster.nodeOrder does not list every live node once');
  data.nodeOrder.forEach((name, i) => {
    const node = state.nodes.get(name);
    if (node === undefined || state.nodeIndex.has(name))
      throw new SnapshotDataError(`cluster.nodeOrder[${i}] ${name} is not a live node, or twice`);
    state.nodeIndex.set(name, i);
    state.nodeOrder.push(node);
  });
  let i = 0;
  for (const rec of state.pods.values()) {
    checkCharge(rec, state, `cluster.pods[${i++}]`);
    indexNomination(state, rec);
  }
  state.generation = data.generation;
  state.podAffinityIndex = buildPodAffinityIndex(state);
  restoreObjects(state, data.objects);
  for (const [kind, message] of Object.entries(data.unavailable ?? {})) {
    if (!isObjectKind(kind) || typeof message !== 'string')
      throw new SnapshotDataError(`cluster.unavailable.${kind} is not an object kind's message`);
    state.unavailable[kind] = message;
  }
  for (const kind of Object.keys(data.resync)) {
    const seen = data.resync[kind as ResourceKind];
    if (kind !== 'Node' && kind !== 'Pod' && !isObjectKind(kind))
      throw new SnapshotDataError(`cluster.resync has an unknown kind ${JSON.stringify(kind)}`);
    if (!Array.isArray(seen)) throw new SnapshotDataError(`cluster.resync.${kind} is not a list`);
    state.resync[kind] = new Set(seen.map(String));
  }
  state.rejected = data.rejected.map((r) => ({ seq: r.seq, kind: r.kind, reason: r.reason }));
  state.rejectedTotal = data.rejectedTotal;
  inFlight.restoreClaimsInFlight(state, data, fail);
  inFlight.recountAllocatedDevices(state, state.objects.ResourceClaim.values());
  return state;
}
