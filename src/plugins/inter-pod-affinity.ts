// InterPodAffinity: filter on required pod affinity/anti-affinity (both ways), score on preferred terms.
import type { PodInfo } from '../cluster/types.ts';
import { ArgsError, shownValue } from '../framework/args-error.ts';
import type { CycleState, FilterPlugin, PreFilterPlugin, ScorePlugin } from '../framework/types.ts';
import { name } from './inter-pod-affinity/common.ts';
import { interPodAffinityExtensions } from './inter-pod-affinity/extensions.ts';
import { filter, preFilter, preFilterStateKey, skipped } from './inter-pod-affinity/filtering.ts';
import { interPodAffinityQueueingHint } from './inter-pod-affinity/hints.ts';
import { type ScoringArgs, scoring } from './inter-pod-affinity/scoring.ts';

export { name } from './inter-pod-affinity/common.ts';
export { interPodAffinityExtensions } from './inter-pod-affinity/extensions.ts';
export {
  ErrReasonAffinityRulesNotMatch,
  ErrReasonAntiAffinityRulesNotMatch,
  ErrReasonExistingAntiAffinityRulesNotMatch,
} from './inter-pod-affinity/filtering.ts';
export { interPodAffinityQueueingHint } from './inter-pod-affinity/hints.ts';

/** kube's InterPodAffinityArgs, as a profile's `pluginArgs.InterPodAffinity` gives them. */
export interface InterPodAffinityArgs {
  /** Integer 0–100, default 1 (kube's DefaultHardPodAffinitySymmetricWeight); 0 turns it off. */
  hardPodAffinityWeight?: number;
  /** Default false. */
  ignorePreferredTermsOfExistingPods?: boolean;
}

/** kube's defaults. */
export const defaultArgs: ScoringArgs = Object.freeze({
  hardPodAffinityWeight: 1,
  ignorePreferredTermsOfExistingPods: false,
});

const knownArgs = ['hardPodAffinityWeight', 'ignorePreferredTermsOfExistingPods'];

/**
 * Reads and validates the arguments, the one check of them berth has (the config file's
 * reader calls it too): kube 1.34's ValidateInterPodAffinityArgs checks only that
 * hardPodAffinityWeight is within 0–100; ignorePreferredTermsOfExistingPods is any boolean.
 * Throws an ArgsError naming the field for anything else than the documented shape.
 */
export function parseArgs(args: unknown): ScoringArgs {
  if (args === undefined || args === null) return defaultArgs;
  if (typeof args !== 'object' || Array.isArray(args))
    throw new ArgsError(name, '', `args must be a mapping, got ${shownValue(args)}`);
  const a = args as Record<string, unknown>;
  for (const key of Object.keys(a))
    if (!knownArgs.includes(key))
      throw new ArgsError(name, key, `unknown field (known: ${knownArgs.join(', ')})`);
  const w = a.hardPodAffinityWeight ?? defaultArgs.hardPodAffinityWeight;
  if (typeof w !== 'number' || !Number.isInteger(w))
    throw new ArgsError(name, 'hardPodAffinityWeight', `must be an integer, got ${shownValue(w)}`);
  if (w < 0 || w > 100)
    throw new ArgsError(name, 'hardPodAffinityWeight', `${w} not in valid range [0, 100]`);
  const ignore = a.ignorePreferredTermsOfExistingPods ?? false;
  if (typeof ignore !== 'boolean')
    throw new ArgsError(
      name,
      'ignorePreferredTermsOfExistingPods',
      `must be true or false, got ${shownValue(ignore)}`,
    );
  return { hardPodAffinityWeight: w, ignorePreferredTermsOfExistingPods: ignore };
}

/**
 * kube 1.34's InterPodAffinity with `args` (kube's defaults when absent; throws on bad ones).
 *
 * PreFilter: counts per topology pair (key, value) of (1) existing pods' required
 * anti-affinity terms the pod matches, (2) pods matching all of the pod's required
 * affinity terms, (3) pods matching each of its required anti-affinity terms; kube's Skip
 * (`preFilterSkip`: Filter left out) when (1) is empty and the pod has no required terms.
 * AddPod/RemovePod (`extensions`): the three counts updated for a pod put on or taken off a
 * what-if node (nothing when PreFilter was skipped).
 * Filter: UnschedulableAndUnresolvable "node(s) didn't match pod affinity rules" when the
 * node lacks a term's topology key or a term's pair has no matching pod (unless no pod
 * matches anywhere and the pod matches its own terms: the first of a group);
 * Unschedulable "node(s) didn't match pod anti-affinity rules" and "node(s) didn't satisfy
 * existing pods anti-affinity rules" for the two anti-affinity directions.
 * PreScore/Score/normalize: preferred terms both ways and existing pods' required affinity
 * (× hardPodAffinityWeight) summed per pair, min–max normalised to 0–100; skipped for a
 * pod without preferred terms when no live node holds a pod with terms.
 * The counts come from the charges' pod affinity index (existing pods' equal terms grouped,
 * matched once each; the pods matching the incoming pod's terms counted by a memo the
 * charges keep), never from a walk over every pod; a snapshot without a current index
 * (hand-built) is walked instead, with the same results.
 */
export function newInterPodAffinity(args?: unknown) {
  const scoringArgs = parseArgs(args);
  return {
    name,
    queueingHint: interPodAffinityQueueingHint,
    preFilter,
    extensions: interPodAffinityExtensions,
    /** kube's PreFilter Skip, as PreFilter found it: Filter would pass every node. */
    preFilterSkip(_pod: PodInfo, state: CycleState): boolean {
      return state.get(preFilterStateKey) === skipped;
    },
    filter,
    ...scoring(scoringArgs),
  } satisfies PreFilterPlugin & FilterPlugin & ScorePlugin;
}

/** The plugin with kube's default arguments. */
export const interPodAffinity = newInterPodAffinity();
