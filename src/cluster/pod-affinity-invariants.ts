// Consistency checks of the pod affinity lists, index and memo: recomputed from the nodes and their pods, compared.
import {
  type AffinityTerm,
  hasPodAffinityTerms,
  matchesAllTerms,
  termKey,
  type WeightedAffinityTerm,
} from './pod-affinity.ts';
import { type PodAffinityIndex, termKinds } from './pod-affinity-index.ts';
import { matchMemoEntries } from './pod-affinity-matches.ts';
import type { ClusterState, NodeInfo } from './types.ts';

const sorted = (m: ReadonlyMap<string, number>) =>
  JSON.stringify([...m].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)));

/** A term's content, spelled out field by field (independent of `termKey`). */
const content = (t: AffinityTerm) =>
  JSON.stringify({
    namespaces: t.namespaces,
    namespaceSelector: {
      nothing: t.namespaceSelector.nothing,
      r: t.namespaceSelector.requirements,
    },
    selector: { nothing: t.selector.nothing, r: t.selector.requirements },
    topologyKey: t.topologyKey,
    weight: (t as Partial<WeightedAffinityTerm>).weight,
  });

function sameLabels(a: Record<string, string>, b: Record<string, string>): boolean {
  const ak = Object.keys(a);
  return (
    ak.length === Object.keys(b).length && ak.every((k) => Object.hasOwn(b, k) && a[k] === b[k])
  );
}

/** Each node's `podsWithAffinity` / `podsWithRequiredAntiAffinity` are exactly its pods with such terms. */
function checkNodeLists(node: NodeInfo, where: string, out: string[]): void {
  let withTerms = 0;
  let withAnti = 0;
  for (const [uid, info] of node.pods) {
    if (!hasPodAffinityTerms(info.podAffinity)) continue;
    withTerms++;
    if (node.podsWithAffinity.get(uid) !== info)
      out.push(`${where} ${node.name}: pod ${uid} with affinity terms is not in podsWithAffinity`);
    if (info.podAffinity.requiredAntiAffinityTerms.length === 0) continue;
    withAnti++;
    if (node.podsWithRequiredAntiAffinity.get(uid) !== info)
      out.push(`${where} ${node.name}: pod ${uid} is not in podsWithRequiredAntiAffinity`);
  }
  if (node.podsWithAffinity.size !== withTerms)
    out.push(`${where} ${node.name}: podsWithAffinity holds pods without terms or not charged`);
  if (node.podsWithRequiredAntiAffinity.size !== withAnti)
    out.push(`${where} ${node.name}: podsWithRequiredAntiAffinity holds stale pods`);
}

function checkListed(state: ClusterState, index: PodAffinityIndex, out: string[]): void {
  const all = [...state.nodes.values(), ...state.absentNodes.values()];
  for (const [which, field] of [
    ['withAffinity', 'podsWithAffinity'],
    ['withRequiredAntiAffinity', 'podsWithRequiredAntiAffinity'],
  ] as const) {
    const listed = index[which];
    const want = all.filter((n) => n[field].size > 0);
    for (const node of want)
      if (listed.get(node.name) !== node)
        out.push(`pod affinity index ${which} lacks ${node.name}`);
    if (listed.size !== want.length) out.push(`pod affinity index ${which} holds stale nodes`);
  }
}

interface Expected {
  members: number;
  pairs: Map<string, number>;
  content: string;
}

/** The groups and the memo, counted again from every pod of every live node. */
function checkCounts(state: ClusterState, index: PodAffinityIndex, out: string[]): void {
  for (const kind of termKinds) {
    const want = new Map<string, Expected>();
    for (const node of state.nodes.values()) {
      for (const info of node.pods.values()) {
        for (const t of info.podAffinity[kind] as readonly AffinityTerm[]) {
          const key = termKey(t);
          const e = want.get(key) ?? { members: 0, pairs: new Map(), content: content(t) };
          want.set(key, e);
          e.members++;
          if (e.content !== content(t)) out.push(`terms of different content share key ${key}`);
          const v = node.labels[t.topologyKey];
          if (Object.hasOwn(node.labels, t.topologyKey) && v !== undefined)
            e.pairs.set(v, (e.pairs.get(v) ?? 0) + 1);
        }
      }
    }
    const groups = index.groups[kind];
    if (groups.size !== want.size) out.push(`${kind} groups: ${groups.size}, want ${want.size}`);
    for (const [key, e] of want) {
      const g = groups.get(key);
      if (g === undefined) out.push(`${kind} group ${key} is missing`);
      else if (
        g.members !== e.members ||
        sorted(g.pairs) !== sorted(e.pairs) ||
        content(g.term) !== e.content ||
        g.weight !== ((g.term as Partial<WeightedAffinityTerm>).weight ?? 1)
      )
        out.push(
          `${kind} group ${key} counts ${g.members} ${sorted(g.pairs)}, want ${e.members} ${sorted(e.pairs)}`,
        );
    }
  }
  for (const e of matchMemoEntries(index)) {
    const pairs = new Map<string, number>();
    for (const node of state.nodes.values()) {
      const v = node.labels[e.topologyKey];
      if (!Object.hasOwn(node.labels, e.topologyKey) || v === undefined) continue;
      for (const info of node.pods.values())
        if (matchesAllTerms(e.terms, info)) pairs.set(v, (pairs.get(v) ?? 0) + 1);
    }
    if (sorted(pairs) !== sorted(e.pairs))
      out.push(`match memo for ${e.topologyKey} counts ${sorted(e.pairs)}, want ${sorted(pairs)}`);
  }
}

/**
 * The nodes' pod affinity lists hold exactly their pods with terms; when the state keeps a
 * pod affinity index, it is current, lists exactly the nodes (live or absent) with such
 * pods, knows every live node under its present labels, and its term groups and match memo
 * agree with counts made again from every pod of every live node.
 */
export function checkPodAffinity(state: ClusterState, out: string[]): void {
  for (const node of state.nodes.values()) checkNodeLists(node, 'node', out);
  for (const node of state.absentNodes.values()) checkNodeLists(node, 'absent node', out);
  const index = state.podAffinityIndex;
  if (index === undefined) return;
  if (index.generation !== state.generation)
    out.push(`pod affinity index is at generation ${index.generation}, not ${state.generation}`);
  checkListed(state, index, out);
  if (index.liveLabels.size !== state.nodes.size)
    out.push('pod affinity index liveLabels differ from the live nodes');
  for (const node of state.nodes.values()) {
    const seen = index.liveLabels.get(node.name);
    if (seen === undefined || !sameLabels(seen, node.labels))
      out.push(`pod affinity index counts ${node.name} under other labels`);
  }
  checkCounts(state, index, out);
}
