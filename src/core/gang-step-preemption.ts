// Gang preemption for one step: anywhere, or, for a topology-constrained group, inside the one domain its trial with every victim gone chooses.
import type { Profile } from '../framework/types.ts';
import type { CoreState } from './core-state.ts';
import { type GangPreemption, type PlanTrial, planGangPreemption } from './gang-preemption.ts';
import { type GangMember, tryGroup } from './gang-step.ts';
import { domainPlugin, pinnedDomain, rankDomains, withPlugin } from './gang-topology.ts';
import { placedNodes, searchDomains } from './gang-topology-step.ts';
import { cycleFor } from './plan-cycle.ts';

/**
 * Plans gang preemption for the step of group `key` whose members `chosen` did not fit:
 * anywhere when `topologyKeys` is empty; else as kube 1.37.2's PodGroupPostFilter does for
 * a group with `schedulingConstraints.topology` — its scheduling function (run once, every
 * lower-priority victim gone cluster-wide) is the placement algorithm, so the domain is the
 * one the group's own step would choose then (`tryGroupInDomain`: the tightest that holds
 * it, pinned to the domain of members already placed), and victims are spared while the
 * group still fits inside that domain. Victims outside it are therefore always spared.
 * Undefined when not planned: members already placed span domains (kube fails the cycle).
 */
export function planStepPreemption(
  core: CoreState,
  key: string,
  chosen: readonly GangMember[],
  topologyKeys: readonly string[],
): GangPreemption | undefined {
  const schedule = (adapt?: (profile: Profile) => Profile) => (pod: GangMember['info']) =>
    cycleFor(core, pod, false, adapt);
  const topologyKey = topologyKeys[0];
  if (topologyKey === undefined) {
    const anywhere = () => tryGroup(core.cluster, chosen, core.now, schedule());
    return planGangPreemption(core, key, chosen, { first: anywhere, again: anywhere });
  }
  const pinned = pinnedDomain(core.cluster, placedNodes(core, key), topologyKey);
  if (typeof pinned === 'object') return undefined;
  let inDomain: ((profile: Profile) => Profile) | undefined;
  const first = (): PlanTrial => {
    const search = searchDomains(core, chosen, topologyKey, pinned, (pod, adapt) =>
      cycleFor(core, pod, false, adapt),
    );
    if (search.kind === 'none')
      return {
        kind: 'blocked',
        fitted: search.closest?.trial.fitted ?? fittedInTightest(core, key, chosen, topologyKey),
      };
    const nodes = core.cluster.topology.get(topologyKey)?.get(search.domain) ?? new Set<string>();
    const plugin = domainPlugin(topologyKey, search.domain, nodes);
    inDomain = (profile) => withPlugin(profile, plugin);
    return { kind: 'placed', placements: search.placements };
  };
  const again = () => tryGroup(core.cluster, chosen, core.now, schedule(inDomain));
  return planGangPreemption(core, key, chosen, { first, again });
}

/**
 * How many placements kube's TopologyPlacementGenerator makes for group `key`: one per value
 * of the first topology key over the nodes (only the domain of members already placed, when
 * there are some). Undefined for a group without a topology key (kube then runs one
 * placement and its messages do not count them).
 */
export function placementCount(
  core: CoreState,
  key: string,
  topologyKeys: readonly string[],
): number | undefined {
  const topologyKey = topologyKeys[0];
  if (topologyKey === undefined) return undefined;
  const domains = core.cluster.topology.get(topologyKey);
  const pinned = pinnedDomain(core.cluster, placedNodes(core, key), topologyKey);
  if (pinned === undefined) return domains?.size ?? 0;
  return typeof pinned === 'string' && domains?.has(pinned) === true ? 1 : 0;
}

/**
 * How many of `chosen` (members of group `key`) fit, one after another, in the tightest
 * domain of `topologyKey` (the pinned one when members are placed), tried even when its
 * summed free capacity is too small: what berth reports where kube names its first
 * placement's status and berth's search tried no domain. 0 when there is none to try.
 */
export function fittedInTightest(
  core: CoreState,
  key: string,
  chosen: readonly GangMember[],
  topologyKey: string,
): number {
  const pinned = pinnedDomain(core.cluster, placedNodes(core, key), topologyKey);
  if (typeof pinned === 'object') return 0;
  const tightest = rankDomains(core.cluster, chosen, topologyKey, pinned)[0];
  if (tightest === undefined) return 0;
  const plugin = domainPlugin(topologyKey, tightest.domain, tightest.nodes);
  const adapt = (profile: Profile) => withPlugin(profile, plugin);
  const trial = tryGroup(core.cluster, chosen, core.now, (pod) =>
    cycleFor(core, pod, false, adapt),
  );
  return trial.kind === 'blocked' ? trial.fitted : chosen.length;
}
