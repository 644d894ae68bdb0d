// ImageLocality score: favours nodes that already hold the images of the pod's containers.
import type { ClusterSnapshot, ImageStateSummary, NodeInfo, PodInfo } from '../cluster/types.ts';
import { type CycleState, maxNodeScore, type ScorePlugin } from '../framework/types.ts';
import { type KubeRelease, latestKubeRelease, releaseAtLeast } from '../model/kube-release.ts';

/** kube defines normalizedImageName in this plugin; berth applies it when parsing pods. */
export { normalizedImageName } from '../cluster/images.ts';

/** Name of the plugin in the registry and in profiles. */
export const name = 'ImageLocality';

const mb = 1024 * 1024;
/** kube's minThreshold: image sizes summing to at most this score 0 (23 MiB). */
export const minThreshold = 23 * mb;
/** kube's maxContainerThreshold: per container; sums from this × containers score 100. */
export const maxContainerThreshold = 1000 * mb;

/** The cycle-state key of the PreScore data (kube names such keys "PreScore" + plugin). */
const preScoreStateKey = `PreScore${name}`;

/** What PreScore leaves for Score: the pod's images that some live node holds. */
interface PreScoreData {
  /** One entry per container whose image is in the index (duplicates kept). */
  readonly names: readonly string[];
  /** `scaledImageScore` of each of `names`, aligned. */
  readonly scaled: readonly number[];
  /** kube's numContainers (1.37: imageCount): init plus app containers (plus image volumes). */
  readonly numContainers: number;
}

/**
 * kube's scaledImageScore: the image's size times its spread (the share of all live nodes
 * that hold it), in float64 as Go computes it, truncated toward zero as `int64(…)` does.
 * The spread damps "node heating": a rare image pulls pods less than a common one.
 */
export function scaledImageScore(
  summary: Readonly<ImageStateSummary>,
  totalNumNodes: number,
): number {
  return Math.trunc(summary.size * (summary.numNodes / totalNumNodes));
}

/**
 * kube's calculatePriority: `sumScores` clamped to [minThreshold, maxContainerThreshold ×
 * numContainers] and mapped linearly to 0–100 in int64 arithmetic: 100 × (sum − min) /
 * (max − min), the division truncating. Exact for sums below 2^53 / 100.
 */
export function calculatePriority(sumScores: number, numContainers: number): number {
  const maxThreshold = maxContainerThreshold * numContainers;
  let sum = sumScores;
  if (sum < minThreshold) sum = minThreshold;
  else if (sum > maxThreshold) sum = maxThreshold;
  const a = maxNodeScore * (sum - minThreshold);
  const b = maxThreshold - minThreshold;
  // Go's truncating integer division, exact: a − a % b is a multiple of b.
  const q = (a - (a % b)) / b;
  return q === 0 ? 0 : q; // no −0 (a pod without containers divides 0 by a negative)
}

/**
 * kube 1.34–1.35's ImageLocality score of `node` for `pod`: the `scaledImageScore` of each
 * init and app container image (normalized, see `normalizedImageName`) that the node lists
 * in `status.images`, summed, through `calculatePriority` with the number of containers.
 * `imageStates` and `totalNumNodes` are the snapshot's image index and live node count.
 */
export function imageLocalityScore(
  pod: PodInfo,
  node: NodeInfo,
  imageStates: ClusterSnapshot['imageStates'],
  totalNumNodes: number,
): number {
  let sum = 0;
  for (const image of pod.images) {
    const summary = imageStates.get(image);
    if (summary !== undefined && node.images.has(image))
      sum += scaledImageScore(summary, totalNumNodes);
  }
  return calculatePriority(sum, pod.images.length);
}

/** The sum of the `scaled` scores of those `names` that `node` holds. */
function heldImagesScore(
  names: readonly string[],
  scaled: readonly number[],
  node: NodeInfo,
): number {
  let sum = 0;
  for (let i = 0; i < names.length; i++)
    if (node.images.has(names[i] as string)) sum += scaled[i] as number;
  return sum;
}

function preScoreData(state: CycleState): PreScoreData {
  const data = state.get(preScoreStateKey) as PreScoreData | undefined;
  if (data === undefined)
    throw new Error(`reading "${preScoreStateKey}" from cycle state: not found`);
  return data;
}

/** Which images a release scores: image volumes in the sum (1.36+), and in the count (1.37+). */
interface ImageRules {
  readonly sumVolumes: boolean;
  readonly countVolumes: boolean;
}

/**
 * Score only, raw scores already 0–100 (no normalize), never skipped (kube has neither a
 * PreScore Skip nor ScoreExtensions for it). kube reads the live node count and the image
 * index from its snapshot inside Score; berth's Score sees one node, so `preScore` reads
 * them once per cycle and computes each image's scaled score, which is the same on every
 * node. Known divergence: kube's snapshot refreshes a node's image counts only when that
 * node changes, so kube may score an unchanged node with stale counts; berth always uses
 * the current ones (what kube's own tests, building a fresh snapshot, expect).
 */
function imageLocalityPlugin(rules: ImageRules) {
  return {
    name,
    preScore(pod: PodInfo, state: CycleState, snapshot: ClusterSnapshot): void {
      const total = snapshot.nodeOrder.length;
      const names: string[] = [];
      const scaled: number[] = [];
      const add = (image: string) => {
        const summary = snapshot.imageStates.get(image);
        if (summary === undefined) return; // on no live node: adds nothing anywhere
        names.push(image);
        scaled.push(scaledImageScore(summary, total));
      };
      pod.images.forEach(add);
      if (rules.sumVolumes) pod.imageVolumes.forEach(add);
      const numContainers = pod.images.length + (rules.countVolumes ? pod.imageVolumes.length : 0);
      const data: PreScoreData = { names, scaled, numContainers };
      state.set(preScoreStateKey, data);
    },
    score(_pod: PodInfo, node: NodeInfo, state: CycleState): number {
      const { names, scaled, numContainers } = preScoreData(state);
      return calculatePriority(heldImagesScore(names, scaled, node), numContainers);
    },
    scoreNodes(_pod: PodInfo, nodes: readonly NodeInfo[], state: CycleState, scores: number[]) {
      const { names, scaled, numContainers } = preScoreData(state);
      if (names.length === 0) {
        // No image of the pod is on any live node: every node scores the empty sum.
        scores.fill(calculatePriority(0, numContainers), 0, nodes.length);
        return;
      }
      for (let i = 0; i < nodes.length; i++) {
        const sum = heldImagesScore(names, scaled, nodes[i] as NodeInfo);
        scores[i] = calculatePriority(sum, numContainers);
      }
    },
  } satisfies ScorePlugin;
}

/** kube 1.34–1.35's ImageLocality: the images of the init and app containers. */
export const imageLocality = imageLocalityPlugin({ sumVolumes: false, countVolumes: false });

/**
 * kube 1.36's: image volumes' images (`spec.volumes[].image.reference`) add to the sum, but
 * the thresholds still scale with the containers alone.
 */
export const imageLocality136 = imageLocalityPlugin({ sumVolumes: true, countVolumes: false });

/** kube 1.37's: image volumes add to the sum and each counts like a container. */
export const imageLocality137 = imageLocalityPlugin({ sumVolumes: true, countVolumes: true });

/** Returns the plugin for `release` (absent: the latest); it takes no arguments in kube either. */
export function newImageLocality(
  _args?: unknown,
  release: KubeRelease = latestKubeRelease,
): typeof imageLocality {
  if (releaseAtLeast(release, '1.37')) return imageLocality137;
  return releaseAtLeast(release, '1.36') ? imageLocality136 : imageLocality;
}
