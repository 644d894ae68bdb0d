// A memo of the pods matching an incoming pod's terms, counted per topology pair, kept current by the charges.
import { type AffinityTerm, matchesAllTerms, matchKey } from './pod-affinity.ts';
import type {
  ClusterSnapshot,
  NodeInfo,
  PodAffinityIndex,
  PodAffinityIndexView,
  PodInfo,
} from './types.ts';

/** How many (terms, topology key) counts an index keeps; the least recently asked goes first. */
export const matchMemoCapacity = 32;

/** The pods on live nodes matching all of `terms`, per value of the node label `topologyKey`. */
interface MatchEntry {
  readonly terms: readonly AffinityTerm[];
  readonly topologyKey: string;
  readonly pairs: Map<string, number>;
  lastAsked: number;
}

interface MatchMemo {
  readonly entries: Map<string, MatchEntry>;
  asked: number;
}

// Beside the index rather than in it: what the memo holds depends on which pods were
// scheduled (not only on the log), and it never changes a result, so it stays out of the
// state that is compared, serialised and restored. A rebuilt index starts without one.
const memos = new WeakMap<object, MatchMemo>();

/** Adds `by` to the count of `value`, dropping the entry when it reaches 0. */
export function adjustPair(pairs: Map<string, number>, value: string, by: number): void {
  const n = (pairs.get(value) ?? 0) + by;
  if (n === 0) pairs.delete(value);
  else pairs.set(value, n);
}

/** After `info` joined (`sign` 1) or left (−1) a live node with `labels`: counts it in every entry. */
export function podMatchCounted(
  index: PodAffinityIndex,
  info: PodInfo,
  labels: Record<string, string>,
  sign: 1 | -1,
): void {
  const memo = memos.get(index);
  if (memo === undefined) return;
  for (const e of memo.entries.values()) {
    if (!Object.hasOwn(labels, e.topologyKey) || !matchesAllTerms(e.terms, info)) continue;
    adjustPair(e.pairs, labels[e.topologyKey] as string, sign);
  }
}

function matchingPods(terms: readonly AffinityTerm[], node: NodeInfo): number {
  let n = 0;
  for (const info of node.pods.values()) if (matchesAllTerms(terms, info)) n++;
  return n;
}

/** After `node` went live (`sign` 1), away or was relabelled: counts its pods under `labels`. */
export function nodeMatchesCounted(
  index: PodAffinityIndex,
  node: NodeInfo,
  labels: Record<string, string>,
  sign: 1 | -1,
): void {
  const memo = memos.get(index);
  if (memo === undefined || node.pods.size === 0) return;
  for (const e of memo.entries.values()) {
    if (!Object.hasOwn(labels, e.topologyKey)) continue;
    const n = matchingPods(e.terms, node);
    if (n > 0) adjustPair(e.pairs, labels[e.topologyKey] as string, sign * n);
  }
}

function entryKey(terms: readonly AffinityTerm[], topologyKey: string): string {
  let key = JSON.stringify(topologyKey);
  for (const t of terms) key += `\n${matchKey(t)}`;
  return key;
}

/** Counts from scratch: every pod of every live node with the key. */
function countEntry(
  snapshot: ClusterSnapshot,
  index: PodAffinityIndexView,
  terms: readonly AffinityTerm[],
  topologyKey: string,
): Map<string, number> {
  const pairs = new Map<string, number>();
  for (const [name, labels] of index.liveLabels) {
    if (!Object.hasOwn(labels, topologyKey)) continue;
    const node = snapshot.nodes.get(name);
    if (node === undefined || node.pods.size === 0) continue;
    const n = matchingPods(terms, node);
    if (n > 0) adjustPair(pairs, labels[topologyKey] as string, n);
  }
  return pairs;
}

function evictOldest(memo: MatchMemo): void {
  let oldest: string | undefined;
  let at = Number.POSITIVE_INFINITY;
  for (const [key, e] of memo.entries) {
    if (e.lastAsked < at) {
      at = e.lastAsked;
      oldest = key;
    }
  }
  if (oldest !== undefined) memo.entries.delete(oldest);
}

/**
 * The pods on live nodes that match all of `terms` (kube's podMatchesAllAffinityTerms,
 * without namespace labels: the incoming pod's terms, namespaceSelectors merged), counted
 * per value of the node label `topologyKey` (nodes without it count nowhere). `index` must
 * be the snapshot's current index. Counted by walking the live pods the first time, then
 * kept by the charges: valid until the state next changes; read, never write.
 */
export function matchingPairs(
  snapshot: ClusterSnapshot,
  index: PodAffinityIndexView,
  terms: readonly AffinityTerm[],
  topologyKey: string,
): ReadonlyMap<string, number> {
  let memo = memos.get(index);
  if (memo === undefined) {
    memo = { entries: new Map(), asked: 0 };
    memos.set(index, memo);
  }
  const key = entryKey(terms, topologyKey);
  let entry = memo.entries.get(key);
  if (entry === undefined) {
    if (memo.entries.size >= matchMemoCapacity) evictOldest(memo);
    entry = {
      terms,
      topologyKey,
      pairs: countEntry(snapshot, index, terms, topologyKey),
      lastAsked: 0,
    };
    memo.entries.set(key, entry);
  }
  entry.lastAsked = ++memo.asked;
  return entry.pairs;
}

/** The memo's entries (terms, key, counts), for the invariant checks. */
export function matchMemoEntries(
  index: PodAffinityIndexView,
): { terms: readonly AffinityTerm[]; topologyKey: string; pairs: ReadonlyMap<string, number> }[] {
  return [...(memos.get(index)?.entries.values() ?? [])];
}
