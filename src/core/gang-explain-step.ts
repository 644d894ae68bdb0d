import type { CoreState } from './core-state.ts';
import type {
  DomainRow,
  MemberCycle,
  PreemptionExplanation,
  TopologyExplanation,
} from './gang-explain-types.ts';
import type { GangMember, GangTrial } from './gang-step.ts';
import { planStepPreemption } from './gang-step-preemption.ts';
import { type DomainCandidate, pinnedDomain, rankDomains } from './gang-topology.ts';
import { placedNodes, type StepOutcome } from './gang-topology-step.ts';

/** The domains a topology-constrained step ranks, before it runs (the state it sees). */
export interface RankedDomains {
  key: string;
  pinned: string | null;
  conflict: string | null;
  ranked: DomainCandidate[];
}

/**
 * The domains group `key`'s step would rank for `chosen` (as `tryGroupStep` does: pinned
 * to the domain of members already placed), or undefined without a topology key.
 */
export function rankedDomains(
  core: CoreState,
  key: string,
  chosen: readonly GangMember[],
  topologyKeys: readonly string[],
): RankedDomains | undefined {
  const topologyKey = topologyKeys[0];
  if (topologyKey === undefined) return undefined;
  const pinned = pinnedDomain(core.cluster, placedNodes(core, key), topologyKey);
  if (typeof pinned === 'object')
    return { key: topologyKey, pinned: null, conflict: pinned.conflict, ranked: [] };
  return {
    key: topologyKey,
    pinned: pinned ?? null,
    conflict: null,
    ranked: rankDomains(core.cluster, chosen, topologyKey, pinned),
  };
}

/** A domain trial's row. */
function triedRow(c: DomainCandidate, trial: GangTrial, members: number): DomainRow {
  const base = { domain: c.domain, nodes: c.nodes.size, leftover: c.leftover };
  if (trial.kind === 'placed') return { ...base, result: 'placed', fitted: members };
  const r = trial.result;
  return {
    ...base,
    result: 'blocked',
    fitted: trial.fitted,
    blockedPod: trial.member.info.key,
    message: r.kind === 'Error' ? `${r.plugin}: ${r.message}` : r.message,
  };
}

/**
 * The search as it went: every ranked domain with what its trial found (`domains`, in the
 * order tried), short domains skipped, and the domain whose member cycles are shown (the
 * one that held the group, else the one where most members fitted, the first on ties).
 */
export function topologyRows(
  search: RankedDomains,
  domains: ReadonlyMap<string, { cycles: MemberCycle[]; trial: GangTrial }>,
  members: number,
): TopologyExplanation {
  const rows = search.ranked.map((c): DomainRow => {
    const tried = domains.get(c.domain);
    if (tried !== undefined) return triedRow(c, tried.trial, members);
    const base = { domain: c.domain, nodes: c.nodes.size, leftover: c.leftover };
    return c.short === undefined
      ? { ...base, result: 'notReached' }
      : { ...base, result: 'short', short: c.short };
  });
  let shown: string | null = null;
  let best = -1;
  for (const [domain, { trial }] of domains) {
    if (trial.kind === 'placed') {
      shown = domain;
      break;
    }
    if (trial.fitted > best) {
      best = trial.fitted;
      shown = domain;
    }
  }
  return {
    key: search.key,
    pinned: search.pinned,
    conflict: search.conflict,
    domains: rows,
    shown,
  };
}

/**
 * What gang preemption would do after the step's `outcome`, as the step plans it: only for
 * a group whose trial was blocked without a plugin error (a topology-constrained one inside
 * the domain chosen with every victim gone, `planStepPreemption`).
 */
export function preemptionOf(
  core: CoreState,
  key: string,
  chosen: readonly GangMember[],
  outcome: StepOutcome,
  topologyKeys: readonly string[],
): PreemptionExplanation {
  if (outcome.kind === 'placed')
    return { kind: 'notPlanned', why: 'the group fits: nothing to evict' };
  if (outcome.error !== undefined)
    return { kind: 'notPlanned', why: `a plugin error stopped the trial (${outcome.error})` };
  const p = planStepPreemption(core, key, chosen, topologyKeys);
  if (p === undefined)
    return { kind: 'notPlanned', why: 'members already placed span domains of the topology key' };
  if (p.kind === 'refused') return p;
  const nodeOf = (uid: string) => {
    const charge = core.cluster.pods.get(uid)?.charge;
    return charge === undefined || charge.kind === 'none' ? '' : charge.node;
  };
  const victims = p.plan.victims.map((u) => ({
    unit: u.key,
    group: u.group,
    priority: u.priority,
    violatesBudget: u.violatesBudget,
    pods: u.pods.map((pod) => ({ pod: pod.key, node: nodeOf(pod.uid) })),
  }));
  return {
    kind: 'plan',
    victims,
    pods: victims.reduce((n, v) => n + v.pods.length, 0),
    budgetViolations: p.plan.budgetViolations,
    trials: p.plan.trials,
    placements: p.plan.placements.map((m) => ({ pod: m.info.key, node: m.node })),
  };
}
