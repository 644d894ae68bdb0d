// What-if on the whole cluster state: pods' charges taken off their nodes for a trial, then put back exactly as they were.
import { finishIndexUpdate, reindexNode } from './capacity-index.ts';
import { applyCharge, releaseCharge } from './charges.ts';
import type { Charge, ClusterState, NodeInfo, PodRecord } from './types.ts';

const noCharge: Charge = Object.freeze({ kind: 'none' });

/** A node's pod maps as they were, so that putting pods back keeps their order. */
interface NodeOrder {
  node: NodeInfo;
  pods: [string, unknown][];
  withAffinity: [string, unknown][];
  withAntiAffinity: [string, unknown][];
}

function nodeOf(state: ClusterState, name: string): NodeInfo | undefined {
  return state.nodes.get(name) ?? state.absentNodes.get(name);
}

function refill<V>(into: Map<string, V>, from: readonly [string, unknown][]): void {
  into.clear();
  for (const [k, v] of from) into.set(k, v as V);
}

/**
 * Takes the charges of the pods `uids` off their nodes (each record then shows no charge),
 * as if they were gone, and returns the function that puts them back. Putting back restores
 * every charge and each touched node's pod order exactly, so nothing a later cycle reads
 * (sums, indexes, iteration order) differs from before; only node generations move on, as
 * they do for a gang trial's reservations. Pods without a charge are left alone. Not logged:
 * the caller must put them back before its step ends (use `withoutCharges`).
 */
function takeOff(state: ClusterState, uids: Iterable<string>): () => void {
  const generation = state.generation;
  const taken: { record: PodRecord; uid: string; charge: Charge }[] = [];
  const orders = new Map<string, NodeOrder>();
  for (const uid of uids) {
    const record = state.pods.get(uid);
    if (record === undefined || record.charge.kind === 'none') continue;
    const charge = record.charge;
    const node = nodeOf(state, charge.node);
    if (node !== undefined && !orders.has(node.name))
      orders.set(node.name, {
        node,
        pods: [...node.pods],
        withAffinity: [...node.podsWithAffinity],
        withAntiAffinity: [...node.podsWithRequiredAntiAffinity],
      });
    releaseCharge(state, uid, record.info, charge);
    reindexNode(state, charge.node);
    record.charge = noCharge;
    taken.push({ record, uid, charge });
  }
  finishIndexUpdate(state, generation);
  return () => {
    const before = state.generation;
    for (let i = taken.length - 1; i >= 0; i--) {
      const { record, uid, charge } = taken[i] as (typeof taken)[number];
      record.charge = charge;
      applyCharge(state, uid, record.info, charge);
      if (charge.kind !== 'none') reindexNode(state, charge.node);
    }
    for (const o of orders.values()) {
      const live = nodeOf(state, o.node.name) ?? o.node;
      refill(live.pods, o.pods);
      refill(live.podsWithAffinity, o.withAffinity);
      refill(live.podsWithRequiredAntiAffinity, o.withAntiAffinity);
    }
    finishIndexUpdate(state, before);
  };
}

/**
 * Runs `trial` with the charges of the pods `uids` taken off their nodes, then puts them
 * back exactly (even when `trial` throws). The state must not be changed otherwise in
 * between except by changes `trial` itself undoes (a gang trial's reservations are).
 */
export function withoutCharges<T>(state: ClusterState, uids: Iterable<string>, trial: () => T): T {
  const putBack = takeOff(state, uids);
  try {
    return trial();
  } finally {
    putBack();
  }
}
