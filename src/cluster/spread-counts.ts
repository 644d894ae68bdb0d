// Matching-pod counts per node for spreading selectors, kept by the charges as pods come and go.
import { type PodLabelSelector, selectorIsEmpty, selectorMatches } from './spread-constraints.ts';
import type { ClusterSnapshot, ClusterState, NodeInfo, PodInfo } from './types.ts';

/**
 * One (namespace, selector) query: per node name (live or absent), how many pods charged
 * there are counted for it (kube's countPodsMatchSelector); nodes with none are left out.
 */
interface SpreadCountEntry {
  readonly selector: PodLabelSelector;
  readonly perNode: Map<string, number>;
  /** False once the index dropped the entry: its counts no longer follow the charges. */
  kept: boolean;
}

/** What a reader holds: counts by node name, current while `kept` holds. */
export type SpreadCounts = Readonly<Pick<SpreadCountEntry, 'perNode' | 'kept'>> & {
  readonly perNode: ReadonlyMap<string, number>;
};

/** The entries of one state, by namespace then selector key, and the generation they reflect. */
interface SpreadCountIndex {
  generation: number;
  /** Namespace → selector key → entry; within a namespace, least recently used first. */
  readonly byNamespace: Map<string, Map<string, SpreadCountEntry>>;
  size: number;
}

/** How many (namespace, selector) entries a state keeps; the least recently used goes first. */
export const maxSpreadCountEntries = 64;

// Derived data only, keyed by the state object: built on a first query, kept by the charges
// (`noteSpreadCharge`), advanced by every generation bump, rebuilt when found stale.
const indexes = new WeakMap<ClusterState, SpreadCountIndex>();

/** Whether `countMatchingPods` would count `p` for (namespace, sel): the sel is neither empty nor Nothing. */
function counted(sel: PodLabelSelector, namespace: string, p: PodInfo): boolean {
  return !p.terminating && p.namespace === namespace && selectorMatches(sel, p.labels);
}

/** A selector's content as a key (selectors are rebuilt per cycle for default constraints). */
const keys = new WeakMap<PodLabelSelector, string>();
function selectorKey(sel: PodLabelSelector): string {
  let key = keys.get(sel);
  if (key === undefined) {
    key = JSON.stringify(sel.requirements);
    keys.set(sel, key);
  }
  return key;
}

function countNode(entry: SpreadCountEntry, namespace: string, node: NodeInfo): void {
  let n = 0;
  for (const p of node.pods.values()) if (counted(entry.selector, namespace, p)) n++;
  if (n > 0) entry.perNode.set(node.name, (entry.perNode.get(node.name) ?? 0) + n);
}

function buildEntry(state: ClusterState, namespace: string, sel: PodLabelSelector) {
  const entry: SpreadCountEntry = { selector: sel, perNode: new Map(), kept: true };
  for (const node of state.nodes.values()) countNode(entry, namespace, node);
  for (const node of state.absentNodes.values()) countNode(entry, namespace, node);
  return entry;
}

/** The state behind `snapshot` when it is one the charges keep (a reducer's), else undefined. */
function stateOf(snapshot: ClusterSnapshot): ClusterState | undefined {
  const s = snapshot as Partial<ClusterState>;
  if (typeof s.generation !== 'number' || !(s.absentNodes instanceof Map)) return undefined;
  return snapshot as ClusterState;
}

function currentIndex(state: ClusterState): SpreadCountIndex {
  let index = indexes.get(state);
  if (index === undefined || index.generation !== state.generation) {
    if (index !== undefined) dropIndex(state, index);
    index = { generation: state.generation, byNamespace: new Map(), size: 0 };
    indexes.set(state, index);
  }
  return index;
}

function dropIndex(state: ClusterState, index: SpreadCountIndex): void {
  for (const entries of index.byNamespace.values())
    for (const entry of entries.values()) entry.kept = false;
  indexes.delete(state);
}

function evictOldest(index: SpreadCountIndex): void {
  for (const [ns, entries] of index.byNamespace) {
    const oldest = entries.keys().next();
    if (oldest.done === true) continue;
    (entries.get(oldest.value) as SpreadCountEntry).kept = false;
    entries.delete(oldest.value);
    if (entries.size === 0) index.byNamespace.delete(ns);
    index.size--;
    return;
  }
}

/**
 * Per node name, the pods charged there in `namespace`, not terminating, that `sel`
 * matches (nodes with none absent; absent nodes included: check liveness). The counts
 * follow later charges while `kept` holds. Undefined for
 * an empty or Nothing selector (kube counts no pod) or a snapshot the charges do not keep
 * (a hand-built one): then count the nodes' pods. O(1) when cached, else O(pods).
 */
export function spreadCountsOf(
  snapshot: ClusterSnapshot,
  namespace: string,
  sel: PodLabelSelector,
): SpreadCounts | undefined {
  if (sel.nothing || selectorIsEmpty(sel)) return undefined;
  const state = stateOf(snapshot);
  if (state === undefined) return undefined;
  const index = currentIndex(state);
  let entries = index.byNamespace.get(namespace);
  if (entries === undefined) {
    entries = new Map();
    index.byNamespace.set(namespace, entries);
  }
  const key = selectorKey(sel);
  let entry = entries.get(key);
  if (entry === undefined) {
    if (index.size >= maxSpreadCountEntries) evictOldest(index);
    entry = buildEntry(state, namespace, sel);
    index.size++;
  } else entries.delete(key); // re-inserted below: most recently used last
  entries.set(key, entry);
  return entry;
}

/**
 * After the charges put `pod` on (`delta` 1) or took it off (−1) the node named `node` and
 * bumped the generation: the counts follow. A stale index is dropped, to be rebuilt.
 */
export function noteSpreadCharge(
  state: ClusterState,
  node: string,
  pod: PodInfo,
  delta: 1 | -1,
): void {
  const index = indexes.get(state);
  if (index === undefined) return;
  if (index.generation !== state.generation) {
    dropIndex(state, index);
    return;
  }
  const entries = index.byNamespace.get(pod.namespace);
  if (entries === undefined || pod.terminating) return;
  for (const entry of entries.values()) {
    if (!selectorMatches(entry.selector, pod.labels)) continue;
    const n = (entry.perNode.get(node) ?? 0) + delta;
    if (n > 0) entry.perNode.set(node, n);
    else entry.perNode.delete(node);
  }
}

/** After a generation bump from `before` that changed no charge: a current index stays current. */
export function noteSpreadGeneration(state: ClusterState, before: number): void {
  const index = indexes.get(state);
  if (index !== undefined && index.generation === before) index.generation = state.generation;
}
