// kube 1.34's DefaultPreemption (Preempt): eligibility, candidate nodes from a seeded offset, victims, the node.
import { subAmounts } from '../../cluster/amount.ts';
import { budgetsOf } from '../../cluster/disruption-budgets.ts';
import type { NodeInfo, PodInfo } from '../../cluster/types.ts';
import { fitErrorMessage, newDiagnosis, recordNodeStatus } from '../explain.ts';
import type {
  Code,
  Diagnosis,
  Nomination,
  PostFilterArgs,
  PostFilterResult,
  Status,
} from '../types.ts';
import { success } from '../types.ts';
import { filterWithNominatedPods } from '../what-if.ts';
import { freeableOf } from './freeable.ts';
import {
  hasLowerPriorityPod,
  noLowerPriorityPod,
  unschedulableNodeCount,
} from './lowest-priority.ts';
import { pickOneNodeForPreemption } from './pick.ts';
import { mayPreempt, type NodeVictims, noVictimsReason, selectVictimsOnNode } from './victims.ts';

/** DefaultPreemptionArgs: how many candidate nodes a preemption looks for. */
export interface PreemptionArgs {
  /** Percentage of the potential nodes (kube default 10). */
  minCandidateNodesPercentage: number;
  /** At least this many, when there are that many (kube default 100). */
  minCandidateNodesAbsolute: number;
}

/** kube's defaults. */
export const defaultPreemptionArgs: PreemptionArgs = Object.freeze({
  minCandidateNodesPercentage: 10,
  minCandidateNodesAbsolute: 100,
});

/** kube's reason for the nodes a preemption did not look at. */
export const notHelpfulReason = 'Preemption is not helpful for scheduling';
/** kube's messages for a pod that may not preempt. */
export const neverPolicyMessage = 'not eligible due to preemptionPolicy=Never.';
export const terminatingVictimMessage =
  'not eligible due to a terminating pod on the nominated node.';

/** kube's calculateNumCandidates: a percentage of the potential nodes, at least the absolute. */
export function numCandidates(potential: number, args: PreemptionArgs): number {
  const n = Math.floor((potential * args.minCandidateNodesPercentage) / 100);
  return Math.min(potential, Math.max(n, args.minCandidateNodesAbsolute));
}

/**
 * The filter status code of every node in the failed cycle (kube's NodeToStatus): a
 * rejecting PreFilter gives all nodes its code; nodes a PreFilter left out are
 * unresolvable; nodes the capacity proof counted without visiting are filtered now.
 */
function statusCodes(pod: PodInfo, args: PostFilterArgs): (node: NodeInfo) => Code {
  const d = args.diagnosis;
  if (d.preFilterMsg !== undefined) {
    const code: Code =
      d.unresolvableNodes >= args.numAllNodes ? 'UnschedulableAndUnresolvable' : 'Unschedulable';
    return () => code;
  }
  const known = d.nodeToStatus;
  return (node) => {
    const s = known.get(node.name);
    if (s !== undefined) return s.code;
    if (d.summarizedNodes === 0) return 'UnschedulableAndUnresolvable';
    const { filters, preFilters, state, snapshot } = args;
    return filterWithNominatedPods(filters, preFilters, pod, node, state, snapshot).code;
  };
}

/**
 * kube's PodEligibleToPreemptOthers: not for preemptionPolicy Never; not while the node the
 * pod is nominated to still has a lower-priority pod terminating because the scheduler
 * preempted it (unless that node cannot take the pod anyway). The message when not.
 */
function ineligibility(pod: PodInfo, args: PostFilterArgs, code: (n: NodeInfo) => Code) {
  if (pod.preemptionPolicy === 'Never') return neverPolicyMessage;
  const name = pod.nominatedNodeName;
  if (name === undefined) return undefined;
  const node = args.snapshot.nodes.get(name);
  if (node === undefined || code(node) === 'UnschedulableAndUnresolvable') return undefined;
  for (const other of node.pods.values())
    if (mayPreempt(pod, other) && other.terminating && other.preemptedByScheduler)
      return terminatingVictimMessage;
  return undefined;
}

const nodeResourcesFit = 'NodeResourcesFit';

/**
 * A necessary condition for `node` to be a candidate, by NodeResourcesFit's arithmetic
 * alone: with every pod of lower priority gone and the nominated pods of equal or higher
 * priority added, `pod`'s cpu, memory, ephemeral storage and pod slot fit. When false,
 * victim selection on the node is bound to fail (NodeResourcesFit rejects even its first
 * check), so the walk skips it without copying anything. O(nominated pods on the node)
 * while the node is unchanged, else O(pods on the node).
 */
function resourcesMayFreeUp(pod: PodInfo, node: NodeInfo, args: PostFilterArgs): boolean {
  if (node.invalid !== undefined) return true;
  const free = freeableOf(node, pod.priority);
  let cpu = free.cpu;
  let memory = free.memory;
  let storage = free.storage;
  let slots = free.slots;
  const nominated = args.snapshot.nominated.get(node.name);
  if (nominated !== undefined)
    for (const other of nominated.values()) {
      // The pods kube's addGENominatedPods would add (nominatedPodsToHonour, unallocated).
      if (other.uid === pod.uid || other.priority < pod.priority) continue;
      cpu = subAmounts(cpu, other.requests.milliCPU);
      memory = subAmounts(memory, other.requests.memory);
      storage = subAmounts(storage, other.requests.ephemeralStorage);
      slots--;
    }
  const r = pod.requests;
  if (slots < 1) return false;
  if (r.milliCPU > 0 && r.milliCPU > cpu) return false;
  if (r.memory > 0 && r.memory > memory) return false;
  return !(r.ephemeralStorage > 0 && r.ephemeralStorage > storage);
}

/** The pods nominated to `node` with lower priority than `pod` (their nominations are cleared). */
function lowerPriorityNominated(pod: PodInfo, node: string, args: PostFilterArgs): PodInfo[] {
  const nominated = args.snapshot.nominated.get(node);
  if (nominated === undefined) return [];
  return [...nominated.values()].filter((p) => p.priority < pod.priority && p.uid !== pod.uid);
}

/** "preemption: <message>" as an Unschedulable status. */
function unschedulable(message: string): PostFilterResult {
  return {
    code: 'Unschedulable',
    reasons: [`preemption: ${message}`],
    plugin: 'DefaultPreemption',
  };
}

/** What the walk over the potential nodes found: candidates, and why the other nodes failed. */
interface Walk {
  found: NodeVictims[];
  /**
   * The failed nodes' statuses, read only when no node is a candidate. Nodes without any
   * pod of lower priority are counted in `summarizedNodes` and `reasons` only.
   */
  failed: Diagnosis;
}

/**
 * Walks `potential` from an offset drawn from the seeded generator until one candidate
 * without budget violations is held and `numCandidates` are (kube checks them in parallel
 * and stops the same way; berth's walk is sequential, so always the same). Nodes with no
 * pod of lower priority (cached per node generation) fail at once with kube's no-victims
 * reason; nodes the resource bound rules out are searched only if no node is a candidate.
 */
function walkCandidates(
  pod: PodInfo,
  potential: readonly NodeInfo[],
  args: PostFilterArgs,
  pa: PreemptionArgs,
): Walk {
  const failed = newDiagnosis();
  const found: NodeVictims[] = [];
  if (potential.length === 0) return { found, failed };
  const offset = args.rng.nextInt(potential.length);
  const wanted = numCandidates(potential.length, pa);
  const search = { ...args, budgets: budgetsOf(args.snapshot) };
  const bounded = args.filters.some((f) => f.name === nodeResourcesFit);
  const ruledOut: NodeInfo[] = [];
  let withoutVictims = 0;
  let clean = 0;
  for (let i = 0; i < potential.length; i++) {
    const node = potential[(offset + i) % potential.length] as NodeInfo;
    if (!hasLowerPriorityPod(node, pod.priority)) withoutVictims++;
    else if (bounded && !resourcesMayFreeUp(pod, node, args)) ruledOut.push(node);
    else {
      const result = selectVictimsOnNode(pod, node, search);
      if ('victims' in result) {
        found.push(result);
        if (result.budgetViolations === 0) clean++;
        if (clean > 0 && found.length >= wanted) break;
      } else recordNodeStatus(failed, node.name, result as Status);
    }
  }
  if (found.length > 0) return { found, failed };
  for (const node of ruledOut) {
    const result = selectVictimsOnNode(pod, node, search);
    if (!('victims' in result)) recordNodeStatus(failed, node.name, result as Status);
  }
  if (withoutVictims > 0) {
    failed.summarizedNodes += withoutVictims;
    failed.reasons.set(
      noVictimsReason,
      (failed.reasons.get(noVictimsReason) ?? 0) + withoutVictims,
    );
  }
  return { found, failed };
}

/**
 * The answer when no node has a pod of lower priority than the preemptor, with
 * `potential` nodes that failed Unschedulable: each of them has no victim, the others are
 * not helpful. The same answer the walk gives, and the same draw from the generator.
 */
function noVictimAnywhere(potential: number, args: PostFilterArgs): PostFilterResult {
  if (potential > 0) args.rng.nextInt(potential);
  const failed = newDiagnosis();
  if (potential > 0) failed.reasons.set(noVictimsReason, potential);
  const absent = args.numAllNodes - potential;
  if (absent > 0) failed.reasons.set(notHelpfulReason, absent);
  return { ...unschedulable(fitErrorMessage(args.numAllNodes, failed)), clearsNomination: true };
}

/**
 * Preempts for `pod`, which fits no node (kube 1.34 Evaluator.Preempt with
 * DefaultPreemption): Success with the nomination (node, victims, lower nominations to
 * clear), or Unschedulable with kube's "preemption: …" message. Candidates are the nodes
 * whose failure was Unschedulable, walked from an offset drawn from the seeded generator
 * until one without budget violations is held and `numCandidates` are (kube checks them
 * in parallel and stops the same way; berth's walk is sequential, so always the same).
 */
export function preempt(pod: PodInfo, args: PostFilterArgs, pa: PreemptionArgs): PostFilterResult {
  const code = statusCodes(pod, args);
  const why = ineligibility(pod, args, code);
  if (why !== undefined) return unschedulable(why);
  const nodes = args.snapshot.nodeOrder;
  if (noLowerPriorityPod(nodes, pod.priority)) {
    const count = unschedulableNodeCount(args.diagnosis, nodes, args.numAllNodes);
    if (count !== undefined) return noVictimAnywhere(count, args);
  }
  const potential: NodeInfo[] = [];
  for (const node of args.snapshot.nodeOrder)
    if (code(node) === 'Unschedulable') potential.push(node);
  const { found, failed } = walkCandidates(pod, potential, args, pa);
  if (found.length === 0) {
    const absent = args.numAllNodes - failed.nodeToStatus.size - failed.summarizedNodes;
    if (absent > 0)
      failed.reasons.set(notHelpfulReason, (failed.reasons.get(notHelpfulReason) ?? 0) + absent);
    // kube answers with a nomination to "": the preemptor's own nomination is cleared.
    return { ...unschedulable(fitErrorMessage(args.numAllNodes, failed)), clearsNomination: true };
  }
  // kube lists the candidates without budget violations first.
  const ordered = [
    ...found.filter((c) => c.budgetViolations === 0),
    ...found.filter((c) => c.budgetViolations > 0),
  ];
  const best = pickOneNodeForPreemption(ordered, args.now) as NodeVictims;
  const nomination: Nomination = {
    node: best.node,
    victims: best.victims,
    clearNominated: lowerPriorityNominated(pod, best.node, args),
  };
  return { ...success, nomination };
}
