// NodeAffinity: filter on nodeSelector plus required node affinity; score on preferred terms.

import type { NodeInfo, PodInfo } from '../cluster/types.ts';
import { nodeLabelsChanged } from '../framework/hints.ts';
import {
  type FilterPlugin,
  type PreFilterPlugin,
  type PreFilterResult,
  type ScorePlugin,
  type Status,
  status,
  success,
} from '../framework/types.ts';
import type { NodeAffinity, NodeSelectorTerm, PreferredSchedulingTerm } from '../model/objects.ts';
import { isRecord } from '../model/record.ts';
import { isEmptyTerm, matchesAnyTerm, matchesNodeSelector, matchesTerm } from './node-selector.ts';
import { defaultNormalizeScore } from './normalize-score.ts';

/** True when `r` has no own keys (without listing them: this runs once per pod per cycle). */
function isEmptyRecord(r: Record<string, string>): boolean {
  for (const _ in r) return false;
  return true;
}

/** Name of the plugin in the registry and in profiles. */
export const name = 'NodeAffinity';

/** kube's ErrReasonPod. */
export const ErrReasonPod = "node(s) didn't match Pod's node affinity/selector";

/** kube's errReasonConflict: every required term pins node names, and no name is left. */
export const ErrReasonConflict = 'pod affinity terms conflict';

/** kube's errReasonEnforced: the node fails the profile's `addedAffinity`. */
export const ErrReasonEnforced = "node(s) didn't match scheduler-enforced node affinity";

const rejected: Status = Object.freeze(status('UnschedulableAndUnresolvable', name, ErrReasonPod));
const enforced: Status = Object.freeze(
  status('UnschedulableAndUnresolvable', name, ErrReasonEnforced),
);
const conflict: Status = Object.freeze(
  status('UnschedulableAndUnresolvable', name, ErrReasonConflict),
);

/** The field selector key that names a node (kube's metav1.ObjectNameField). */
const nodeNameField = 'metadata.name';

/**
 * The node names a required term pins with `matchFields` `metadata.name In`, intersected
 * over its requirements; undefined when the term pins none (it may match any node).
 */
function pinnedNames(term: NodeSelectorTerm): Set<string> | undefined {
  let names: Set<string> | undefined;
  for (const r of term.matchFields ?? []) {
    if (r.key !== nodeNameField || r.operator !== 'In') continue;
    const values = new Set(r.values ?? []);
    names = names === undefined ? values : new Set([...names].filter((n) => values.has(n)));
  }
  return names;
}

/**
 * kube's NodeAffinity PreFilter narrowing: when every required term pins node names, only
 * the union of those names can pass (a DaemonSet pod names its one node); when that union
 * is empty the terms conflict and no node can. Undefined when some term pins no name.
 */
export function requiredNodeNames(terms: readonly NodeSelectorTerm[]): Set<string> | undefined {
  if (terms.length === 0) return undefined;
  const union = new Set<string>();
  for (const term of terms) {
    const names = pinnedNames(term);
    if (names === undefined) return undefined;
    for (const n of names) union.add(n);
  }
  return union;
}

/**
 * True when `node` satisfies the pod's `nodeSelector` (every label present and equal) and,
 * if the pod has required node affinity, at least one of its terms (kube's
 * RequiredNodeAffinity.Match, parse errors counting as no match).
 */
export function matchesRequiredNodeAffinity(pod: PodInfo, node: NodeInfo): boolean {
  if (!matchesNodeSelector(pod.nodeSelector, node.labels)) return false;
  const terms = pod.requiredNodeAffinity;
  return terms === undefined || matchesAnyTerm(terms, node);
}

/**
 * Sum of the weights of the pod's preferred terms that match `node`. Terms with weight 0
 * or no requirements are skipped as in kube. A malformed term counts as not matching
 * (kube fails the whole cycle with an error there; the API server rejects such pods).
 */
export function preferredAffinityScore(pod: PodInfo, node: NodeInfo): number {
  const terms = pod.preferredNodeAffinity;
  let score = 0;
  for (let i = 0; i < terms.length; i++) {
    const t = terms[i] as PreferredSchedulingTerm;
    if (t.weight === 0 || isEmptyTerm(t.preference)) continue;
    if (matchesTerm(t.preference, node)) score += t.weight;
  }
  return score;
}

/**
 * PreFilter: narrows the nodes to the names every required term pins (`requiredNodeNames`),
 * or rejects with "pod affinity terms conflict" when no name is left; the nodes left out
 * then count as "node(s) didn't satisfy plugin(s) [NodeAffinity]", as in kube.
 * Filter: UnschedulableAndUnresolvable "node(s) didn't match Pod's node affinity/selector".
 * Score: the matching preferred weights, normalised to 0–100 (highest sum gets 100).
 */
export const nodeAffinity = {
  name,
  queueingHint: nodeLabelsChanged,
  preFilter(pod: PodInfo): PreFilterResult {
    const terms = pod.requiredNodeAffinity;
    if (terms === undefined) return success;
    const names = requiredNodeNames(terms);
    if (names === undefined) return success;
    return names.size === 0 ? conflict : { ...success, nodeNames: names };
  },
  /** kube's PreFilter Skip: no nodeSelector and no required affinity pass every node. */
  preFilterSkip(pod: PodInfo): boolean {
    return pod.requiredNodeAffinity === undefined && isEmptyRecord(pod.nodeSelector);
  },
  /** kube's PreScore Skip: without preferred terms every node scores 0. */
  preScoreSkip(pod: PodInfo): boolean {
    return pod.preferredNodeAffinity.length === 0;
  },
  filter(pod: PodInfo, node: NodeInfo): Status {
    return matchesRequiredNodeAffinity(pod, node) ? success : rejected;
  },
  score(pod: PodInfo, node: NodeInfo): number {
    return preferredAffinityScore(pod, node);
  },
  normalize(_pod: PodInfo, scores: number[]): void {
    defaultNormalizeScore(scores, false);
  },
} satisfies PreFilterPlugin & FilterPlugin & ScorePlugin;

/** Arguments of NodeAffinity (kube's NodeAffinityArgs). */
export interface NodeAffinityArgs {
  /** Node affinity every pod of the profile gets on top of (ANDed with) its own. */
  addedAffinity?: NodeAffinity;
}

/** The added affinity in the form the plugin uses it. */
interface Added {
  /** Required terms (ORed), or undefined when none are added. */
  required: readonly NodeSelectorTerm[] | undefined;
  /** Preferred terms that can score (weight ≠ 0, non-empty), as kube keeps them. */
  preferred: readonly PreferredSchedulingTerm[];
}

/** Reads the args (already checked by the config layer); throws on a wrong shape. */
function parseArgs(args: unknown): Added {
  if (args === undefined) return { required: undefined, preferred: [] };
  if (!isRecord(args)) throw new Error(`${name}: args must be an object`);
  const added = args.addedAffinity;
  if (added === undefined) return { required: undefined, preferred: [] };
  if (!isRecord(added)) throw new Error(`${name}: addedAffinity must be an object`);
  const req = added.requiredDuringSchedulingIgnoredDuringExecution;
  let required: NodeSelectorTerm[] | undefined;
  if (req !== undefined) {
    if (!isRecord(req) || !Array.isArray(req.nodeSelectorTerms))
      throw new Error(`${name}: addedAffinity.required… needs a nodeSelectorTerms list`);
    required = req.nodeSelectorTerms as NodeSelectorTerm[];
  }
  const pref = added.preferredDuringSchedulingIgnoredDuringExecution ?? [];
  if (!Array.isArray(pref)) throw new Error(`${name}: addedAffinity.preferred… must be a list`);
  const preferred = (pref as PreferredSchedulingTerm[]).filter(
    (t) => typeof t.weight === 'number' && t.weight !== 0 && !isEmptyTerm(t.preference ?? {}),
  );
  return { required, preferred };
}

/** kube's score of the added preferred terms on `node`: the sum of the matching weights. */
function addedScore(terms: readonly PreferredSchedulingTerm[], node: NodeInfo): number {
  let score = 0;
  for (const t of terms) if (matchesTerm(t.preference, node)) score += t.weight;
  return score;
}

/**
 * Returns the NodeAffinity plugin. With kube's `addedAffinity` argument, every pod of the
 * profile is also held to it, as kube does: the added required terms are checked before
 * the pod's own (UnschedulableAndUnresolvable "node(s) didn't match scheduler-enforced node
 * affinity"), so the filter no longer skips pods without affinity; the added preferred
 * weights are added to the pod's own score. PreFilter narrowing reads the pod's own terms
 * only (kube's too). Without args (or an empty added affinity): the shared `nodeAffinity`.
 */
export function newNodeAffinity(args?: unknown): typeof nodeAffinity {
  const added = parseArgs(args);
  const required = added.required;
  if (required === undefined && added.preferred.length === 0) return nodeAffinity;
  return {
    ...nodeAffinity,
    preFilterSkip(pod: PodInfo): boolean {
      return required === undefined && nodeAffinity.preFilterSkip(pod);
    },
    preScoreSkip(pod: PodInfo): boolean {
      return added.preferred.length === 0 && nodeAffinity.preScoreSkip(pod);
    },
    filter(pod: PodInfo, node: NodeInfo): Status {
      if (required !== undefined && !matchesAnyTerm(required, node)) return enforced;
      return nodeAffinity.filter(pod, node);
    },
    score(pod: PodInfo, node: NodeInfo): number {
      return addedScore(added.preferred, node) + preferredAffinityScore(pod, node);
    },
  };
}
