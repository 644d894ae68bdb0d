// Topology-aware gang placement: a group's members all inside one domain of a node label, the tightest domain that holds them.
import { amountToFloat } from '../cluster/amount.ts';
import type { ClusterState, NodeInfo, PodInfo } from '../cluster/types.ts';
import type { CycleResult } from '../framework/cycle.ts';
import {
  type FilterPlugin,
  type PreFilterPlugin,
  type Profile,
  type Status,
  status,
  success,
} from '../framework/types.ts';
import { type GangMember, type GangPlacement, type GangTrial, tryGroup } from './gang-step.ts';

type BlockedTrial = Extract<GangTrial, { kind: 'blocked' }>;

/** Name of the per-step plugin that keeps a member inside the domain being tried. */
export const topologyDomainPlugin = 'TopologyDomain';

/** What a topology-constrained step found: placed in one domain, or why no domain held it. */
export type TopologyTrial =
  | { kind: 'placed'; domain: string; placements: GangPlacement[]; tried: number }
  | {
      kind: 'none';
      /** Why no domain held the group, starting `no domain of <key> holds…` or naming the pin. */
      message: string;
      /** The trial that placed the most members (first in search order on ties), if any ran. */
      closest: { domain: string; trial: BlockedTrial } | undefined;
      tried: number;
    };

/** One domain of the topology key: its value, its nodes, and the room left after the group. */
export interface DomainCandidate {
  domain: string;
  nodes: ReadonlySet<string>;
  /**
   * Summed over cpu, memory and each extended resource the members request: (free − requested
   * by the group) / allocatable in the domain. Smaller is tighter; negative: cannot hold it.
   */
  leftover: number;
  /** A resource whose domain-wide free capacity is below the group's request, or undefined. */
  short: string | undefined;
}

/** What one search needs: the state, the members in step order, the key, the pinned domain. */
export interface TopologySearch {
  cluster: ClusterState;
  members: readonly GangMember[];
  time: number;
  /** The node label key; nodes without it are never used. */
  key: string;
  /** The domain members already placed sit in (only that one is tried), if any. */
  pinned: string | undefined;
  /** One cycle for `pod` with the profile extended by `adapt` (the domain's plugin). */
  schedule: (pod: PodInfo, adapt: (profile: Profile) => Profile) => CycleResult;
  /** Told each domain's trial as it ends (`berth explain group`); only reads. */
  onTrial?: (domain: string, trial: GangTrial) => void;
}

/** Sums what `members` request, per resource name (cpu in milli). */
function groupRequests(members: readonly GangMember[]): Map<string, number> {
  const want = new Map<string, number>([
    ['cpu', 0],
    ['memory', 0],
  ]);
  const add = (name: string, v: number) => want.set(name, (want.get(name) ?? 0) + v);
  for (const { info } of members) {
    add('cpu', amountToFloat(info.requests.milliCPU));
    add('memory', amountToFloat(info.requests.memory));
    for (const [name, v] of Object.entries(info.requests.scalar)) add(name, amountToFloat(v));
  }
  return want;
}

function freeOf(node: NodeInfo, name: string): { free: number; total: number } {
  if (name === 'cpu')
    return { free: amountToFloat(node.freeMilliCPU), total: amountToFloat(node.allocMilliCPU) };
  if (name === 'memory')
    return { free: amountToFloat(node.freeMemory), total: amountToFloat(node.allocMemory) };
  const total = amountToFloat(node.allocatable.scalar[name] ?? 0);
  return { free: total - amountToFloat(node.requested.scalar[name] ?? 0), total };
}

/**
 * The domains of label `key` over the live nodes (only `pinned` when given), tightest first:
 * by `leftover` ascending, then by value. The capacity summed over a domain is a necessary
 * condition only (no node is filtered here), so a domain marked `short` cannot hold the
 * group and any other may. O(nodes with the label × resources requested).
 */
export function rankDomains(
  cluster: ClusterState,
  members: readonly GangMember[],
  key: string,
  pinned: string | undefined,
): DomainCandidate[] {
  const want = groupRequests(members);
  const out: DomainCandidate[] = [];
  for (const [domain, nodes] of cluster.topology.get(key) ?? []) {
    if (pinned !== undefined && domain !== pinned) continue;
    let leftover = 0;
    let short: string | undefined;
    for (const [name, need] of want) {
      let free = 0;
      let total = 0;
      for (const nodeName of nodes) {
        const node = cluster.nodes.get(nodeName);
        if (node === undefined) continue;
        const f = freeOf(node, name);
        free += Math.max(0, f.free);
        total += f.total;
      }
      if (free < need && short === undefined) short = name;
      if (total > 0) leftover += (free - need) / total;
    }
    out.push({ domain, nodes, leftover, short });
  }
  return out.sort((a, b) =>
    a.leftover !== b.leftover ? a.leftover - b.leftover : a.domain < b.domain ? -1 : 1,
  );
}

/**
 * The plugin that keeps a cycle inside one domain: its PreFilter narrows the nodes to the
 * domain's, its Filter rejects any other node (a nominated node is tried before the
 * narrowing applies).
 */
export function domainPlugin(
  key: string,
  domain: string,
  nodes: ReadonlySet<string>,
): PreFilterPlugin & FilterPlugin {
  const outside: Status = status(
    'UnschedulableAndUnresolvable',
    topologyDomainPlugin,
    `node(s) outside the pod group's ${key}=${domain} domain`,
  );
  return {
    name: topologyDomainPlugin,
    preFilter: () => ({ ...success, nodeNames: nodes }),
    filter: (_pod, node) => (node.labels[key] === domain ? success : outside),
  };
}

/** `profile` with `plugin` added last to its PreFilters and Filters. */
export function withPlugin(profile: Profile, plugin: PreFilterPlugin & FilterPlugin): Profile {
  return {
    ...profile,
    preFilter: [...profile.preFilter, plugin],
    filter: [...profile.filter, plugin],
  };
}

/**
 * Places all of `members` inside ONE domain of `search.key`: the domains are ranked by
 * `rankDomains` (tightest first, then by value) and tried in that order with the existing
 * gang trial (`tryGroup`, every member's cycle narrowed to the domain); the first domain
 * that holds the whole group wins, which is the tightest that holds it, since a domain's
 * leftover after placing the group does not depend on the nodes chosen. Domains short of
 * capacity are skipped untried. Bound: at most (domains × members) cycles, each over one
 * domain's nodes, plus one pass over the labelled nodes. The state is left unchanged.
 */
export function tryGroupInDomain(search: TopologySearch): TopologyTrial {
  const { cluster, members, time, key, pinned } = search;
  const ranked = rankDomains(cluster, members, key, pinned);
  let closest: { domain: string; trial: BlockedTrial } | undefined;
  let tried = 0;
  for (const candidate of ranked) {
    if (candidate.short !== undefined) continue;
    tried++;
    const plugin = domainPlugin(key, candidate.domain, candidate.nodes);
    const adapt = (profile: Profile) => withPlugin(profile, plugin);
    const trial = tryGroup(cluster, members, time, (pod) => search.schedule(pod, adapt));
    search.onTrial?.(candidate.domain, trial);
    if (trial.kind === 'placed')
      return { kind: 'placed', domain: candidate.domain, placements: trial.placements, tried };
    if (closest === undefined || trial.fitted > closest.trial.fitted)
      closest = { domain: candidate.domain, trial };
  }
  return { kind: 'none', message: noDomainMessage(search, ranked, tried), closest, tried };
}

function noDomainMessage(
  search: TopologySearch,
  ranked: readonly DomainCandidate[],
  tried: number,
): string {
  const { key, pinned, members } = search;
  const n = members.length;
  if (pinned !== undefined) {
    const first = ranked[0];
    if (first === undefined)
      return `members already placed in ${key}=${pinned}, which has no live node now`;
    const why = first.short === undefined ? 'not all fit' : `too little ${first.short}`;
    return `members already placed in ${key}=${pinned}; the ${n} more do not fit there (${why})`;
  }
  if (ranked.length === 0) return `no live node has the topology label ${key}`;
  const short = ranked.length - tried;
  return `no domain of ${key} holds all ${n} members: ${tried} of ${ranked.length} domains tried, ${short} too small by summed free capacity`;
}

/**
 * The domain of `key` the nodes of `placed` members share: undefined when none is placed,
 * `{ conflict }` when they sit on nodes without the label or in different domains.
 */
export function pinnedDomain(
  cluster: ClusterState,
  placedNodes: Iterable<string>,
  key: string,
): string | undefined | { conflict: string } {
  let domain: string | undefined;
  for (const nodeName of placedNodes) {
    const value = cluster.nodes.get(nodeName)?.labels[key];
    if (value === undefined)
      return { conflict: `a member already placed on ${nodeName}, which has no label ${key}` };
    if (domain !== undefined && domain !== value)
      return { conflict: `members already placed in both ${key}=${domain} and ${key}=${value}` };
    domain = value;
  }
  return domain;
}
