// kube's prioritizeNodes: PreScore, Score, NormalizeScore and weights over the feasible nodes.
import type { ClusterSnapshot, NodeInfo, PodInfo } from '../cluster/types.ts';
import type { CycleRecorder } from './cycle-recorder.ts';
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
 * Each plugin's raw and normalized scores go to `recorder`, when there is one.
 */
export function prioritizeNodes(
  pod: PodInfo,
  nodes: readonly NodeInfo[],
  plugins: readonly WeightedScorePlugin[],
  state: CycleState,
  snapshot: ClusterSnapshot,
  running?: { plugin: string },
  recorder?: CycleRecorder,
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
    const weighted = plugins[p] as WeightedScorePlugin;
    const { plugin, weight } = weighted;
    if (running !== undefined) running.plugin = plugin.name;
    if (plugin.scoreNodes !== undefined) plugin.scoreNodes(pod, nodes, state, scores);
    else for (let i = 0; i < n; i++) scores[i] = plugin.score(pod, nodes[i] as NodeInfo, state);
    const raw = recorder === undefined ? undefined : scores.slice();
    plugin.normalize?.(pod, scores, state);
    if (recorder !== undefined) recorder.scores(weighted, nodes, raw ?? [], scores);
    for (let i = 0; i < n; i++) totals[i] = (totals[i] as number) + (scores[i] as number) * weight;
  }
  return totals;
}
