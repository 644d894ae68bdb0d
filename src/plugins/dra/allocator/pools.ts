// Resource pools for one node, gathered from ResourceSlices as kube's GatherPools does.

import type { DraNodeSelector, ResourceSliceInfo } from '../../../model/dra-types.ts';
import { matchesAnyTerm, type NodeLike } from '../../node-selector.ts';
import { applyTaintRules } from './taints.ts';
import type { SliceIndex, TaintRules } from './types.ts';

/** A pool as the search sees it. Devices come from `slices`, in slice-name order. */
export interface Pool {
  readonly driver: string;
  readonly pool: string;
  /** `driver/pool`, as kube prints a PoolID. */
  readonly id: string;
  readonly incomplete: boolean;
  readonly invalid: boolean;
  readonly invalidReason?: string;
  /** Device slices of the newest generation that reach the node, sorted by name. */
  readonly slices: readonly ResourceSliceInfo[];
  /** The pool's other device slices (they only matter for counters). */
  readonly otherSlices: readonly ResourceSliceInfo[];
  /** Shared counter sets: set name → counter name → quantity string. */
  readonly counterSets: ReadonlyMap<string, Readonly<Record<string, { value: string }>>>;
}

const byName = (a: ResourceSliceInfo, b: ResourceSliceInfo) =>
  a.name < b.name ? -1 : a.name > b.name ? 1 : 0;

/**
 * Indexes a snapshot's slices once for many nodes: DeviceTaintRules applied, sorted by name
 * (kube's informer order is arbitrary; only edge cases with inconsistent slice counts depend
 * on it), node-local slices by node name, all others shared.
 */
export function indexSlices(slices: readonly ResourceSliceInfo[], rules: TaintRules): SliceIndex {
  const all = slices.map((s) => applyTaintRules(s, rules)).sort(byName);
  const byNode = new Map<string, ResourceSliceInfo[]>();
  const shared: ResourceSliceInfo[] = [];
  for (const slice of all) {
    if (slice.nodeName) {
      const list = byNode.get(slice.nodeName);
      if (list) list.push(slice);
      else byNode.set(slice.nodeName, [slice]);
    } else shared.push(slice);
  }
  return { byNode, shared, all };
}

/**
 * Each index's pools by node as `gatherPools` found them, kept while no slice is shared
 * (with shared slices a node's labels decide, so they are gathered each time).
 */
const nodePools = new WeakMap<SliceIndex, Map<string, readonly Pool[]>>();

/**
 * kube's NodeMatches: a node name must equal, allNodes matches, a selector's terms are ORed
 * (no terms, or only empty ones, match nothing); with none of them set nothing matches.
 */
export function nodeMatches(
  node: NodeLike,
  nodeName: string | undefined,
  allNodes: boolean | undefined,
  selector: DraNodeSelector | undefined,
): boolean {
  if (nodeName) return node.name === nodeName;
  if (allNodes) return true;
  if (selector) return matchesAnyTerm(selector.nodeSelectorTerms, node);
  return false;
}

function sliceReachesNode(slice: ResourceSliceInfo, node: NodeLike): boolean | undefined {
  if (slice.nodeName || slice.allNodes || slice.nodeSelector) {
    return nodeMatches(node, slice.nodeName, slice.allNodes, slice.nodeSelector);
  }
  if (slice.perDeviceNodeSelection) {
    return slice.devices.some((d) => nodeMatches(node, d.nodeName, d.allNodes, d.nodeSelector));
  }
  return undefined; // some future node selection kube does not know: ignored
}

/** Adds a slice to its pool: an older generation is dropped, a newer one replaces the pool. */
function addSlice(pools: Map<string, ResourceSliceInfo[]>, slice: ResourceSliceInfo): void {
  const id = `${slice.driver}/${slice.pool.name}`;
  const current = pools.get(id);
  const first = current?.[0];
  if (current === undefined || first === undefined) pools.set(id, [slice]);
  else if (slice.pool.generation > first.pool.generation) pools.set(id, [slice]);
  else if (slice.pool.generation === first.pool.generation) current.push(slice);
}

/** All slices of the pool at `generation`, or undefined when a newer generation exists. */
function slicesOfGeneration(
  all: readonly ResourceSliceInfo[],
  driver: string,
  pool: string,
  generation: number,
): ResourceSliceInfo[] | undefined {
  const found: ResourceSliceInfo[] = [];
  for (const s of all) {
    if (s.driver !== driver || s.pool.name !== pool) continue;
    if (s.pool.generation > generation) return undefined;
    if (s.pool.generation === generation) found.push(s);
  }
  return found;
}

function hasBindingConditions(pool: Pool): boolean {
  return pool.slices.some((s) => s.devices.some((d) => (d.bindingConditions?.length ?? 0) > 0));
}

const byId = (a: Pool, b: Pool) =>
  a.driver !== b.driver
    ? a.driver < b.driver
      ? -1
      : 1
    : a.pool < b.pool
      ? -1
      : a.pool > b.pool
        ? 1
        : 0;

/**
 * The pools with devices for the node, sorted by driver then pool name, pools whose devices
 * have binding conditions last. Only a pool's newest generation counts; a pool missing
 * slices is marked incomplete, one with duplicate devices or broken counters invalid.
 */
export function gatherPools(index: SliceIndex, node: NodeLike): readonly Pool[] {
  if (index.shared.length > 0) return poolsOfNode(index, node);
  let byNode = nodePools.get(index);
  if (byNode === undefined) {
    byNode = new Map();
    nodePools.set(index, byNode);
  }
  let pools = byNode.get(node.name);
  if (pools === undefined) {
    pools = poolsOfNode(index, node);
    byNode.set(node.name, pools);
  }
  return pools;
}

function poolsOfNode(index: SliceIndex, node: NodeLike): Pool[] {
  const grouped = new Map<string, ResourceSliceInfo[]>();
  for (const slice of [...(index.byNode.get(node.name) ?? []), ...index.shared]) {
    if (sliceReachesNode(slice, node)) addSlice(grouped, slice);
  }
  const plain: Pool[] = [];
  const withConditions: Pool[] = [];
  for (const slices of grouped.values()) {
    const first = slices[0] as ResourceSliceInfo;
    const { driver } = first;
    const poolName = first.pool.name;
    let pool: Pool;
    if (slices.length === first.pool.resourceSliceCount) {
      pool = buildPool(driver, poolName, slices, undefined);
    } else {
      const all = slicesOfGeneration(index.all, driver, poolName, first.pool.generation);
      if (all === undefined) continue; // being replaced by a generation not reaching the node
      if (all.length !== first.pool.resourceSliceCount) {
        plain.push(emptyPool(driver, poolName, { incomplete: true }));
        continue;
      }
      pool = buildPool(driver, poolName, slices, all);
    }
    (hasBindingConditions(pool) ? withConditions : plain).push(pool);
  }
  return [...plain.sort(byId), ...withConditions.sort(byId)];
}

function emptyPool(
  driver: string,
  pool: string,
  flags: { incomplete?: boolean; invalidReason?: string },
): Pool {
  return {
    driver,
    pool,
    id: `${driver}/${pool}`,
    incomplete: flags.incomplete === true,
    invalid: flags.invalidReason !== undefined,
    ...(flags.invalidReason !== undefined && { invalidReason: flags.invalidReason }),
    slices: [],
    otherSlices: [],
    counterSets: new Map(),
  };
}

function buildPool(
  driver: string,
  pool: string,
  reaching: ResourceSliceInfo[],
  all: readonly ResourceSliceInfo[] | undefined,
): Pool {
  const sorted = [...reaching].sort(byName);
  const deviceSlices: ResourceSliceInfo[] = [];
  const counterSlices: ResourceSliceInfo[] = [];
  const other: ResourceSliceInfo[] = [];
  for (const s of sorted)
    ((s.sharedCounters?.length ?? 0) > 0 ? counterSlices : deviceSlices).push(s);
  const names = new Set(sorted.map((s) => s.name));
  for (const s of all ?? []) {
    if (names.has(s.name)) continue;
    ((s.sharedCounters?.length ?? 0) > 0 ? counterSlices : other).push(s);
  }
  const invalidReason = poolProblem(deviceSlices, counterSlices, other);
  if (typeof invalidReason === 'string') return emptyPool(driver, pool, { invalidReason });
  return {
    driver,
    pool,
    id: `${driver}/${pool}`,
    incomplete: false,
    invalid: false,
    slices: deviceSlices,
    otherSlices: other,
    counterSets: invalidReason,
  };
}

/** kube's pool validation: the first problem found, or the pool's counter sets. */
function poolProblem(
  deviceSlices: readonly ResourceSliceInfo[],
  counterSlices: readonly ResourceSliceInfo[],
  other: readonly ResourceSliceInfo[],
): string | Map<string, Readonly<Record<string, { value: string }>>> {
  const seen = new Set<string>();
  for (const s of deviceSlices) {
    for (const d of s.devices) {
      if (seen.has(d.name)) return `duplicate device name ${d.name}`;
      seen.add(d.name);
    }
  }
  const sets = new Map<string, Readonly<Record<string, { value: string }>>>();
  for (const s of counterSlices) {
    for (const set of s.sharedCounters ?? []) {
      if (sets.has(set.name)) return `duplicate counter set name ${set.name}`;
      sets.set(set.name, set.counters);
    }
  }
  for (const s of [...deviceSlices, ...other]) {
    for (const d of s.devices) {
      for (const use of d.consumesCounters ?? []) {
        const set = sets.get(use.counterSet);
        if (set === undefined) return `counter set ${use.counterSet} not found`;
        for (const name of Object.keys(use.counters)) {
          if (!Object.hasOwn(set, name)) {
            return `counter ${name} not found in counter set ${use.counterSet}`;
          }
        }
      }
    }
  }
  return sets;
}
