// Test builders: PodInfo and NodeInfo values from partial typed fields (no manifest parsing).

import { indexAffinityPod } from '../../src/cluster/charges.ts';
import { newNodeInfo, refreshHeadroom } from '../../src/cluster/node-info.ts';
import type { ControllerRef } from '../../src/cluster/owner-ref.ts';
import { noPodAffinity, type PodAffinityTerms } from '../../src/cluster/pod-affinity.ts';
import type { PodVolume } from '../../src/cluster/pod-volumes.ts';
import { addNonZero, addResources } from '../../src/cluster/resources.ts';
import {
  noSpreadConstraints,
  type SpreadConstraints,
} from '../../src/cluster/spread-constraints.ts';
import type {
  Allocatable,
  HostPort,
  NodeInfo,
  PodInfo,
  Resources,
} from '../../src/cluster/types.ts';
import type {
  NodeSelectorTerm,
  PreferredSchedulingTerm,
  Taint,
  Toleration,
} from '../../src/model/objects.ts';

/** kube-scheduler's non-zero defaults used for scoring when a request is missing. */
export const defaultMilliCPURequest = 100;
/** 200Mi, kube-scheduler's default memory request for scoring. */
export const defaultMemoryRequest = 200 * 1024 * 1024;

/** Binary units, for readable test literals. */
export const Mi = 1024 * 1024;
/** 1 GiB in bytes. */
export const Gi = 1024 * Mi;

/** The fields a test may set on a pod; everything else gets a neutral default. */
export interface PodInput {
  name?: string;
  namespace?: string;
  uid?: string;
  labels?: Record<string, string>;
  schedulerName?: string;
  priority?: number;
  preemptionPolicy?: string;
  creationMs?: number;
  nodeName?: string;
  phase?: string;
  terminating?: boolean;
  /** `status.startTime` as epoch ms (undefined: not started). */
  startMs?: number;
  /** Carries the scheduler's DisruptionTarget condition (a preemption victim). */
  preemptedByScheduler?: boolean;
  requests?: Partial<Resources>;
  /** Defaults to `requests` with 0 cpu/memory replaced by 100m / 200Mi (kube's rule, per pod). */
  nonZeroRequests?: Partial<{ milliCPU: number; memory: number }>;
  invalid?: string;
  nodeSelector?: Record<string, string>;
  requiredNodeAffinity?: NodeSelectorTerm[];
  preferredNodeAffinity?: PreferredSchedulingTerm[];
  tolerations?: Toleration[];
  schedulingGates?: string[];
  nominatedNodeName?: string;
  hostPorts?: HostPort[];
  spreadConstraints?: SpreadConstraints;
  /** Parsed pod (anti-)affinity terms (InterPodAffinity). */
  podAffinity?: PodAffinityTerms;
  /** Normalized container images (ImageLocality), init containers first. */
  images?: string[];
  /** Normalized image-volume references (ImageLocality from kube 1.36). */
  imageVolumes?: string[];
  /** Parsed `spec.volumes` (volume plugins). */
  volumes?: PodVolume[];
  /** The controller ownerReference (default spreading). */
  controllerRef?: ControllerRef;
  /** Node features the spec needs (NodeDeclaredFeatures). */
  requiredNodeFeatures?: string[];
  unsupported?: string;
}

/** The fields a test may set on a node. */
export interface NodeInput {
  name?: string;
  labels?: Record<string, string>;
  taints?: Taint[];
  unschedulable?: boolean;
  /** Defaults: 4 cpu, 16Gi memory, 100Gi ephemeral storage, 110 pods, no scalars. */
  allocatable?: Partial<Allocatable>;
  invalid?: string;
  /** `status.declaredFeatures` (NodeDeclaredFeatures). */
  declaredFeatures?: readonly string[];
}

let podCounter = 0;
let nodeCounter = 0;

/** Builds a resource vector, zero where not given. */
export function resources(partial: Partial<Resources> = {}): Resources {
  return {
    milliCPU: partial.milliCPU ?? 0,
    memory: partial.memory ?? 0,
    ephemeralStorage: partial.ephemeralStorage ?? 0,
    scalar: { ...(partial.scalar ?? {}) },
  };
}

/**
 * Builds a PodInfo. The non-zero requests default per pod (a container-level rule in
 * kube; tests that need the exact per-container value pass `nonZeroRequests`).
 */
export function makePod(input: PodInput = {}): PodInfo {
  podCounter += 1;
  const name = input.name ?? `pod-${podCounter}`;
  const namespace = input.namespace ?? 'default';
  const requests = resources(input.requests);
  return {
    key: `${namespace}/${name}`,
    namespace,
    name,
    uid: input.uid ?? `uid-${name}`,
    labels: input.labels ?? {},
    schedulerName: input.schedulerName ?? 'berth',
    priority: input.priority ?? 0,
    preemptionPolicy: input.preemptionPolicy ?? 'PreemptLowerPriority',
    creationMs: input.creationMs ?? 0,
    generation: 0,
    nodeName: input.nodeName,
    phase: input.phase ?? 'Pending',
    terminating: input.terminating ?? false,
    startMs: input.startMs,
    preemptedByScheduler: input.preemptedByScheduler ?? false,
    requests,
    scalarRequestNames: Object.keys(requests.scalar).filter((k) => requests.scalar[k] !== 0),
    nonZeroRequests: {
      milliCPU:
        input.nonZeroRequests?.milliCPU ??
        (requests.milliCPU > 0 ? requests.milliCPU : defaultMilliCPURequest),
      memory:
        input.nonZeroRequests?.memory ??
        (requests.memory > 0 ? requests.memory : defaultMemoryRequest),
    },
    invalid: input.invalid,
    nodeSelector: input.nodeSelector ?? {},
    requiredNodeAffinity: input.requiredNodeAffinity,
    preferredNodeAffinity: input.preferredNodeAffinity ?? [],
    tolerations: input.tolerations ?? [],
    schedulingGates: input.schedulingGates ?? [],
    nominatedNodeName: input.nominatedNodeName,
    hostPorts: input.hostPorts ?? [],
    spreadConstraints: input.spreadConstraints ?? noSpreadConstraints,
    podAffinity: input.podAffinity ?? noPodAffinity,
    images: input.images ?? [],
    imageVolumes: input.imageVolumes ?? [],
    volumes: input.volumes ?? [],
    controllerRef: input.controllerRef,
    requiredNodeFeatures: input.requiredNodeFeatures ?? [],
    unsupported: input.unsupported,
  };
}

/** Builds an empty (nothing charged) NodeInfo. */
export function makeNode(input: NodeInput = {}): NodeInfo {
  nodeCounter += 1;
  const a = input.allocatable ?? {};
  return newNodeInfo({
    name: input.name ?? `node-${nodeCounter}`,
    labels: input.labels ?? {},
    taints: input.taints ?? [],
    unschedulable: input.unschedulable ?? false,
    allocatable: {
      milliCPU: a.milliCPU ?? 4000,
      memory: a.memory ?? 16 * Gi,
      ephemeralStorage: a.ephemeralStorage ?? 100 * Gi,
      pods: a.pods ?? 110,
      scalar: { ...(a.scalar ?? {}) },
    },
    invalid: input.invalid,
    declaredFeatures: input.declaredFeatures,
  });
}

/** Charges `pod` onto `node` in place, as the reducer does for a bound or assumed pod. */
export function chargePod(node: NodeInfo, pod: PodInfo): NodeInfo {
  addResources(node.requested, pod.requests, 1);
  addNonZero(node.nonZeroRequested, pod.nonZeroRequests, 1);
  node.pods.set(pod.uid, pod);
  indexAffinityPod(node, pod.uid, pod);
  node.generation += 1;
  refreshHeadroom(node);
  return node;
}

/** Builds a node and charges each of `pods` onto it. */
export function makeNodeWith(input: NodeInput, pods: PodInput[]): NodeInfo {
  const node = makeNode(input);
  for (const p of pods) chargePod(node, makePod(p));
  return node;
}

/** The cluster view `scheduleOne` reads: nodes by name plus their stable order. */
export interface TestCluster {
  nodes: Map<string, NodeInfo>;
  nodeOrder: NodeInfo[];
}

/** Builds a cluster view from nodes, in the order given. */
export function makeCluster(nodes: NodeInfo[]): TestCluster {
  return { nodes: new Map(nodes.map((n) => [n.name, n])), nodeOrder: [...nodes] };
}
