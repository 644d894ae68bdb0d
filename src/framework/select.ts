// Scoring feasible nodes (weighted, normalised plugin scores) and picking the best one.
import type { ClusterSnapshot, NodeInfo, PodInfo } from '../cluster/types.ts';
import type { Rng } from './rng.ts';
import type { CycleState, WeightedScorePlugin } from './types.ts';

// One buffer for every call's raw scores, made anew only when the node count changes: each
// plugin writes every node's score before it is read, and keeps no reference past its call.
let scoresBuffer: number[] = [];

/**
 * kube's prioritizeNodes: RunPreScorePlugins (each plugin's `preScore`, if any, in profile
 * order), then RunScorePlugins: each plugin scores every node, its normalize (if any)
 * rewrites the scores to 0–100, each score is multiplied by the plugin's weight, and the
 * weighted scores are summed per node (a plugin's `scoreNodes`, when it has one, scores all
 * nodes at once). Returns totals aligned with `nodes`. Without score
 * plugins every node gets 1, as in kube. `plugins` are the ones not skipped for `pod`.
 */
export function prioritizeNodes(
  pod: PodInfo,
  nodes: readonly NodeInfo[],
  plugins: readonly WeightedScorePlugin[],
  state: CycleState,
  snapshot: ClusterSnapshot,
  running?: { plugin: string },
): number[] {
  const n = nodes.length;
  const totals = new Array<number>(n).fill(plugins.length === 0 ? 1 : 0);
  for (let p = 0; p < plugins.length; p++) {
    const { plugin } = plugins[p] as WeightedScorePlugin;
    if (plugin.preScore === undefined) continue;
    if (running !== undefined) running.plugin = plugin.name;
    plugin.preScore(pod, state, snapshot, nodes);
  }
  if (scoresBuffer.length !== n) scoresBuffer = new Array<number>(n);
  const scores = scoresBuffer;
  for (let p = 0; p < plugins.length; p++) {
    const { plugin, weight } = plugins[p] as WeightedScorePlugin;
    if (running !== undefined) running.plugin = plugin.name;
    if (plugin.scoreNodes !== undefined) plugin.scoreNodes(pod, nodes, state, scores);
    else for (let i = 0; i < n; i++) scores[i] = plugin.score(pod, nodes[i] as NodeInfo, state);
    plugin.normalize?.(pod, scores, state);
    for (let i = 0; i < n; i++) totals[i] = (totals[i] as number) + (scores[i] as number) * weight;
  }
  return totals;
}

/**
 * kube's selectHost: the index of a highest total, ties broken uniformly by reservoir
 * sampling (the k-th tie replaces the pick with probability 1/k, one `rng.nextInt(k)` per
 * tie after the first). Deterministic for a given rng state. berth walks ties in
 * filtering order; kube walks them in heap order, which is the same distribution.
 * `totals` must not be empty.
 */
export function selectHost(totals: readonly number[], rng: Rng): number {
  let best = totals[0] as number;
  let selected = 0;
  let ties = 1;
  for (let i = 1; i < totals.length; i++) {
    const t = totals[i] as number;
    if (t > best) {
      best = t;
      selected = i;
      ties = 1;
    } else if (t === best) {
      ties++;
      if (rng.nextInt(ties) === 0) selected = i;
    }
  }
  return selected;
}
