// Filtering a pod on a what-if node: nominated pods counted where they are nominated, pods added or taken off.
import {
  addPodToCopy,
  copyNode,
  copyNodeInto,
  removePodFromCopy,
} from '../cluster/node-what-if.ts';
import type { ClusterSnapshot, NodeInfo, PodInfo } from '../cluster/types.ts';
import type { CycleState, FilterPlugin, PreFilterPlugin, Status } from './types.ts';
import { success } from './types.ts';

/** The PreFilters whose state follows pods added or removed (those with extensions). */
export type ExtendedPreFilters = readonly PreFilterPlugin[];

/**
 * kube's RunFilterPlugins: the filters in profile order, stopping at the first that does
 * not return Success; that status comes back with its plugin name set. `running`, when
 * given, is told the index of the filter running (so that an exception can name it).
 */
export function runFilterPlugins(
  filters: readonly FilterPlugin[],
  pod: PodInfo,
  node: NodeInfo,
  state: CycleState,
  running?: { filterIndex: number },
): Status {
  for (let i = 0; i < filters.length; i++) {
    const f = filters[i] as FilterPlugin;
    if (running !== undefined) running.filterIndex = i;
    const s = f.filter(pod, node, state);
    if (s.code !== 'Success')
      return s.plugin === undefined ? { code: s.code, reasons: s.reasons, plugin: f.name } : s;
  }
  return success;
}

/**
 * A copy of `state` that `addPod` / `removePod` may change without touching `state`
 * (kube's CycleState.Clone()): a new map, each extended PreFilter's entries copied deep.
 */
export function cloneCycleState(preFilters: ExtendedPreFilters, state: CycleState): CycleState {
  // Nothing follows added or removed pods this cycle: nothing will change the state.
  if (!anyTracking(preFilters, state)) return state;
  const copy: CycleState = new Map(state);
  for (const pl of preFilters) pl.extensions?.cloneState(state, copy);
  return copy;
}

/** Puts `added` on the what-if `copy` and tells the extended PreFilters (kube's AddPod). */
export function addPodWhatIf(
  preFilters: ExtendedPreFilters,
  pod: PodInfo,
  state: CycleState,
  added: PodInfo,
  copy: NodeInfo,
): void {
  addPodToCopy(copy, added);
  for (const pl of preFilters) pl.extensions?.addPod(pod, state, added, copy);
}

/** Takes `removed` off the what-if `copy` and tells the extended PreFilters (kube's RemovePod). */
export function removePodWhatIf(
  preFilters: ExtendedPreFilters,
  pod: PodInfo,
  state: CycleState,
  removed: PodInfo,
  copy: NodeInfo,
): void {
  removePodFromCopy(copy, removed);
  for (const pl of preFilters) pl.extensions?.removePod(pod, state, removed, copy);
}

/**
 * The pods nominated to `node` that `pod` must leave room for: those of equal or higher
 * priority, other than `pod` itself (kube's addGENominatedPods), in nomination order.
 */
export function nominatedPodsToHonour(
  pod: PodInfo,
  node: string,
  snapshot: ClusterSnapshot,
): PodInfo[] {
  const nominated = snapshot.nominated.get(node);
  if (nominated === undefined) return [];
  const out: PodInfo[] = [];
  for (const other of nominated.values())
    if (other.uid !== pod.uid && other.priority >= pod.priority) out.push(other);
  return out;
}

let scratch: NodeInfo | undefined;

/**
 * Whether some PreFilter's state follows pods added to or removed from a node in this cycle
 * (kube calls every PreFilter's extensions; those of a skipped PreFilter change nothing).
 */
export function anyTracking(preFilters: readonly PreFilterPlugin[], state: CycleState): boolean {
  for (const pl of preFilters)
    if (pl.extensions !== undefined && pl.extensions.tracks?.(state) !== false) return true;
  return false;
}

/** A live node with the nominated pods it honours added, kept while neither changes. */
interface NominatedCopy {
  generation: number;
  nominated: readonly PodInfo[];
  copy: NodeInfo;
}

// Derived data only, keyed by the live NodeInfo object: an entry is used only while the node's
// generation and the nominated pods (same objects, same order) are those it was made from.
const nominatedCopies = new WeakMap<NodeInfo, NominatedCopy>();

function sameList(a: readonly PodInfo[], b: readonly PodInfo[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** `node` (a live one) with `nominated` added, made once and reused while both hold. */
function nominatedCopy(node: NodeInfo, nominated: readonly PodInfo[]): NodeInfo {
  const hit = nominatedCopies.get(node);
  if (hit !== undefined && hit.generation === node.generation && sameList(hit.nominated, nominated))
    return hit.copy;
  const copy = copyNode(node);
  for (const other of nominated) addPodToCopy(copy, other);
  nominatedCopies.set(node, { generation: node.generation, nominated, copy });
  return copy;
}

/**
 * kube's RunFilterPluginsWithNominatedPods: when pods of equal or higher priority are
 * nominated to `node`, `pod` must pass the filters both with them on the node (so it does
 * not take the room their preemption freed) and without them (so affinity to them is not
 * counted before they are there). Otherwise the filters run once.
 */
export function filterWithNominatedPods(
  filters: readonly FilterPlugin[],
  preFilters: ExtendedPreFilters,
  pod: PodInfo,
  node: NodeInfo,
  state: CycleState,
  snapshot: ClusterSnapshot,
): Status {
  // No pod nominated to the node (the common case): nothing to list.
  if (!snapshot.nominated.has(node.name)) return runFilterPlugins(filters, pod, node, state);
  const nominated = nominatedPodsToHonour(pod, node.name, snapshot);
  if (nominated.length === 0) return runFilterPlugins(filters, pod, node, state);
  if (!anyTracking(preFilters, state)) {
    // No PreFilter state follows added pods: only the node changes. A live node's copy is
    // cached; a what-if node (negative generation) is copied into the scratch.
    let copy: NodeInfo;
    if (node.generation >= 0) copy = nominatedCopy(node, nominated);
    else {
      scratch = scratch === undefined ? copyNode(node) : copyNodeInto(scratch, node);
      copy = scratch;
      for (const other of nominated) addPodToCopy(copy, other);
    }
    const s = runFilterPlugins(filters, pod, copy, state);
    return s.code !== 'Success' ? s : runFilterPlugins(filters, pod, node, state);
  }
  // One scratch copy serves every call (none nests, and filters keep no node they saw).
  scratch = scratch === undefined ? copyNode(node) : copyNodeInto(scratch, node);
  const copy = scratch;
  const withNominated = cloneCycleState(preFilters, state);
  for (const other of nominated) addPodWhatIf(preFilters, pod, withNominated, other, copy);
  const s = runFilterPlugins(filters, pod, copy, withNominated);
  if (s.code !== 'Success') return s;
  return runFilterPlugins(filters, pod, node, state);
}
