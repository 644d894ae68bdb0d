// TaintToleration: filter on NoSchedule/NoExecute taints, score on PreferNoSchedule taints.

import type { NodeInfo, PodInfo } from '../cluster/types.ts';
import { nodeTaintsChanged } from '../framework/hints.ts';
import {
  type FilterPlugin,
  type ScorePlugin,
  type Status,
  status,
  success,
} from '../framework/types.ts';
import type { Taint, Toleration } from '../model/objects.ts';
import { defaultNormalizeScore } from './normalize-score.ts';

/** Name of the plugin in the registry and in profiles. */
export const name = 'TaintToleration';

/**
 * kube's Filter reason since kubernetes#134740 (1.35; cherry-picked to 1.34 patches): the taint's
 * key and value are no longer shown (they may be sensitive). Older releases said
 * `node(s) had untolerated taint {key: value}`.
 */
export const ErrReasonUntoleratedTaint = 'node(s) had untolerated taint(s)';

const rejected: Status = Object.freeze(
  status('UnschedulableAndUnresolvable', name, ErrReasonUntoleratedTaint),
);

/**
 * kube's Toleration.ToleratesTaint: an empty effect matches every effect; an empty key
 * matches every key; operator Exists matches any value, Equal (or empty) needs the same
 * value; any other operator (including the feature-gated Lt/Gt) tolerates nothing.
 */
export function toleratesTaint(t: Toleration, taint: Taint): boolean {
  if (t.effect !== undefined && t.effect !== '' && t.effect !== taint.effect) return false;
  if (t.key !== undefined && t.key !== '' && t.key !== taint.key) return false;
  const op = t.operator;
  if (op === undefined || op === '' || op === 'Equal')
    return (t.value ?? '') === (taint.value ?? '');
  return op === 'Exists';
}

/** True when any of `tolerations` tolerates `taint` (kube's TolerationsTolerateTaint). */
export function tolerationsTolerateTaint(
  tolerations: readonly Toleration[],
  taint: Taint,
): boolean {
  for (let i = 0; i < tolerations.length; i++) {
    if (toleratesTaint(tolerations[i] as Toleration, taint)) return true;
  }
  return false;
}

/**
 * The first NoSchedule or NoExecute taint of `node` that `pod` does not tolerate, in the
 * node's taint order (kube's FindMatchingUntoleratedTaint), or undefined.
 */
export function findUntoleratedTaint(pod: PodInfo, node: NodeInfo): Taint | undefined {
  const taints = node.taints;
  for (let i = 0; i < taints.length; i++) {
    const taint = taints[i] as Taint;
    if (taint.effect !== 'NoSchedule' && taint.effect !== 'NoExecute') continue;
    if (!tolerationsTolerateTaint(pod.tolerations, taint)) return taint;
  }
  return undefined;
}

/**
 * Number of PreferNoSchedule taints on `node` not tolerated by the pod's tolerations with
 * effect PreferNoSchedule or empty (kube's countIntolerableTaintsPreferNoSchedule).
 */
export function countIntolerablePreferNoSchedule(pod: PodInfo, node: NodeInfo): number {
  const taints = node.taints;
  const tolerations = pod.tolerations;
  let count = 0;
  for (let i = 0; i < taints.length; i++) {
    const taint = taints[i] as Taint;
    if (taint.effect !== 'PreferNoSchedule') continue;
    let tolerated = false;
    for (let j = 0; j < tolerations.length; j++) {
      const t = tolerations[j] as Toleration;
      // kube's PreScore keeps only tolerations whose effect is empty or PreferNoSchedule.
      if (t.effect !== undefined && t.effect !== '' && t.effect !== 'PreferNoSchedule') continue;
      if (toleratesTaint(t, taint)) {
        tolerated = true;
        break;
      }
    }
    if (!tolerated) count++;
  }
  return count;
}

/**
 * Filter: UnschedulableAndUnresolvable when a NoSchedule/NoExecute taint is not tolerated.
 * Score: the count of intolerable PreferNoSchedule taints, normalised reversed to 0–100
 * (fewer such taints, higher score).
 */
export const taintToleration = {
  name,
  queueingHint: nodeTaintsChanged,
  passesUntaintedNodes: true,
  filter(pod: PodInfo, node: NodeInfo): Status {
    return findUntoleratedTaint(pod, node) === undefined ? success : rejected;
  },
  score(pod: PodInfo, node: NodeInfo): number {
    return countIntolerablePreferNoSchedule(pod, node);
  },
  scoreNodes(pod: PodInfo, nodes: readonly NodeInfo[], _state: unknown, scores: number[]): void {
    for (let i = 0; i < nodes.length; i++)
      scores[i] = countIntolerablePreferNoSchedule(pod, nodes[i] as NodeInfo);
  },
  normalize(_pod: PodInfo, scores: number[]): void {
    defaultNormalizeScore(scores, true);
  },
} satisfies FilterPlugin & ScorePlugin;

/** Returns the TaintToleration plugin (it takes no arguments). */
export function newTaintToleration(): typeof taintToleration {
  return taintToleration;
}
