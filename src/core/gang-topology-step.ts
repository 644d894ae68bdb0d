// A gang step's trial as one outcome, with or without a topology constraint: placed, or blocked with the group's message.
import type { PodInfo } from '../cluster/types.ts';
import type { CycleResult } from '../framework/cycle.ts';
import type { Profile } from '../framework/types.ts';
import type { CoreState } from './core-state.ts';
import { searchGroup } from './gang-search.ts';
import {
  blockedMessage,
  type GangMember,
  type GangPlacement,
  type GangTrial,
  tryGroup,
} from './gang-step.ts';
import {
  domainPlugin,
  pinnedDomain,
  type TopologySearch,
  type TopologyTrial,
  tryGroupInDomain,
  withPlugin,
} from './gang-topology.ts';
import { cycleFor } from './plan-cycle.ts';

/** What a gang step's trial decided: every member placed, or the group's reason. */
export type StepOutcome =
  | { kind: 'placed'; placements: GangPlacement[] }
  | {
      kind: 'blocked';
      message: string;
      /** The plugins that rejected the first unplaced member (for its queueing hints). */
      plugins: string[];
      /** Where members fitted: the fairness hold may keep these nodes. */
      placements: GangPlacement[];
      /** True when waiting could help (no plugin error): the group may hold nodes. */
      holdable: boolean;
      /** Members that fitted before the first that did not. */
      fitted: number;
      /** The first unplaced member's own cycle message (`0/N nodes are available: …`). */
      unplacedMessage?: string;
      /** A plugin's Error (`plugin: message`) that stopped the trial, if that is what did. */
      error?: string;
      /** True when a topology-constrained step tried no domain (`fitted` is then 0). */
      untried?: true;
    };

/**
 * What watches a step's trial without changing it (`berth explain group`): `cycle` runs
 * around each member's cycle (`run` is the cycle; `cycle` returns its result), `domain` is
 * told each domain's trial of a topology-constrained group as it ends.
 */
export interface StepWatch {
  cycle(pod: PodInfo, run: () => CycleResult): CycleResult;
  domain(domain: string, trial: GangTrial): void;
}

/** `trial` of group `key` (`placed` members already placed, `minMember` wanted) as an outcome. */
function outcomeOf(
  key: string,
  trial: GangTrial,
  placed: number,
  minMember: number,
  prefix = '',
): StepOutcome {
  if (trial.kind === 'placed') return trial;
  const r = trial.result;
  const why = r.kind === 'Error' ? `${r.plugin}: ${r.message}` : r.message;
  const member = trial.member.info.key;
  const message = blockedMessage(key, placed + trial.fitted, minMember, member, why);
  return {
    kind: 'blocked',
    message:
      prefix === ''
        ? message
        : message.replace(`pod group ${key}: `, `pod group ${key}: ${prefix}`),
    plugins: r.kind === 'Unschedulable' ? [...r.diagnosis.unschedulablePlugins] : [],
    placements: trial.placements,
    holdable: r.kind === 'Unschedulable',
    fitted: trial.fitted,
    ...(r.kind === 'Error' ? { error: why } : { unplacedMessage: why }),
  };
}

/**
 * Tries `chosen` members of group `key` against the current state: anywhere when
 * `topologyKeys` is empty (searching past kube's one pass, `searchGroup`), else all inside
 * one domain of its first key (see `tryGroupInDomain`), pinned to the domain of members
 * already placed. `placed` members are placed already; `minMember` is the group's quorum.
 * The state is left unchanged.
 */
export function tryGroupStep(
  core: CoreState,
  key: string,
  chosen: readonly GangMember[],
  topologyKeys: readonly string[],
  placed: number,
  minMember: number,
  watch?: StepWatch,
): StepOutcome {
  const schedule = (pod: PodInfo, adapt?: (profile: Profile) => Profile) => {
    const run = () => cycleFor(core, pod, false, adapt);
    return watch === undefined ? run() : watch.cycle(pod, run);
  };
  const topologyKey = topologyKeys[0];
  if (topologyKey === undefined) {
    const pass = (order: readonly GangMember[]) =>
      tryGroup(core.cluster, order, core.now, (pod) => schedule(pod));
    const trial = core.config.gangs?.search === true ? searchGroup(chosen, pass) : pass(chosen);
    return outcomeOf(key, trial, placed, minMember);
  }
  const pinned = pinnedDomain(core.cluster, placedNodes(core, key), topologyKey);
  if (typeof pinned === 'object') return notPlaced(`pod group ${key}: ${pinned.conflict}`);
  const onTrial =
    watch === undefined
      ? undefined
      : (domain: string, trial: GangTrial) => watch.domain(domain, trial);
  // Where gang preemption made room for the group, it goes if it fits: no victim in vain.
  const made = pinned === undefined ? preemptedDomain(core, key, chosen, topologyKey) : undefined;
  if (made !== undefined) {
    const there = searchDomains(core, chosen, topologyKey, made, schedule, onTrial);
    if (there.kind === 'placed') return { kind: 'placed', placements: there.placements };
  }
  const search = searchDomains(core, chosen, topologyKey, pinned, schedule, onTrial);
  if (search.kind === 'placed') return { kind: 'placed', placements: search.placements };
  const head = `pod group ${key}: ${search.message}`;
  if (search.closest === undefined) return notPlaced(head);
  const { domain, trial } = search.closest;
  const prefix = `${search.message}; closest ${topologyKey}=${domain}: `;
  return outcomeOf(key, trial, placed, minMember, prefix);
}

/**
 * The domain of `topologyKey` gang preemption nominated every one of `chosen` (members of
 * group `key`) to, or undefined: some member is not nominated, the nominations span domains,
 * or they are the fairness hold's (the group holding now is `key`).
 */
function preemptedDomain(
  core: CoreState,
  key: string,
  chosen: readonly GangMember[],
  topologyKey: string,
): string | undefined {
  if (core.gangs.hold?.key === key) return undefined;
  let domain: string | undefined;
  for (const { info } of chosen) {
    const node = info.nominatedNodeName;
    const value =
      node === undefined ? undefined : core.cluster.nodes.get(node)?.labels[topologyKey];
    if (value === undefined || (domain !== undefined && value !== domain)) return undefined;
    domain = value;
  }
  return domain;
}

/**
 * `tryGroupInDomain` for `chosen` members against the core's state: domains of
 * `topologyKey` (only `pinned` when given), each member's cycle run by `schedule`.
 */
export function searchDomains(
  core: CoreState,
  chosen: readonly GangMember[],
  topologyKey: string,
  pinned: string | undefined,
  schedule: TopologySearch['schedule'],
  onTrial?: TopologySearch['onTrial'],
): TopologyTrial {
  return tryGroupInDomain({
    cluster: core.cluster,
    members: chosen,
    time: core.now,
    key: topologyKey,
    pinned,
    schedule,
    ...(onTrial === undefined ? {} : { onTrial }),
  });
}

/**
 * For a member of group `key` scheduled on its own (beyond minMember, once the group is
 * placed whole): the profile change that keeps its cycle inside the domain of the members
 * already placed, or undefined when the group has no topology constraint. A group whose
 * placed members span domains (or sit on unlabelled nodes) lets no further member in.
 */
export function memberInDomain(
  core: CoreState,
  key: string,
  topologyKeys: readonly string[],
): ((profile: Profile) => Profile) | undefined {
  const topologyKey = topologyKeys[0];
  if (topologyKey === undefined) return undefined;
  const pinned = pinnedDomain(core.cluster, placedNodes(core, key), topologyKey);
  const domain = typeof pinned === 'string' ? pinned : '';
  const nodes = core.cluster.topology.get(topologyKey)?.get(domain) ?? new Set<string>();
  const plugin = domainPlugin(topologyKey, domain, nodes);
  return (profile) => withPlugin(profile, plugin);
}

function notPlaced(message: string): StepOutcome {
  return {
    kind: 'blocked',
    message,
    plugins: ['TopologyDomain'],
    placements: [],
    holdable: false,
    fitted: 0,
    untried: true,
  };
}

/** The nodes of group `key`'s members that are placed (bound or reserved) and not finished. */
export function placedNodes(core: CoreState, key: string): string[] {
  const out: string[] = [];
  for (const uid of core.gangs.memberUids(key)) {
    const record = core.cluster.pods.get(uid);
    if (record === undefined || record.charge.kind === 'none') continue;
    const { phase, terminating } = record.info;
    if (phase === 'Succeeded' || phase === 'Failed' || terminating) continue;
    out.push(record.charge.node);
  }
  return out;
}
