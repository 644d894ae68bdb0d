// What a node would have free with every pod below a priority evicted, kept per node version.
import { type Amount, addAmounts } from '../../cluster/amount.ts';
import type { NodeInfo } from '../../cluster/types.ts';

/** A node's free resources with every pod below some priority gone (derived, per node version). */
export interface Freeable {
  generation: number;
  priority: number;
  cpu: Amount;
  memory: Amount;
  storage: Amount;
  slots: number;
}

// Derived data only, keyed by the node object: used only while the node's generation (bumped
// on every change, unique for what-if copies) and the priority are those it was made for.
const freeable = new WeakMap<NodeInfo, Freeable>();

/**
 * `node`'s free cpu, memory, storage and pod slots once its pods below `priority` are gone
 * (those a preemptor of that priority may evict). O(1) while the node is unchanged.
 */
export function freeableOf(node: NodeInfo, priority: number): Freeable {
  const hit = freeable.get(node);
  if (hit !== undefined && hit.generation === node.generation && hit.priority === priority)
    return hit;
  let cpu = node.freeMilliCPU;
  let memory = node.freeMemory;
  let storage = node.freeEphemeralStorage;
  let slots = node.freePods;
  for (const other of node.pods.values()) {
    if (other.priority >= priority) continue; // not mayPreempt
    cpu = addAmounts(cpu, other.requests.milliCPU);
    memory = addAmounts(memory, other.requests.memory);
    storage = addAmounts(storage, other.requests.ephemeralStorage);
    slots++;
  }
  const made = { generation: node.generation, priority, cpu, memory, storage, slots };
  freeable.set(node, made);
  return made;
}
