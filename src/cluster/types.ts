// The parsed cluster model that the reducer maintains and the plugins read.

import type { KubeRelease } from '../model/kube-release.ts';
import type {
  NodeSelectorTerm,
  PreferredSchedulingTerm,
  Taint,
  Toleration,
} from '../model/objects.ts';
import type { AllocatedDevices } from './allocated-devices.ts';
import type { Amount } from './amount.ts';
import type { ClaimInFlight, ClaimsInFlightState } from './claims-in-flight.ts';
import type { PodResourceClaim } from './pod-claims.ts';
import type { ExtendedContainer } from './pod-extended.ts';
import type { Resources } from './resources.ts';

export type { Resources } from './resources.ts';

import type { ObjectKind, ObjectStore, ObjectStoreView, ObjectTypes } from './cluster-objects.ts';
import type { ControllerRef } from './owner-ref.ts';
import type { AffinityTerm, PodAffinityTerms } from './pod-affinity.ts';
import type { PodVolume } from './pod-volumes.ts';
import type { SpreadConstraints } from './spread-constraints.ts';

/** Node allocatable: a resource vector plus the number of pods the node accepts. */
export interface Allocatable extends Resources {
  pods: number;
}

/** A host port a container asks for (NodePorts reads these). */
export interface HostPort {
  hostIP: string;
  protocol: string;
  port: number;
}

/** Parsed, scheduling-ready view of a Pod. Built once per upsert; plugins read it. */
export interface PodInfo {
  /**
   * `metadata.uid`: the pod's identity across the state, queue, machines and log. A pod
   * recreated under the same name is another pod. (A pod with no uid, which the API never
   * serves, falls back to `namespace/name`.)
   */
  uid: string;
  /** `namespace/name`: for messages, Events and the API's URLs; not an identity. */
  key: string;
  namespace: string;
  name: string;
  labels: Record<string, string>;
  schedulerName: string;
  /** `spec.priority`, 0 when absent. */
  priority: number;
  preemptionPolicy: string;
  /** `metadata.creationTimestamp` as epoch ms, 0 when absent or unparsable. */
  creationMs: number;
  /**
   * `metadata.generation` (0 when absent): kube 1.34 writes it as the `observedGeneration`
   * of the conditions it sets on the pod (PodScheduled, DisruptionTarget).
   */
  generation: number;
  /** `spec.nodeName`: set once the pod is bound (by anyone). */
  nodeName: string | undefined;
  /** `status.phase`, `Pending` when absent. */
  phase: string;
  /** `metadata.deletionTimestamp` is set: still counts on its node until deleted. */
  terminating: boolean;
  /**
   * `status.startTime` as epoch ms; undefined when absent or unparsable (kube's
   * GetPodStartTime then takes "now": a pod not started yet counts as the newest).
   */
  startMs: number | undefined;
  /**
   * The first `status.conditions` entry of type `DisruptionTarget` has status `True` and
   * reason `PreemptionByScheduler` (the condition half of kube's podTerminatingByPreemption;
   * the other half is `terminating`).
   */
  preemptedByScheduler: boolean;
  /** Effective requests for fit: max(sum app, max init) with sidecars, plus overhead. */
  requests: Resources;
  /**
   * Names of the non-zero entries of `requests.scalar`, computed once: the fit filter
   * walks this array instead of the (prototype-less, so slow to enumerate) scalar map.
   */
  scalarRequestNames: readonly string[];
  /** CPU/memory requests with kube-scheduler's non-zero defaults (100m, 200Mi), for scoring. */
  nonZeroRequests: { milliCPU: Amount; memory: Amount };
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
  /** `spec.schedulingGates` names: while any remain the pod waits in PreEnqueue (gated). */
  schedulingGates: readonly string[];
  /**
   * `spec.schedulingGroup.podGroupName`: the core PodGroup (scheduling.k8s.io/v1beta1) the
   * pod joins; absent when it names none (or the field is unusable: then `invalid` says why).
   */
  schedulingGroup?: string;
  /** `spec.resourceClaims` (DRA) with the claim each names; absent when the pod has none. */
  resourceClaims?: readonly PodResourceClaim[];
  /**
   * The containers requesting extended resources DRA may back (kube's DRAExtendedResource),
   * with those requests; absent when none does.
   */
  extendedContainers?: readonly ExtendedContainer[];
  /**
   * The node the pod is nominated to while unbound: its `status.nominatedNodeName`, or the
   * nomination berth decided before its status patch landed.
   */
  nominatedNodeName: string | undefined;
  /**
   * `status.nominatedNodeName` as the pod object itself last carried it (berth's own
   * nomination does not change it): what kube's UpdateNominatedPod compares.
   */
  statusNominatedNodeName?: string | undefined;
  /** Host ports its containers ask for (hostPort > 0). */
  hostPorts: readonly HostPort[];
  /** `spec.topologySpreadConstraints`, parsed and split into DoNotSchedule and ScheduleAnyway. */
  spreadConstraints: SpreadConstraints;
  /**
   * `spec.affinity.podAffinity` / `podAntiAffinity` terms (InterPodAffinity), parsed;
   * `noPodAffinity` when the pod has none.
   */
  podAffinity: PodAffinityTerms;
  /**
   * The image of each init container then each app container, normalized as kube's
   * ImageLocality does (`:latest` added when untagged); one entry per container.
   */
  images: readonly string[];
  /**
   * The `image.reference` of each image volume in `spec.volumes`, normalized like `images`
   * (kube 1.36+'s ImageLocality scores them); an empty shared list when there are none.
   */
  imageVolumes: readonly string[];
  /**
   * `spec.volumes` the volume plugins read (claims, generic ephemeral volumes, in-tree
   * disks), in spec order; `noVolumes` when none.
   */
  volumes: readonly PodVolume[];
  /**
   * The node features the spec needs, as kube 1.37.2 infers them (NodeDeclaredFeatures);
   * a shared empty list when none.
   */
  requiredNodeFeatures: readonly string[];
  /** The controller ownerReference (ReplicaSet, StatefulSet, …), for default spreading. */
  controllerRef: ControllerRef | undefined;
  /**
   * A constraint this pod carries that berth did not check when the log was recorded
   * (naming the field; `unsupportedConstraint`), or undefined. Under such a configuration
   * the pod is refused with that reason, never placed as if it did not ask.
   */
  unsupported: string | undefined;
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
  /**
   * `status.images`: each image name as the kubelet reports it (not normalized) → that
   * image's `sizeBytes`. Replaced, never mutated; a shared empty map when there are none.
   */
  images: ReadonlyMap<string, number>;
  /** `status.declaredFeatures` as listed (NodeDeclaredFeatures); a shared empty list when none. */
  declaredFeatures: readonly string[];
  /** Sum of `requests` of every pod charged here (bound, terminating, assumed). */
  requested: Resources;
  /** Sum of `nonZeroRequests` of the same pods, for scoring. */
  nonZeroRequested: { milliCPU: Amount; memory: Amount };
  /** The pods charged here, by uid (bound, terminating, assumed). `pods.size` is the count. */
  pods: Map<string, PodInfo>;
  /** The pods of `pods` with any pod (anti-)affinity term, by uid (kube's PodsWithAffinity). */
  podsWithAffinity: Map<string, PodInfo>;
  /** The pods of `pods` with required pod anti-affinity terms, by uid. */
  podsWithRequiredAntiAffinity: Map<string, PodInfo>;
  /**
   * Headroom kept inline (allocatable − requested; pods left) so the fit filter reads one
   * object per node instead of chasing four: scanning thousands of nodes per cycle is
   * memory-bound. Kept current by `refreshHeadroom` wherever charges or allocatable change.
   */
  freeMilliCPU: Amount;
  freeMemory: Amount;
  freeEphemeralStorage: Amount;
  freePods: number;
  /** Inline copies of allocatable and non-zero requested cpu/memory, for the scorers. */
  allocMilliCPU: Amount;
  allocMemory: Amount;
  nonZeroMilliCPU: Amount;
  nonZeroMemory: Amount;
  /** Bumped on every change to this node's object or charges. */
  generation: number;
}

/**
 * kube's ImageStateSummary for one image name across the live nodes: its size and how
 * many live nodes report it.
 */
export interface ImageStateSummary {
  /**
   * `sizeBytes` as reported by the node that brought the name into the index (while no
   * live node had it); later nodes reporting another size do not change it (kube's cache).
   */
  size: number;
  /** How many live nodes list this name in `status.images`. Always ≥ 1. */
  numNodes: number;
}

/** Where a pod's resources are currently charged, and why. */
export type Charge =
  | { kind: 'none' }
  | { kind: 'bound'; node: string }
  | { kind: 'assumed'; node: string; attempt: number };

/** A pod as the cluster state holds it. */
export interface PodRecord {
  info: PodInfo;
  charge: Charge;
  /**
   * True while kube's nominator would not hold this pod's nomination: as kube 1.35–1.36, a
   * pod added while gated is not recorded there until its next update (#139057 records it
   * from 1.37). Absent otherwise.
   */
  nominationUnrecorded?: true;
}

/** An object the reducer could not accept at all (e.g. no name), kept for explanation. */
export interface RejectedObject {
  seq: number;
  kind: 'Node' | 'Pod' | ObjectKind;
  reason: string;
}

/** Cluster state folded from the event log. Mutable; only `evolve` writes it. */
export interface ClusterState extends ClaimsInFlightState {
  /**
   * The kube-scheduler release whose rules charge pods to nodes (in-place resize and
   * pod-level resources changed in 1.36 and 1.37); fixed for the state's life.
   */
  readonly release: KubeRelease;
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
  /** Every pod, by uid. */
  pods: Map<string, PodRecord>;
  /** The uid currently holding each `namespace/name` (a recreation replaces the old uid). */
  podUids: Map<string, string>;
  /**
   * Topology index over live nodes: label key → label value → names of the nodes carrying
   * it. Kept incrementally on node upserts and deletes (spreading and affinity read it).
   */
  topology: Map<string, Map<string, Set<string>>>;
  /** Unbound pods nominated to a node (`status.nominatedNodeName`): node → uid → pod. */
  nominated: Map<string, Map<string, PodInfo>>;
  /**
   * Image index over live nodes (kube's cache imageStates): image name, as nodes report it,
   * → its size and the number of live nodes listing it. Kept incrementally on node upserts
   * and deletes; ImageLocality reads it.
   */
  imageStates: Map<string, ImageStateSummary>;
  /** The other watched kinds (namespaces, workloads, volumes, PDBs), parsed, by key. */
  objects: ObjectStore;
  /**
   * The nodes holding pods with pod (anti-)affinity terms and the terms of the pods on live
   * nodes, kept by the charges; created by the state's first node change, charge or release
   * (absent before), rebuilt on restore.
   */
  podAffinityIndex?: PodAffinityIndex;
  /**
   * Optional kinds the API server does not serve (their last relist ended `unavailable`),
   * with its message; a later relist that succeeds removes the entry.
   */
  unavailable: Partial<Record<ObjectKind, string>>;
  /** Open relists: resource kind to identities (node names, pod uids, keys) seen since it began. */
  resync: Partial<Record<'Node' | 'Pod' | ObjectKind, Set<string>>>;
  /** The last few objects rejected outright (bounded), and how many in total. */
  rejected: RejectedObject[];
  rejectedTotal: number;
  /**
   * How a pod update that names no nominated node treats the nomination the pod had.
   * True (berth as kube 1.35+): as kube's UpdateNominatedPod, kept only when the object
   * before named none either, so a nomination its writer (another component) removed
   * ends. False (1.34, the logs recorded so): kept until bound, gone or cleared by berth.
   */
  followsNominationRemoval?: boolean;
  /**
   * The scheduler names whose pods' nominations the nominated index holds (berth as kube
   * 1.35+: its profiles', as kube's nominator holds only the pods of its own queue); absent:
   * every pod's (1.34, as the logs recorded). Set through `countNominationsOf`.
   */
  nominationSchedulers?: ReadonlySet<string>;
}

/** What a plugin reads of {@link AllocatedDevices}. */
export type AllocatedDevicesView = Pick<
  AllocatedDevices,
  'devices' | 'sharedDevices' | 'consumedCapacity' | 'malformed'
>;

/**
 * What plugins may read: the nodes (each with its pods), the topology index, the
 * nominated pods and the image index. Read-only by contract; only the reducer writes the
 * state behind it.
 */
export interface ClusterSnapshot {
  readonly nodes: ReadonlyMap<string, NodeInfo>;
  readonly nodeOrder: readonly NodeInfo[];
  /** Index of each node name in `nodeOrder`. */
  readonly nodeIndex: ReadonlyMap<string, number>;
  readonly topology: ReadonlyMap<string, ReadonlyMap<string, ReadonlySet<string>>>;
  readonly nominated: ReadonlyMap<string, ReadonlyMap<string, PodInfo>>;
  /** Image name → size and number of live nodes holding it (see `ClusterState.imageStates`). */
  readonly imageStates: ReadonlyMap<string, Readonly<ImageStateSummary>>;
  /** The other watched kinds (namespaces, workloads, volumes, PDBs), parsed, by key. */
  readonly objects: ObjectStoreView;
  /**
   * The nodes (live or absent: check `nodes`) holding pods with pod (anti)-affinity terms,
   * and the terms of the pods on live nodes. Absent when not kept (a hand-built snapshot),
   * or stale when its generation is not the snapshot's: readers then walk `nodeOrder`.
   */
  readonly podAffinityIndex?: PodAffinityIndexView;
  /** DRA allocations reserved pods hold and their claims do not show yet, by claim uid. */
  readonly claimsInFlight?: ReadonlyMap<string, ClaimInFlight>;
  /** Moves whenever a ResourceSlice or DeviceTaintRule changes (see ClaimsInFlightState). */
  readonly sliceVersion?: number;
  /** The devices claims and in-flight allocations hold, kept by the reducer (absent: gather them). */
  readonly allocatedDevices?: AllocatedDevicesView;
}

/** The scheduling-relevant parts of a node, as they were before a change. */
export type NodeFacts = Pick<NodeInfo, 'labels' | 'taints' | 'unschedulable' | 'allocatable'> & {
  /** The node's declared features (the reducer always sets them; absent: none). */
  declaredFeatures?: readonly string[];
};

/**
 * What one event changed in the state, as the reducer reports it. Queueing hints and the
 * core's routing read it instead of diffing the state themselves.
 */
export type ClusterChange =
  | { kind: 'none' }
  /** A node was added (`before` undefined), updated, or deleted (`after` undefined). */
  | { kind: 'node'; name: string; before: NodeFacts | undefined; after: NodeInfo | undefined }
  /**
   * A pod was added, updated or deleted (`after` undefined); `replaced` is the uid of
   * another pod of the same name that this upsert removed (a recreation).
   */
  | {
      kind: 'pod';
      uid: string;
      before: PodRecord | undefined;
      after: PodRecord | undefined;
      replaced: PodRecord | undefined;
    }
  /** A relist finished and removed what it did not see. */
  | { kind: 'resync'; removedNodes: string[]; removedPods: PodRecord[] }
  /**
   * An object of another kind was added, updated or deleted (`after` undefined), or a
   * relist of that kind removed it.
   */
  | {
      kind: 'object';
      objectKind: ObjectKind;
      key: string;
      before: ObjectTypes[ObjectKind] | undefined;
      after: ObjectTypes[ObjectKind] | undefined;
    }
  /** A pod's charge moved without its object changing (reserve, unreserve, bind failure). */
  | { kind: 'charge'; uid: string; before: Charge; after: Charge };

/** The four term lists of a pod, by their field names in `PodAffinityTerms`. */
export type TermKind = keyof PodAffinityTerms;

/**
 * Equal terms of one kind held by pods on live nodes (kube walks them pod by pod; berth
 * matches the incoming pod once per group), with their topology pairs counted.
 */
export interface TermGroup {
  /** One member's term; every member's term is equal to it field by field (and weight). */
  readonly term: AffinityTerm;
  /** 1 for a required term; the weight of a preferred one (part of the group's identity). */
  readonly weight: number;
  /** Value of the node label `term.topologyKey` → members on live nodes with that value. */
  readonly pairs: Map<string, number>;
  /** Members (one per pod and term) on live nodes, with or without the key; 0: the group goes. */
  members: number;
}

/**
 * What the charges keep about pod (anti-)affinity: the nodes holding pods with terms, by
 * node name (kube's HavePodsWithAffinity and HavePodsWithRequiredAntiAffinity lists;
 * entries may be absent nodes: readers check `nodes`), and the terms of the pods on live
 * nodes, grouped by kind and content. Rebuilt from nodes and pods by `buildPodAffinityIndex`.
 */
export interface PodAffinityIndex {
  /** Nodes with a non-empty `podsWithAffinity`. */
  readonly withAffinity: Map<string, NodeInfo>;
  /** Nodes with a non-empty `podsWithRequiredAntiAffinity`. */
  readonly withRequiredAntiAffinity: Map<string, NodeInfo>;
  /** By kind: `termKey` → the group of the equal terms of pods on live nodes. */
  readonly groups: Record<TermKind, Map<string, TermGroup>>;
  /** Each live node's labels as its pods were counted under them, by node name. */
  readonly liveLabels: Map<string, Record<string, string>>;
  /** The state's `generation` when the index was last brought up to date. */
  generation: number;
}

/** Read-only view of the index, as plugins see it in the snapshot. */
export interface PodAffinityIndexView {
  readonly withAffinity: ReadonlyMap<string, NodeInfo>;
  readonly withRequiredAntiAffinity: ReadonlyMap<string, NodeInfo>;
  readonly groups: Readonly<Record<TermKind, ReadonlyMap<string, Readonly<TermGroup>>>>;
  readonly liveLabels: ReadonlyMap<string, Readonly<Record<string, string>>>;
  readonly generation: number;
}
