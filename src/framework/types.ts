// Plugin interfaces and Status, named after kube-scheduler's extension points.

import type { ClusterChange, ClusterSnapshot, NodeInfo, PodInfo } from '../cluster/types.ts';
import type { ClaimToDeallocate, ReservedClaim } from '../events/types.ts';
import type { Rng } from './rng.ts';

/**
 * Status codes: `Unschedulable` — the node does not fit now but preemption might help;
 * `UnschedulableAndUnresolvable` — preemption cannot help; `Error` — something broke.
 */
export type Code = 'Success' | 'Unschedulable' | 'UnschedulableAndUnresolvable' | 'Error';

/** The result of one plugin on one pod (and node). `reasons` are kube-scheduler strings. */
export interface Status {
  code: Code;
  reasons: readonly string[];
  /** Name of the plugin that produced a non-success status. */
  plugin?: string;
}

/** Per-cycle scratch space shared by the plugins of one scheduling cycle. */
export type CycleState = Map<string, unknown>;

/** The cycle state key of the cycle's logical time (ms), when the core gave one. */
export const cycleNowKey = 'framework/now';

/**
 * A PreFilter's answer: a Status, optionally narrowing the nodes worth filtering (kube's
 * PreFilterResult.NodeNames). Results of several PreFilters are intersected.
 */
export type PreFilterResult = Status & { readonly nodeNames?: ReadonlySet<string> };

/**
 * kube's queueing hint: whether a cluster change could make a pod that this plugin
 * rejected schedulable now. False keeps the pod parked; when unsure, say true.
 */
export type QueueingHint = (change: ClusterChange) => boolean;

/**
 * kube's PreFilterExtensions: keeps a PreFilter's per-cycle state true when a pod is put on
 * or taken off a node in a what-if (nominated pods counted during filtering, preemption
 * victims removed and reprieved). `node` is the what-if copy of the node, already with
 * `added` in its pods (or `removed` taken out). Only PreFilters whose state counts other
 * pods (affinity, spreading, volume conflicts) need them.
 */
export interface PreFilterExtensions {
  /** Updates this plugin's entries of `state` for `pod` as if `added` were on `node`. */
  addPod(pod: PodInfo, state: CycleState, added: PodInfo, node: NodeInfo): void;
  /** Updates this plugin's entries of `state` for `pod` as if `removed` were gone from `node`. */
  removePod(pod: PodInfo, state: CycleState, removed: PodInfo, node: NodeInfo): void;
  /**
   * Copies this plugin's entries of `from` into `to` (which already holds `from`'s entries
   * shallowly), deep enough that addPod/removePod on `to` leave `from` as it was.
   */
  cloneState(from: CycleState, to: CycleState): void;
  /**
   * False when addPod/removePod would change nothing in `state` (this cycle's PreFilter was
   * skipped for the pod): the framework may then leave the state alone. Absent: true.
   */
  tracks?(state: CycleState): boolean;
}

/**
 * Runs once per pod per cycle before any Filter; may reject the pod outright, compute
 * per-cycle state for its Filter/Score (in `state`), and narrow the node set. Reads the
 * snapshot, never writes it.
 */
export interface PreFilterPlugin {
  readonly name: string;
  preFilter(pod: PodInfo, state: CycleState, snapshot: ClusterSnapshot): PreFilterResult;
  /** Present when this PreFilter's state depends on the pods of other nodes. */
  extensions?: PreFilterExtensions;
  queueingHint?: QueueingHint;
}

/**
 * Decides whether `pod` may run on `node`. Pure: reads the node it is given and the
 * cycle state, never looks other nodes up, never mutates anything.
 */
export interface FilterPlugin {
  readonly name: string;
  filter(pod: PodInfo, node: NodeInfo, state: CycleState): Status;
  /**
   * kube's PreFilter `Skip`: true when this filter would pass every node for `pod`
   * (e.g. NodeAffinity for a pod with no selector or affinity); the cycle then leaves
   * it out of the per-node loop. Must not change any outcome. Runs after every PreFilter,
   * so it may read what its own PreFilter left in `state`.
   */
  preFilterSkip?(pod: PodInfo, state: CycleState): boolean;
  /**
   * True when this filter passes every pod on every node that is neither cordoned
   * (`unschedulable`) nor tainted (e.g. NodeUnschedulable, TaintToleration); the cycle's
   * walk leaves it out on such nodes. Must not change any outcome.
   */
  readonly passesUntaintedNodes?: boolean;
  /** Which cluster changes could undo this filter's rejection (absent: every change). */
  queueingHint?: QueueingHint;
}

/**
 * Scores a feasible node. `score` returns a raw number; `normalize`, when present,
 * rewrites the scores of all feasible nodes in place to 0–100 (`maxNodeScore`).
 * Without `normalize` the raw score must already be within 0–100.
 */
export interface ScorePlugin {
  readonly name: string;
  /**
   * kube's PreScore: runs once per cycle before any `score` of the cycle, with the nodes
   * about to be scored (the feasible ones, two or more: a lone feasible node is not
   * scored), when `preScoreSkip` does not hold. It may read the snapshot (e.g. cluster-wide
   * indexes) and put what `score` needs in `state`; it never writes the snapshot. Throwing
   * ends the cycle with Error naming the plugin.
   */
  preScore?(
    pod: PodInfo,
    state: CycleState,
    snapshot: ClusterSnapshot,
    nodes: readonly NodeInfo[],
  ): void;
  score(pod: PodInfo, node: NodeInfo, state: CycleState): number;
  /**
   * The batch form of `score`, optional: sets `scores[i]` to exactly what
   * `score(pod, nodes[i], state)` returns, for every node (the cycle calls it instead of
   * `score` when present). It lets a plugin read the pod and its cycle state once per
   * cycle and keeps its per-node loop to itself.
   */
  scoreNodes?(pod: PodInfo, nodes: readonly NodeInfo[], state: CycleState, scores: number[]): void;
  normalize?(pod: PodInfo, scores: number[], state: CycleState): void;
  /**
   * kube's PreScore `Skip`: true when this plugin would give every node the same score
   * for `pod` (e.g. NodeAffinity without preferred terms), so it is left out. Must not
   * change which nodes tie for the highest total. Runs after the filters, before
   * `preScore`; it may read the snapshot and leave what it found in `state`.
   */
  preScoreSkip?(pod: PodInfo, state: CycleState, snapshot: ClusterSnapshot): boolean;
}

/** What a PostFilter reads: the failed cycle's state and what it found. */
export interface PostFilterArgs {
  snapshot: ClusterSnapshot;
  /** The cycle state after PreFilter (PostFilters clone it before changing it). */
  state: CycleState;
  /** The filters the cycle ran (those whose PreFilter Skip did not hold). */
  filters: readonly FilterPlugin[];
  /** The profile's PreFilters, whose extensions follow pods added or removed. */
  preFilters: readonly PreFilterPlugin[];
  /** Why each node failed. */
  diagnosis: Diagnosis;
  /**
   * False when a PreFilter ended the PreFilter loop early (UnschedulableAndUnresolvable, or
   * an empty narrowing), as kube stops it: the PreFilters after it never ran, so their
   * state is missing (kube's DynamicResources then answers Error "not found").
   */
  preFiltersCompleted: boolean;
  /** Number of nodes in the snapshot. */
  numAllNodes: number;
  rng: Rng;
  /** The cycle's logical time (kube counts a pod without a start time as started now). */
  now: number;
}

/** A preemption's outcome: the node the pod is nominated to and what must go for it. */
export interface Nomination {
  node: string;
  /** The pods to evict from `node`, most important first. */
  victims: readonly PodInfo[];
  /** Pods of lower priority nominated to `node`, whose nominations are cleared. */
  clearNominated: readonly PodInfo[];
}

/**
 * A PostFilter's answer (kube's PostFilterResult and Status): Success with a nomination
 * when it made room; otherwise a status whose reasons end up after the FitError message.
 */
export type PostFilterResult = Status & {
  readonly nomination?: Nomination;
  /**
   * kube's NominatingInfo that overrides with "": the pod's own nomination is to be cleared
   * (DefaultPreemption found no candidate). Absent: the nomination is left as it is.
   */
  readonly clearsNomination?: boolean;
  /**
   * The claim this PostFilter deallocates (DynamicResources: kube writes it in the PostFilter
   * itself; berth's core issues the write). It stands whatever the later PostFilters answer.
   */
  readonly deallocate?: ClaimToDeallocate;
};

/**
 * Runs when no node fits the pod (kube's PostFilter, e.g. DefaultPreemption): may find a
 * way to make room. Reads the snapshot and a clone of the cycle state; never writes them.
 */
export interface PostFilterPlugin {
  readonly name: string;
  postFilter(pod: PodInfo, args: PostFilterArgs): PostFilterResult;
}

/** A score plugin with its weight in the profile. */
export interface WeightedScorePlugin {
  plugin: ScorePlugin;
  weight: number;
}

/**
 * Proves, without visiting every node, that no node of `snapshot` passes `filters` for
 * `pod`, and returns the Diagnosis that visiting them all from `walkStart` (an index into
 * `nodeOrder`) would have given: the same reasons and counts, unresolvable nodes and
 * rejecting plugins in the same order. Undefined when it cannot prove it (then the cycle
 * visits the nodes). Must never answer for a pod that some node accepts.
 */
export type InfeasibilityProof = (
  pod: PodInfo,
  filters: readonly FilterPlugin[],
  snapshot: ClusterSnapshot,
  state: CycleState,
  walkStart: number,
) => Diagnosis | undefined;

/**
 * kube's Reserve for the node the cycle selected: what the plugin holds for the pod there
 * (DRA: the claims and the allocations its Filter found for that node), or a Status when it
 * cannot (the cycle then ends in Error). Pure: the reservation is a decision, applied by
 * the core like every other.
 */
export interface ReservePlugin {
  readonly name: string;
  reserve(pod: PodInfo, node: string, state: CycleState): { claims?: ReservedClaim[] } | Status;
}

/** The plugins of one scheduling profile, in the order they run. */
export interface Profile {
  /** Reserve plugins, run on the selected node (absent: none). */
  reserve?: ReservePlugin[];
  preFilter: PreFilterPlugin[];
  filter: FilterPlugin[];
  score: WeightedScorePlugin[];
  /** Run in order when no node fits (kube's PostFilter: DynamicResources, DefaultPreemption). */
  postFilter?: PostFilterPlugin[];
  /** A shortcut for pods that fit nowhere (the registry's profiles have one). */
  proveInfeasible?: InfeasibilityProof;
  /** Queueing hint by plugin name; a rejecting plugin without one requeues on any change. */
  queueingHints: ReadonlyMap<string, QueueingHint>;
}

/** Highest normalised score a plugin may give. */
export const maxNodeScore = 100;

/** The shared success status (allocation-free). */
export const success: Status = Object.freeze({ code: 'Success', reasons: Object.freeze([]) });

/** Builds a non-success status. */
export function status(
  code: Exclude<Code, 'Success'>,
  plugin: string,
  ...reasons: string[]
): Status {
  return { code, reasons, plugin };
}

/** What a failed scheduling cycle learned (kube's framework.Diagnosis, trimmed). */
export interface Diagnosis {
  /** Reason → number of nodes whose failing status carried it (a node counts once per reason). */
  reasons: Map<string, number>;
  /**
   * Failing status per node name (kube's NodeToStatus) of the nodes the cycle visited.
   * Empty when a PreFilter rejected; without the `summarizedNodes` when there are some.
   */
  nodeToStatus: Map<string, Status>;
  /**
   * Nodes proved to fail from the capacity index without being visited (see
   * `proveInfeasible`): counted in `reasons`, `unresolvableNodes` and
   * `unschedulablePlugins` exactly as a visit would have, but absent from `nodeToStatus`.
   */
  summarizedNodes: number;
  /** Nodes whose status was UnschedulableAndUnresolvable: preemption cannot help there. */
  unresolvableNodes: number;
  /** Plugins that rejected the pod somewhere (kube's UnschedulablePlugins), for requeueing. */
  unschedulablePlugins: Set<string>;
  /** The rejecting PreFilter's message (its reasons joined by ", "), if a PreFilter rejected. */
  preFilterMsg: string | undefined;
}
