// NodeAffinity: filter on nodeSelector plus required node affinity; score on preferred terms.

import type { PreferredSchedulingTerm } from '../cluster/objects.ts';
import type { NodeInfo, PodInfo } from '../cluster/types.ts';
import { nodeLabelsChanged } from '../framework/hints.ts';
import {
  type FilterPlugin,
  type ScorePlugin,
  type Status,
  status,
  success,
} from '../framework/types.ts';
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

const rejected: Status = Object.freeze(status('UnschedulableAndUnresolvable', name, ErrReasonPod));

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
 * Filter: UnschedulableAndUnresolvable "node(s) didn't match Pod's node affinity/selector".
 * Score: the matching preferred weights, normalised to 0–100 (highest sum gets 100).
 *
 * Not mirrored: kube's PreFilter narrows the node list when every required term pins
 * `metadata.name` (DaemonSet pods); berth filters every node instead, so the other
 * nodes report this plugin's reason rather than "didn't satisfy plugin(s) [NodeAffinity]".
 */
export const nodeAffinity = {
  name,
  queueingHint: nodeLabelsChanged,
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
} satisfies FilterPlugin & ScorePlugin;

/** Returns the NodeAffinity plugin (kube's `addedAffinity` argument is not supported). */
export function newNodeAffinity(): typeof nodeAffinity {
  return nodeAffinity;
}
