// The capacity index: free pods, cpu, memory and ephemeral storage of the live nodes, sorted,
// kept by the reducer, so a cycle can count the nodes short of a request without visiting them.
import type { Amount } from './amount.ts';
import { SortedNumbers } from './sorted-numbers.ts';
import type { ClusterSnapshot, ClusterState, NodeInfo } from './types.ts';

/** The resources the index keeps sorted, by their inline `NodeInfo` headroom field. */
export type IndexedResource = 'freePods' | 'freeMilliCPU' | 'freeMemory' | 'freeEphemeralStorage';

const indexedResources: readonly IndexedResource[] = [
  'freePods',
  'freeMilliCPU',
  'freeMemory',
  'freeEphemeralStorage',
];

/** Allocatable cpu, memory and ephemeral storage shared by `count` open nodes. */
export interface AllocatableShape {
  readonly milliCPU: number;
  readonly memory: number;
  readonly ephemeralStorage: number;
  readonly count: number;
}

/**
 * What a cycle may read. Live nodes are split in two: *guarded* nodes (cordoned, carrying
 * a NoSchedule or NoExecute taint, invalid, with a headroom that is not a number or
 * exceeds allocatable, or with an amount beyond 2^53),
 * which filters must still visit one by one, and *open* nodes, which pass NodeUnschedulable
 * and TaintToleration for every pod and are known here only by their numbers.
 */
export interface CapacityIndexView {
  /** Guarded live nodes by name. */
  readonly guarded: ReadonlyMap<string, NodeInfo>;
  /** How many open nodes there are. */
  readonly openCount: number;
  /** How many open nodes have `node[resource] < x`. */
  countOpenBelow(resource: IndexedResource, x: Amount): number;
  /** The allocatable shapes of the open nodes. */
  shapes(): Iterable<AllocatableShape>;
}

interface Entry {
  node: NodeInfo;
  guarded: boolean;
  /** The values as they were put in (open nodes only), in `indexedResources` order. */
  pods: number;
  milliCPU: number;
  memory: number;
  ephemeralStorage: number;
  shapeKey: string;
}

/**
 * Whether the index keeps `node` guarded (filters must visit it) rather than open: cordoned,
 * invalid, a NoSchedule or NoExecute taint, a headroom not a number or above allocatable, or
 * a free or allocatable amount beyond 2^53 (a bigint: the index sorts plain numbers).
 */
export function isGuardedNode(node: NodeInfo): boolean {
  if (node.unschedulable || node.invalid !== undefined) return true;
  for (const r of indexedResources) if (Number.isNaN(node[r])) return true;
  // Amounts beyond 2^53 are bigints (see Amount): the sorted lists hold plain numbers only.
  if (
    typeof node.freeMilliCPU === 'bigint' ||
    typeof node.freeMemory === 'bigint' ||
    typeof node.freeEphemeralStorage === 'bigint' ||
    typeof node.allocMilliCPU === 'bigint' ||
    typeof node.allocMemory === 'bigint' ||
    typeof node.allocatable.ephemeralStorage === 'bigint'
  ) {
    return true;
  }
  // Open nodes never have more free than allocatable, so a request beyond allocatable is
  // also beyond what is free.
  if (
    !(node.freeMilliCPU <= node.allocMilliCPU) ||
    !(node.freeMemory <= node.allocMemory) ||
    !(node.freeEphemeralStorage <= node.allocatable.ephemeralStorage)
  ) {
    return true;
  }
  const taints = node.taints;
  for (let i = 0; i < taints.length; i++) {
    const effect = taints[i]?.effect;
    if (effect === 'NoSchedule' || effect === 'NoExecute') return true;
  }
  return false;
}

/** An amount of an open node: never a bigint there (`isGuardedNode` guards those). */
function openAmount(a: Amount): number {
  return a as number;
}

function shapeKeyOf(node: NodeInfo): string {
  return `${node.allocMilliCPU}/${node.allocMemory}/${node.allocatable.ephemeralStorage}`;
}

/** Whether `node`'s allocatable is still the shape `shape` was built from. */
function sameShape(shape: AllocatableShape | undefined, node: NodeInfo): boolean {
  return (
    shape !== undefined &&
    shape.milliCPU === node.allocMilliCPU &&
    shape.memory === node.allocMemory &&
    shape.ephemeralStorage === node.allocatable.ephemeralStorage
  );
}

class CapacityIndex implements CapacityIndexView {
  /** The state generation this index reflects, once `pending` nodes are brought up to date. */
  generation = 0;
  /** Nodes the reducer changed since the index was last read (updated when it is next read). */
  readonly pending = new Set<string>();
  readonly guarded = new Map<string, NodeInfo>();
  private readonly entries = new Map<string, Entry>();
  private readonly sorted = indexedResources.map(() => new SortedNumbers());
  private readonly shapeCounts = new Map<string, { shape: AllocatableShape; count: number }>();

  get size(): number {
    return this.entries.size;
  }

  get openCount(): number {
    return (this.sorted[0] as SortedNumbers).size;
  }

  countOpenBelow(resource: IndexedResource, x: Amount): number {
    // Open nodes hold numbers only, all within ±2^53: a bigint lies beyond every one of them.
    if (typeof x === 'bigint') return x > 0n ? this.openCount : 0;
    return (this.sorted[indexedResources.indexOf(resource)] as SortedNumbers).countBelow(x);
  }

  *shapes(): Iterable<AllocatableShape> {
    for (const { shape, count } of this.shapeCounts.values()) yield { ...shape, count };
  }

  /** Brings the entry of live node `node` up to date (adds it if new). */
  update(node: NodeInfo): void {
    const entry = this.entries.get(node.name);
    const guarded = isGuardedNode(node);
    if (entry !== undefined && !entry.guarded && !guarded && entry.node === node) {
      const [pods, cpu, memory, storage] = this.sorted as [
        SortedNumbers,
        SortedNumbers,
        SortedNumbers,
        SortedNumbers,
      ];
      if (node.freePods !== entry.pods) {
        pods.replace(entry.pods, node.freePods);
        entry.pods = node.freePods;
      }
      const freeCPU = openAmount(node.freeMilliCPU);
      if (freeCPU !== entry.milliCPU) {
        cpu.replace(entry.milliCPU, freeCPU);
        entry.milliCPU = freeCPU;
      }
      const freeMemory = openAmount(node.freeMemory);
      if (freeMemory !== entry.memory) {
        memory.replace(entry.memory, freeMemory);
        entry.memory = freeMemory;
      }
      const freeStorage = openAmount(node.freeEphemeralStorage);
      if (freeStorage !== entry.ephemeralStorage) {
        storage.replace(entry.ephemeralStorage, freeStorage);
        entry.ephemeralStorage = freeStorage;
      }
      if (!sameShape(this.shapeCounts.get(entry.shapeKey)?.shape, node)) {
        this.unshape(entry.shapeKey);
        entry.shapeKey = shapeKeyOf(node);
        this.shape(entry.shapeKey, node);
      }
      return;
    }
    if (entry !== undefined) this.remove(node.name);
    const fresh: Entry = {
      node,
      guarded,
      pods: node.freePods,
      milliCPU: openAmount(node.freeMilliCPU),
      memory: openAmount(node.freeMemory),
      ephemeralStorage: openAmount(node.freeEphemeralStorage),
      shapeKey: '',
    };
    this.entries.set(node.name, fresh);
    if (guarded) {
      this.guarded.set(node.name, node);
      return;
    }
    const values = [fresh.pods, fresh.milliCPU, fresh.memory, fresh.ephemeralStorage];
    for (let i = 0; i < values.length; i++) {
      (this.sorted[i] as SortedNumbers).insert(values[i] as number);
    }
    fresh.shapeKey = shapeKeyOf(node);
    this.shape(fresh.shapeKey, node);
  }

  /** Brings the pending nodes up to date from `nodes`, the live nodes. */
  catchUp(nodes: ReadonlyMap<string, NodeInfo>): void {
    for (const name of this.pending) {
      const node = nodes.get(name);
      if (node === undefined) this.remove(name);
      else this.update(node);
    }
    this.pending.clear();
  }

  /** Drops node `name` from the index. */
  remove(name: string): void {
    const entry = this.entries.get(name);
    if (entry === undefined) return;
    this.entries.delete(name);
    if (entry.guarded) {
      this.guarded.delete(name);
      return;
    }
    const values = [entry.pods, entry.milliCPU, entry.memory, entry.ephemeralStorage];
    for (let i = 0; i < values.length; i++) {
      (this.sorted[i] as SortedNumbers).remove(values[i] as number);
    }
    this.unshape(entry.shapeKey);
  }

  private shape(key: string, node: NodeInfo): void {
    const held = this.shapeCounts.get(key);
    if (held !== undefined) {
      held.count++;
      return;
    }
    const shape = {
      milliCPU: openAmount(node.allocMilliCPU),
      memory: openAmount(node.allocMemory),
      ephemeralStorage: openAmount(node.allocatable.ephemeralStorage),
      count: 0,
    };
    this.shapeCounts.set(key, { shape, count: 1 });
  }

  private unshape(key: string): void {
    const held = this.shapeCounts.get(key);
    if (held === undefined) return;
    if (--held.count === 0) this.shapeCounts.delete(key);
  }
}

// One index per state, beside it rather than in it: the state's shape (compared, serialised
// and restored by others) stays as it is, and a state restored or built elsewhere simply has
// no index until the reducer rebuilds one.
const indexes = new WeakMap<object, CapacityIndex>();
// The reducer touches the same state many times in a row: remember the last lookup.
let lastState: object | undefined;
let lastIndex: CapacityIndex | undefined;

function indexOf(state: object): CapacityIndex | undefined {
  if (state === lastState) return lastIndex;
  const index = indexes.get(state);
  lastState = state;
  lastIndex = index;
  return index;
}

/** Rebuilds the capacity index of `state` from its live nodes. */
export function rebuildCapacityIndex(state: ClusterState): void {
  const index = new CapacityIndex();
  for (const node of state.nodeOrder) index.update(node);
  index.generation = state.generation;
  indexes.set(state, index);
  if (lastState === state) lastIndex = index;
}

/**
 * Notes that the reducer changed (or removed) node `name`: its entry is brought up to date
 * when the index is next read, so a node changed several times between two cycles, or a
 * log folded without cycles (replay), costs one update or none.
 */
export function reindexNode(state: ClusterState, name: string): void {
  indexOf(state)?.pending.add(name);
}

/**
 * Ends one reducer step that began at state generation `before`: marks the index current,
 * or rebuilds it when it was not current when the step began (first use, or a state
 * restored or changed outside the reducer).
 */
export function finishIndexUpdate(state: ClusterState, before: number): void {
  const index = indexOf(state);
  if (index === undefined || index.generation !== before) {
    rebuildCapacityIndex(state);
    return;
  }
  index.generation = state.generation;
}

/**
 * The capacity index of `snapshot` when it is current (it reflects the snapshot's
 * generation and holds every live node), else undefined: callers then visit every node.
 */
export function capacityIndexOf(snapshot: ClusterSnapshot): CapacityIndexView | undefined {
  const index = indexOf(snapshot);
  if (index === undefined) return undefined;
  const generation = (snapshot as Partial<Pick<ClusterState, 'generation'>>).generation;
  if (index.generation !== generation) return undefined;
  index.catchUp(snapshot.nodes);
  return index.size === snapshot.nodes.size ? index : undefined;
}
