// A profile that runs the real plugins unchanged and records what each call returned, for explain.
import type { ClusterSnapshot, NodeInfo, PodInfo } from '../cluster/types.ts';
import type {
  CycleState,
  FilterPlugin,
  PostFilterArgs,
  PostFilterPlugin,
  PostFilterResult,
  PreFilterPlugin,
  PreFilterResult,
  Profile,
  ScorePlugin,
  Status,
  WeightedScorePlugin,
} from './types.ts';
import { success } from './types.ts';

/** One PreFilter call: the plugin and what it answered. */
export interface PreFilterCall {
  plugin: string;
  result: PreFilterResult;
}

/** One Filter call on one node: the filter's index in the profile and its status. */
export interface FilterCall {
  index: number;
  status: Status;
}

/** One score plugin's view of one cycle: the nodes it scored, raw and normalized scores. */
export interface ScoreCall {
  nodes: string[];
  raw: number[];
  normalized: number[];
}

/** Everything a traced cycle did, in call order. */
export class CycleTrace {
  readonly preFilters: PreFilterCall[] = [];
  /** Nodes in the order the walk reached them (the walk sentinel sees each one first). */
  readonly visits: string[] = [];
  /** Filter calls per node name, in order. */
  readonly filterCalls = new Map<string, FilterCall[]>();
  /** Per score plugin index in the profile: what it scored (absent: never scored). */
  readonly scores = new Map<number, ScoreCall>();
  /** Per filter index: whether its PreFilter Skip held (absent: the cycle never asked). */
  readonly filterSkips = new Map<number, boolean>();
  /** Per score plugin index: whether its PreScore Skip held (absent: never asked). */
  readonly scoreSkips = new Map<number, boolean>();
  /** A copy of the cycle state as the first Filter saw it (PreFilter state only). */
  stateAtFilter: CycleState | undefined;
  /** True while a PostFilter runs: its what-if filter calls are not the walk's. */
  inPostFilter = false;

  /** Records a filter call (not while a PostFilter runs). */
  filter(node: string, call: FilterCall): void {
    if (this.inPostFilter) return;
    const calls = this.filterCalls.get(node);
    if (calls === undefined) this.filterCalls.set(node, [call]);
    else calls.push(call);
  }
}

/** The name of the first filter of a traced profile, which only records the walk. */
export const walkSentinelName = '(walk)';

function tracedPreFilter(inner: PreFilterPlugin, trace: CycleTrace): PreFilterPlugin {
  return {
    name: inner.name,
    preFilter(pod: PodInfo, state: CycleState, snapshot: ClusterSnapshot): PreFilterResult {
      const result = inner.preFilter(pod, state, snapshot);
      trace.preFilters.push({ plugin: inner.name, result });
      return result;
    },
    ...(inner.extensions === undefined ? {} : { extensions: inner.extensions }),
  };
}

function tracedPostFilter(inner: PostFilterPlugin, trace: CycleTrace): PostFilterPlugin {
  return {
    name: inner.name,
    postFilter(pod: PodInfo, args: PostFilterArgs): PostFilterResult {
      trace.inPostFilter = true;
      try {
        return inner.postFilter(pod, args);
      } finally {
        trace.inPostFilter = false;
      }
    },
  };
}

function tracedFilter(inner: FilterPlugin, index: number, trace: CycleTrace): FilterPlugin {
  const traced: FilterPlugin = {
    name: inner.name,
    filter(pod: PodInfo, node: NodeInfo, state: CycleState): Status {
      const s = inner.filter(pod, node, state);
      trace.filter(node.name, { index, status: s });
      return s;
    },
  };
  if (inner.preFilterSkip !== undefined)
    traced.preFilterSkip = (...args: Parameters<NonNullable<FilterPlugin['preFilterSkip']>>) => {
      const skip = inner.preFilterSkip?.(...args) === true;
      trace.filterSkips.set(index, skip);
      return skip;
    };
  return traced;
}

function tracedScore(inner: ScorePlugin, index: number, trace: CycleTrace): ScorePlugin {
  const call = (): ScoreCall => {
    let c = trace.scores.get(index);
    if (c === undefined) {
      c = { nodes: [], raw: [], normalized: [] };
      trace.scores.set(index, c);
    }
    return c;
  };
  const traced: ScorePlugin = {
    name: inner.name,
    score(pod: PodInfo, node: NodeInfo, state: CycleState): number {
      const s = inner.score(pod, node, state);
      const c = call();
      c.nodes.push(node.name);
      c.raw.push(s);
      return s;
    },
    // Always present: the cycle's `normalize?.()` on a plugin without one changes nothing,
    // and the copy taken here is what the cycle goes on to weight.
    normalize(pod: PodInfo, scores: number[], state: CycleState): void {
      inner.normalize?.(pod, scores, state);
      call().normalized = scores.slice();
    },
  };
  if (inner.preScore !== undefined) {
    traced.preScore = (pod, state, snapshot, nodes) =>
      inner.preScore?.(pod, state, snapshot, nodes);
  }
  if (inner.preScoreSkip !== undefined)
    traced.preScoreSkip = (...args: Parameters<NonNullable<ScorePlugin['preScoreSkip']>>) => {
      const skip = inner.preScoreSkip?.(...args) === true;
      trace.scoreSkips.set(index, skip);
      return skip;
    };
  return traced;
}

/**
 * `profile` with every plugin wrapped so that its answers are recorded in `trace` and passed
 * on unchanged, plus a first filter that records each node the walk reaches and passes it.
 * The proof of infeasibility is left out, so a pod that fits nowhere has every node visited
 * (the outcome and cursor are the same either way, by the proof's contract).
 */
export function tracedProfile(profile: Profile, trace: CycleTrace): Profile {
  const sentinel: FilterPlugin = {
    name: walkSentinelName,
    filter(_pod: PodInfo, node: NodeInfo, state: CycleState): Status {
      if (trace.inPostFilter) return success;
      trace.visits.push(node.name);
      trace.stateAtFilter ??= new Map(state);
      return success;
    },
  };
  return {
    preFilter: profile.preFilter.map((p) => tracedPreFilter(p, trace)),
    filter: [sentinel, ...profile.filter.map((f, i) => tracedFilter(f, i, trace))],
    score: profile.score.map(
      (w, i): WeightedScorePlugin => ({
        plugin: tracedScore(w.plugin, i, trace),
        weight: w.weight,
      }),
    ),
    postFilter: (profile.postFilter ?? []).map((p) => tracedPostFilter(p, trace)),
    queueingHints: profile.queueingHints,
  };
}
