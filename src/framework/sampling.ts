// How many feasible nodes a cycle looks for before it stops filtering (percentageOfNodesToScore).

/** Below this many nodes every node is searched; it is also the floor of the search size. */
export const minFeasibleNodesToFind = 100;
/** The adaptive percentage never drops below this. */
export const minFeasibleNodesPercentageToFind = 5;

/**
 * kube's numFeasibleNodesToFind, with Go's int32 arithmetic: fewer than 100 nodes → all
 * of them; otherwise pct = `percentage`, or when it is 0 (adaptive)
 * max(5, 50 − trunc(n / 125)); the result is trunc(n × pct / 100) but at least 100.
 * Percentages ≥ 100 mean every node; negatives are treated as 0 (kube's config
 * validation rejects them).
 */
export function numFeasibleNodesToFind(numAllNodes: number, percentage: number): number {
  if (numAllNodes < minFeasibleNodesToFind) return numAllNodes;
  let pct = percentage > 100 ? 100 : Math.trunc(percentage);
  if (pct <= 0) {
    pct = 50 - Math.trunc(numAllNodes / 125);
    if (pct < minFeasibleNodesPercentageToFind) pct = minFeasibleNodesPercentageToFind;
  }
  const num = Math.trunc((numAllNodes * pct) / 100);
  return Math.max(num, minFeasibleNodesToFind);
}
