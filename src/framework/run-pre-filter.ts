// kube's RunPreFilterPlugins: the PreFilters in order, their rejections and node narrowings.
import type { ClusterSnapshot, NodeInfo, PodInfo } from '../cluster/types.ts';
import type { CycleRecorder } from './cycle-recorder.ts';
import { compareGoStrings } from './explain.ts';
import { type Running, withPlugin } from './running.ts';
import type { CycleState, PreFilterResult, Profile, Status } from './types.ts';
import { success } from './types.ts';

/** What the PreFilters said: a status, and the nodes they narrowed to (with who narrowed). */
export type PreFilterOutcome = PreFilterResult & {
  /** The PreFilters that narrowed the nodes, sorted (kube's pluginsWithNodes). */
  readonly narrowedBy?: readonly string[];
};

/**
 * kube's RunPreFilterPlugins: an UnschedulableAndUnresolvable (or Error) status stops at
 * once; an Unschedulable one is remembered while the others still run. Node sets of
 * narrowing PreFilters are intersected; an empty intersection rejects the pod
 * (UnschedulableAndUnresolvable, "node(s) didn't satisfy plugin X", or "plugin(s) [X Y]
 * simultaneously" for several). Returns the rejecting status or `success` with the
 * narrowing, if any. Each answer goes to `recorder`, when there is one.
 */
export function runPreFilterPlugins(
  profile: Profile,
  pod: PodInfo,
  state: CycleState,
  snapshot: ClusterSnapshot,
  running: Running,
  recorder?: CycleRecorder,
): PreFilterOutcome {
  let rejected: Status | undefined;
  let nodeNames: ReadonlySet<string> | undefined;
  let narrowedBy: string[] | undefined;
  for (const pl of profile.preFilter) {
    running.plugin = pl.name;
    running.filters = undefined;
    const s = pl.preFilter(pod, state, snapshot);
    if (recorder !== undefined) recorder.preFilter(pl.name, s);
    if (s.code === 'Success') {
      if (s.nodeNames === undefined) continue;
      nodeNames = intersect(nodeNames, s.nodeNames);
      narrowedBy = [...(narrowedBy ?? []), pl.name].sort(compareGoStrings);
      if (nodeNames.size > 0) continue;
      const reason =
        narrowedBy.length === 1
          ? `node(s) didn't satisfy plugin ${narrowedBy[0]}`
          : `node(s) didn't satisfy plugin(s) [${narrowedBy.join(' ')}] simultaneously`;
      return { code: 'UnschedulableAndUnresolvable', reasons: [reason], narrowedBy };
    }
    if (s.code === 'Unschedulable') {
      rejected ??= withPlugin(s, pl.name);
      continue;
    }
    return withPlugin(s, pl.name);
  }
  if (rejected !== undefined) return rejected;
  return nodeNames === undefined ? success : { ...success, nodeNames, narrowedBy };
}

function intersect(
  a: ReadonlySet<string> | undefined,
  b: ReadonlySet<string>,
): ReadonlySet<string> {
  if (a === undefined) return b;
  const out = new Set<string>();
  for (const n of a) if (b.has(n)) out.add(n);
  return out;
}

/** The nodes a PreFilter narrowed to, in the snapshot's stable order. */
export function narrowedNodes(snapshot: ClusterSnapshot, names: ReadonlySet<string>): NodeInfo[] {
  const picked: { at: number; node: NodeInfo }[] = [];
  for (const name of names) {
    const at = snapshot.nodeIndex.get(name);
    const node = snapshot.nodes.get(name);
    if (at !== undefined && node !== undefined) picked.push({ at, node });
  }
  return picked.sort((x, y) => x.at - y.at).map((p) => p.node);
}
