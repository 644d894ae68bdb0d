// The parsed cluster model that the reducer maintains and the plugins read.
import type { NodeSelectorTerm, PreferredSchedulingTerm, Taint, Toleration } from './objects.ts';

/**
 * A vector of resource amounts in integer base units: CPU in millicores, memory and
 * ephemeral storage in bytes (rounded up, as Kubernetes' `Value()` does), extended
 * resources (e.g. `nvidia.com/gpu`, `hugepages-2Mi`) in their own integer units.
 */
export interface Resources {
  milliCPU: number;
  memory: number;
  ephemeralStorage: number;
  /** Extended/scalar resources by name. Empty object when there are none. */
  scalar: Record<string, number>;
}

/** Node allocatable: a resource vector plus the number of pods the node accepts. */
export interface Allocatable extends Resources {
  pods: number;
}

/** Parsed, scheduling-ready view of a Pod. Built once per upsert; plugins read it. */
export interface PodInfo {
  /** `namespace/name`: the identity used across the log, queue and machines. */
  key: string;
  namespace: string;
  name: string;
  uid: string;
  labels: Record<string, string>;
  schedulerName: string;
  /** `spec.priority`, 0 when absent. */
  priority: number;
  preemptionPolicy: string;
  /** `metadata.creationTimestamp` as epoch ms, 0 when absent or unparsable. */
  creationMs: number;
  /** `spec.nodeName`: set once the pod is bound (by anyone). */
  nodeName: string | undefined;
  /** `status.phase`, `Pending` when absent. */
  phase: string;
  /** `metadata.deletionTimestamp` is set: still counts on its node until deleted. */
  terminating: boolean;
  /** Effective requests for fit: max(sum app, max init) with sidecars, plus overhead. */
  requests: Resources;
  /**
   * Names of the non-zero entries of `requests.scalar`, computed once: the fit filter
   * walks this array instead of the (prototype-less, so slow to enumerate) scalar map.
   */
  scalarRequestNames: readonly string[];
  /** CPU/memory requests with kube-scheduler's non-zero defaults (100m, 200Mi), for scoring. */
  nonZeroRequests: { milliCPU: number; memory: number };
  /**
   * Why this pod can never be scheduled as written (e.g. an unparsable quantity, naming
   * the field). Undefined for a valid pod.
   */
  invalid: string | undefined;
  nodeSelector: Record<string, string>;
  /** Required node affinity terms (ORed); undefined when the pod has none. */
  requiredNodeAffinity: NodeSelectorTerm[] | undefined;
  preferredNodeAffinity: PreferredSchedulingTerm[];
  tolerations: Toleration[];
}

/** Parsed view of a Node plus the resources charged to it. Mutated in place by the reducer. */
export interface NodeInfo {
  name: string;
  labels: Record<string, string>;
  taints: Taint[];
  unschedulable: boolean;
  allocatable: Allocatable;
  /** Why this node's object is unusable (e.g. unparsable allocatable), or undefined. */
  invalid: string | undefined;
  /** Sum of `requests` of every pod charged here (bound, terminating, assumed). */
  requested: Resources;
  /** Sum of `nonZeroRequests` of the same pods, for scoring. */
  nonZeroRequested: { milliCPU: number; memory: number };
  /** Keys of the pods charged here. `pods.size` is the pod count. */
  pods: Set<string>;
  /**
   * Headroom kept inline (allocatable − requested; pods left) so the fit filter reads one
   * object per node instead of chasing four: scanning thousands of nodes per cycle is
   * memory-bound. Kept current by `refreshHeadroom` wherever charges or allocatable change.
   */
  freeMilliCPU: number;
  freeMemory: number;
  freeEphemeralStorage: number;
  freePods: number;
  /** Inline copies of allocatable and non-zero requested cpu/memory, for the scorers. */
  allocMilliCPU: number;
  allocMemory: number;
  nonZeroMilliCPU: number;
  nonZeroMemory: number;
  /** Bumped on every change to this node's object or charges. */
  generation: number;
}

/** Where a pod's resources are currently charged, and why. */
export type Charge =
  | { kind: 'none' }
  | { kind: 'bound'; node: string }
  | { kind: 'assumed'; node: string };

/** A pod as the cluster state holds it. */
export interface PodRecord {
  info: PodInfo;
  charge: Charge;
}

/** An object the reducer could not accept at all (e.g. no name), kept for explanation. */
export interface RejectedObject {
  seq: number;
  kind: 'Node' | 'Pod';
  reason: string;
}

/** Cluster state folded from the event log. Mutable; only `evolve` writes it. */
export interface ClusterState {
  nodes: Map<string, NodeInfo>;
  /**
   * The nodes in a stable, deterministic order for sampling; O(1) removal by swap. Holds
   * the NodeInfo objects themselves so a cycle walks them without a lookup per node.
   */
  nodeOrder: NodeInfo[];
  /** Index of each node name in `nodeOrder`. */
  nodeIndex: Map<string, number>;
  /**
   * Nodes not in `nodes` that still have pods charged to them: deleted nodes with pods
   * left on them, and nodes pods are bound to but that were never seen. When such a node
   * (re)appears, this NodeInfo becomes the live one, charges and all, in O(1).
   */
  absentNodes: Map<string, NodeInfo>;
  /** Last node generation handed out (one counter per state, as kube's nextGeneration). */
  generation: number;
  pods: Map<string, PodRecord>;
  /** Open relists: resource kind to keys seen since its ResyncStarted. */
  resync: { Node?: Set<string>; Pod?: Set<string> };
  /** The last few objects rejected outright (bounded), and how many in total. */
  rejected: RejectedObject[];
  rejectedTotal: number;
}
