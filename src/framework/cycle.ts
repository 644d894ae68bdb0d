// One scheduling cycle for one pod: PreFilter → Filter (sampled, rotating) → Score → select.
import type { ClusterSnapshot, NodeInfo, PodInfo } from '../cluster/types.ts';
import {
  compareGoStrings,
  type Diagnosis,
  diagnoseFailedNodes,
  ErrNoNodesAvailable,
  fitErrorMessage,
  newDiagnosis,
  recordPreFilterStatus,
} from './explain.ts';
import type { Rng } from './rng.ts';
import { numFeasibleNodesToFind } from './sampling.ts';
import { prioritizeNodes, selectHost } from './select.ts';
import type {
  CycleState,
  FilterPlugin,
  Nomination,
  PostFilterResult,
  PreFilterResult,
  Profile,
  Status,
} from './types.ts';
import { success } from './types.ts';
import { filterWithNominatedPods, runFilterPlugins } from './what-if.ts';

/** What a cycle needs besides the pod and the snapshot; `cursor` is advanced in place. */
export interface SchedulingContext {
  profile: Profile;
  rng: Rng;
  /** Where the next cycle starts its walk over `nodeOrder` (kube's nextStartNodeIndex). */
  cursor: { next: number };
  /** 0 = adaptive (kube's default); 1–100 = that percentage. */
  percentageOfNodesToScore: number;
  /** The cycle's logical time (preemption counts a pod without a start time as started now). */
  now?: number;
}

/**
 * The outcome of one cycle. `evaluated` counts the nodes filtered and kept (kube's
 * EvaluatedNodes). `Error`: a plugin threw (or returned Error); the pod backs off.
 */
export type CycleResult =
  | { kind: 'Scheduled'; node: string; evaluated: number; feasible: number }
  | {
      kind: 'Unschedulable';
      message: string;
      diagnosis: Diagnosis;
      /** A PostFilter (preemption) made room: the pod is nominated there, victims to evict. */
      nomination?: Nomination;
    }
  | { kind: 'Error'; plugin: string; message: string };

/**
 * Which plugin is running, so that an exception can name it. The filter loop records only
 * the filter's index (a cheap store in the hottest loop); the name is looked up on failure.
 */
interface Running {
  plugin: string;
  filters: readonly FilterPlugin[] | undefined;
  filterIndex: number;
}

function runningPlugin(running: Running): string {
  const f = running.filters?.[running.filterIndex];
  return f === undefined ? running.plugin : f.name;
}

function withPlugin(s: Status, plugin: string): Status {
  return s.plugin === undefined ? { code: s.code, reasons: s.reasons, plugin } : s;
}

export { runFilterPlugins };

/** What the PreFilters said: a status, and the nodes they narrowed to (with who narrowed). */
type PreFilterOutcome = PreFilterResult & {
  /** The PreFilters that narrowed the nodes, sorted (kube's pluginsWithNodes). */
  readonly narrowedBy?: readonly string[];
};

/**
 * kube's RunPreFilterPlugins: an UnschedulableAndUnresolvable (or Error) status stops at
 * once; an Unschedulable one is remembered while the others still run. Node sets of
 * narrowing PreFilters are intersected; an empty intersection rejects the pod
 * (UnschedulableAndUnresolvable, "node(s) didn't satisfy plugin X", or "plugin(s) [X Y]
 * simultaneously" for several). Returns the rejecting status or `success` with the
 * narrowing, if any.
 */
function runPreFilterPlugins(
  profile: Profile,
  pod: PodInfo,
  state: CycleState,
  snapshot: ClusterSnapshot,
  running: Running,
): PreFilterOutcome {
  let rejected: Status | undefined;
  let nodeNames: ReadonlySet<string> | undefined;
  let narrowedBy: string[] | undefined;
  for (const pl of profile.preFilter) {
    running.plugin = pl.name;
    running.filters = undefined;
    const s = pl.preFilter(pod, state, snapshot);
    if (s.code === 'Success') {
      if (s.nodeNames === undefined) continue;
      nodeNames = intersect(nodeNames, s.nodeNames);
      narrowedBy = [...(narrowedBy ?? []), pl.name].sort(compareGoStrings);
      if (nodeNames.size > 0) continue;
      const reason =
        narrowedBy.length === 1
          ? `node(s) didn't satisfy plugin ${narrowedBy[0]}`
          : `node(s) didn't satisfy plugin(s) [${narrowedBy.join(' ')}] simultaneously`;
      return { code: 'UnschedulableAndUnresolvable', reasons: [reason], narrowedBy };
    }
    if (s.code === 'Unschedulable') {
      rejected ??= withPlugin(s, pl.name);
      continue;
    }
    return withPlugin(s, pl.name);
  }
  if (rejected !== undefined) return rejected;
  return nodeNames === undefined ? success : { ...success, nodeNames, narrowedBy };
}

function intersect(
  a: ReadonlySet<string> | undefined,
  b: ReadonlySet<string>,
): ReadonlySet<string> {
  if (a === undefined) return b;
  const out = new Set<string>();
  for (const n of a) if (b.has(n)) out.add(n);
  return out;
}

/** The nodes a PreFilter narrowed to, in the snapshot's stable order. */
function narrowedNodes(snapshot: ClusterSnapshot, names: ReadonlySet<string>): NodeInfo[] {
  const picked: { at: number; node: NodeInfo }[] = [];
  for (const name of names) {
    const at = snapshot.nodeIndex.get(name);
    const node = snapshot.nodes.get(name);
    if (at !== undefined && node !== undefined) picked.push({ at, node });
  }
  return picked.sort((x, y) => x.at - y.at).map((p) => p.node);
}

/** Counts the nodes a PreFilter narrowing left out, as kube's absent-nodes status does. */
function addLeftOutNodes(
  d: Diagnosis,
  leftOut: { count: number; reason: string; plugins: readonly string[] },
): void {
  for (const p of leftOut.plugins) d.unschedulablePlugins.add(p);
  if (leftOut.count === 0) return;
  d.reasons.set(leftOut.reason, (d.reasons.get(leftOut.reason) ?? 0) + leftOut.count);
  d.unresolvableNodes += leftOut.count;
}

/** What a failed cycle hands its PostFilters besides the diagnosis. */
interface FailedCycle {
  /** False when a PreFilter stopped the PreFilter loop (see PostFilterArgs). */
  preFiltersCompleted: boolean;
  pod: PodInfo;
  snapshot: ClusterSnapshot;
  ctx: SchedulingContext;
  state: CycleState;
  filters: readonly FilterPlugin[];
  running: Running;
}

/**
 * kube's RunPostFilterPlugins: in order; the first Success (a nomination),
 * UnschedulableAndUnresolvable or Error ends it (an Error's text becomes the PostFilter
 * part of the message, the pod stays unschedulable, as kube does); otherwise the reasons
 * of all of them, in order. A PostFilter that throws ends the cycle with Error naming it.
 */
function runPostFilterPlugins(f: FailedCycle, diagnosis: Diagnosis): PostFilterResult {
  const postFilters = f.ctx.profile.postFilter ?? [];
  const reasons: string[] = [];
  for (const pl of postFilters) {
    f.running.plugin = pl.name;
    f.running.filters = undefined;
    const r = pl.postFilter(f.pod, {
      snapshot: f.snapshot,
      state: f.state,
      filters: f.filters,
      preFilters: f.ctx.profile.preFilter,
      diagnosis,
      preFiltersCompleted: f.preFiltersCompleted,
      numAllNodes: f.snapshot.nodeOrder.length,
      rng: f.ctx.rng,
      now: f.ctx.now ?? 0,
    });
    // An Error ends them too: kube keeps the pod unschedulable and puts the error's text
    // where the PostFilters' reasons go.
    if (r.code !== 'Unschedulable') return r;
    reasons.push(...r.reasons);
  }
  return { code: 'Unschedulable', reasons };
}

/**
 * The pod fits no node: kube's FitError message, after which the PostFilters run; their
 * reasons follow the message (kube's PostFilterMsg) unless one made room (a nomination).
 */
function unschedulable(
  numAllNodes: number,
  diagnosis: Diagnosis,
  failed?: FailedCycle,
): CycleResult {
  const message = fitErrorMessage(numAllNodes, diagnosis);
  if (failed === undefined || (failed.ctx.profile.postFilter ?? []).length === 0)
    return { kind: 'Unschedulable', message, diagnosis };
  const post = runPostFilterPlugins(failed, diagnosis);
  if (post.code === 'Success' && post.nomination !== undefined)
    return { kind: 'Unschedulable', message, diagnosis, nomination: post.nomination };
  const postMessage = post.reasons.join(', ');
  return {
    kind: 'Unschedulable',
    message: postMessage === '' ? message : `${message} ${postMessage}`,
    diagnosis,
  };
}

/**
 * Schedules `pod` against the snapshot as kube's schedulePod does, deterministically:
 *
 * 1. No nodes → Unschedulable "no nodes available to schedule pods" (cursor unchanged).
 * 2. PreFilters; a rejection → "0/N nodes are available: <message>." (cursor unchanged).
 * 3. Filters over `nodeOrder` from `cursor.next`, wrapping, one node at a time. This is
 *    kube's parallel search run with one worker: once numFeasibleNodesToFind feasible
 *    nodes are held, the walk goes on only until the next feasible node, which is
 *    dropped; nodes that fail on the way still count as processed. Without score
 *    plugins one feasible node is enough. A plugin Error (or exception) ends the cycle
 *    with `Error`, as kube aborts the cycle.
 * 4. `cursor.next = (cursor.next + processed) % N`, processed = feasible + failed.
 * 5. No feasible node → Unschedulable with the FitError message and the Diagnosis; one →
 *    that node, unscored; more → weighted scores, highest total, ties by reservoir
 *    sampling with `ctx.rng`.
 *
 * Filters and scores whose PreFilter/PreScore `Skip` holds for this pod are left out, and
 * so are, on a node neither cordoned nor tainted, filters that pass there (`passesUntaintedNodes`). A
 * PreFilter may narrow the nodes (kube's PreFilterResult); the walk then covers only those
 * (starting at `cursor.next` modulo their number), the nodes left out each count as
 * "node(s) didn't satisfy plugin(s) [..]" (unresolvable), and the cursor still advances
 * modulo N. An empty narrowing rejects the pod as a PreFilter would.
 * A plugin that throws or returns Error ends the cycle with `Error` naming the plugin.
 *
 * Before the walk, the profile's `proveInfeasible` (if any) may prove that no node fits
 * and give the walk's diagnosis without visiting the nodes (a pod that fits nowhere
 * otherwise costs a visit to every node). The outcome is the same either way.
 */
export function scheduleOne(
  pod: PodInfo,
  snapshot: ClusterSnapshot,
  ctx: SchedulingContext,
): CycleResult {
  const running: Running = { plugin: '', filters: undefined, filterIndex: -1 };
  try {
    return runCycle(pod, snapshot, ctx, running);
  } catch (err) {
    const message = err instanceof Error ? err.message : `threw ${String(err)}`;
    return { kind: 'Error', plugin: runningPlugin(running), message };
  }
}

/** berth's own PreFilters (no kube counterpart): their refusals run no PostFilter. */
const berthPreFilters: ReadonlySet<string> = new Set(['PodValidity', 'UnsupportedConstraints']);

/** How berth's reasons for what it cannot do yet begin (no kube scheduler would refuse). */
const berthRefusal = 'berth does not ';

/** The live node `pod` is nominated to, if any (kube evaluates it first). */
function nominatedNode(pod: PodInfo, snapshot: ClusterSnapshot): NodeInfo | undefined {
  const name = pod.nominatedNodeName;
  return name === undefined ? undefined : snapshot.nodes.get(name);
}

function runCycle(
  pod: PodInfo,
  snapshot: ClusterSnapshot,
  ctx: SchedulingContext,
  running: Running,
): CycleResult {
  const numAllNodes = snapshot.nodeOrder.length;
  if (numAllNodes === 0) {
    return { kind: 'Unschedulable', message: ErrNoNodesAvailable, diagnosis: newDiagnosis() };
  }
  const { profile } = ctx;
  const state: CycleState = new Map();

  const pre = runPreFilterPlugins(profile, pod, state, snapshot, running);
  if (pre.code === 'Error') {
    return { kind: 'Error', plugin: pre.plugin ?? running.plugin, message: pre.reasons.join(', ') };
  }
  const filters = profile.filter.filter((f) => f.preFilterSkip?.(pod, state) !== true);
  const completed = pre.code === 'Success' || pre.code === 'Unschedulable';
  const failed: FailedCycle = {
    preFiltersCompleted: completed,
    pod,
    snapshot,
    ctx,
    state,
    filters,
    running,
  };
  if (pre.code !== 'Success') {
    const diagnosis = newDiagnosis();
    recordPreFilterStatus(diagnosis, numAllNodes, pre);
    for (const p of pre.narrowedBy ?? []) diagnosis.unschedulablePlugins.add(p);
    // A pod berth's own PreFilters refuse (invalid, or asking what berth cannot check), or
    // that a plugin refuses for what berth does not do yet (e.g. provision a volume), would
    // not be refused by kube: no PostFilter part, the message is the reason alone.
    const own =
      (pre.plugin !== undefined && berthPreFilters.has(pre.plugin)) ||
      pre.reasons.some((r) => r.startsWith(berthRefusal));
    return unschedulable(numAllNodes, diagnosis, own ? undefined : failed);
  }
  // kube tries the node a preemption nominated the pod to first, alone; the cursor stays.
  const nominated = nominatedNode(pod, snapshot);
  if (nominated !== undefined) {
    running.filters = filters;
    const s = filterWithNominatedPods(filters, profile.preFilter, pod, nominated, state, snapshot);
    if (s.code === 'Error')
      return {
        kind: 'Error',
        plugin: s.plugin ?? runningPlugin(running),
        message: s.reasons.join(', '),
      };
    if (s.code === 'Success')
      return { kind: 'Scheduled', node: nominated.name, evaluated: 1, feasible: 1 };
  }
  const order =
    pre.nodeNames === undefined ? snapshot.nodeOrder : narrowedNodes(snapshot, pre.nodeNames);
  const numNodes = order.length;
  // kube gives the nodes a narrowing left out one UnschedulableAndUnresolvable status.
  const leftOut =
    pre.narrowedBy === undefined
      ? undefined
      : {
          count: numAllNodes - numNodes,
          reason: `node(s) didn't satisfy plugin(s) [${pre.narrowedBy.join(' ')}]`,
          plugins: pre.narrowedBy,
        };
  if (numNodes === 0) {
    const diagnosis = newDiagnosis();
    if (leftOut !== undefined) addLeftOutNodes(diagnosis, leftOut);
    return unschedulable(numAllNodes, diagnosis, failed);
  }

  const numToFind =
    profile.score.length === 0 ? 1 : numFeasibleNodesToFind(numNodes, ctx.percentageOfNodesToScore);
  running.filters = filters;
  // Pods nominated to a node hold their place there (kube's RunFilterPluginsWithNominatedPods).
  const honourNominated = snapshot.nominated.size > 0;
  // On a node neither cordoned nor tainted, the filters that pass every pod there are left out.
  const untaintedFilters = filters.filter((f) => f.passesUntaintedNodes !== true);
  // Sized once for the most the walk can keep (no regrowth per push), trimmed after it.
  const feasible = new Array<NodeInfo>(Math.min(numToFind, numNodes));
  let found = 0;
  const failedNodes: string[] = [];
  const failedStatuses: Status[] = [];
  const next = Number.isInteger(ctx.cursor.next) && ctx.cursor.next > 0 ? ctx.cursor.next : 0;
  const start = next % numNodes;
  if (pre.nodeNames === undefined && profile.proveInfeasible !== undefined && !honourNominated) {
    // A pod that fits nowhere would walk every node; the proof counts them instead. The
    // walk would have processed every node, leaving the cursor where it started.
    const proven = profile.proveInfeasible(pod, filters, snapshot, state, start);
    if (proven !== undefined) {
      ctx.cursor.next = start;
      return unschedulable(numAllNodes, proven, failed);
    }
  }
  for (let i = 0, at = start; i < numNodes; i++, at = at + 1 === numNodes ? 0 : at + 1) {
    const node = order[at] as NodeInfo;
    let s: Status;
    if (honourNominated)
      s = filterWithNominatedPods(filters, profile.preFilter, pod, node, state, snapshot);
    else {
      running.filters = node.unschedulable || node.taints.length !== 0 ? filters : untaintedFilters;
      s = runFilterPlugins(running.filters, pod, node, state, running);
    }
    if (s.code === 'Error')
      return {
        kind: 'Error',
        plugin: s.plugin ?? runningPlugin(running),
        message: s.reasons.join(', '),
      };
    if (s.code === 'Success') {
      if (found === numToFind) break;
      feasible[found++] = node;
    } else {
      failedNodes.push(node.name);
      failedStatuses.push(s);
    }
  }
  feasible.length = found;
  const processed = found + failedNodes.length;
  // kube advances its start index over all nodes, narrowed walk or not.
  ctx.cursor.next =
    leftOut === undefined ? (start + processed) % numNodes : (next + processed) % numAllNodes;

  if (feasible.length === 0) {
    const diagnosis = diagnoseFailedNodes(failedNodes, failedStatuses);
    if (leftOut !== undefined) addLeftOutNodes(diagnosis, leftOut);
    return unschedulable(numAllNodes, diagnosis, failed);
  }
  if (feasible.length === 1) {
    const only = feasible[0] as NodeInfo;
    return { kind: 'Scheduled', node: only.name, evaluated: processed, feasible: 1 };
  }
  const scorers = profile.score.filter(
    (w) => w.plugin.preScoreSkip?.(pod, state, snapshot) !== true,
  );
  running.filters = undefined;
  const totals = prioritizeNodes(pod, feasible, scorers, state, snapshot, running);
  const chosen = feasible[selectHost(totals, ctx.rng)] as NodeInfo;
  return { kind: 'Scheduled', node: chosen.name, evaluated: processed, feasible: feasible.length };
}
