// NodePorts filter: a pod may not go where a pod charged to the node holds a host port it wants.

import type { HostPort, NodeInfo, PodInfo } from '../cluster/types.ts';
import { added, leftNode, onRelease, queueingHint } from '../framework/hints.ts';
import {
  type FilterPlugin,
  type QueueingHint,
  type Status,
  status,
  success,
} from '../framework/types.ts';

/** Name of the plugin in the registry and in profiles. */
export const name = 'NodePorts';

/** kube's ErrReason: some wanted host port is taken on the node. */
export const ErrReason = "node(s) didn't have free ports for the requested pod ports";

/** The host address that stands for every address (kube's DefaultBindAllHostIP). */
export const bindAllHostIP = '0.0.0.0';

// Shared, frozen: the rejection allocates nothing. Unschedulable, as kube: evicting the
// pod that holds the port (preemption) frees it.
const rejected: Status = Object.freeze(status('Unschedulable', name, ErrReason));

function allAddresses(hostIP: string): boolean {
  return hostIP === bindAllHostIP || hostIP === '';
}

/**
 * True when two host ports cannot both be bound on one node (kube's
 * HostPortInfo.CheckConflict): the same port number and protocol (empty meaning TCP) on
 * the same hostIP, or on any hostIPs when either side binds all addresses (`0.0.0.0` or
 * empty). A port ≤ 0 holds nothing and conflicts with nothing.
 */
export function hostPortsConflict(a: HostPort, b: HostPort): boolean {
  if (a.port !== b.port || a.port <= 0) return false;
  if ((a.protocol || 'TCP') !== (b.protocol || 'TCP')) return false;
  return allAddresses(a.hostIP) || allAddresses(b.hostIP) || a.hostIP === b.hostIP;
}

/** True when any of `wanted` conflicts with any of `used`. Allocation-free. */
export function anyHostPortConflict(
  wanted: readonly HostPort[],
  used: readonly HostPort[],
): boolean {
  for (let i = 0; i < used.length; i++) {
    const u = used[i] as HostPort;
    for (let j = 0; j < wanted.length; j++) {
      if (hostPortsConflict(wanted[j] as HostPort, u)) return true;
    }
  }
  return false;
}

/**
 * True when `pod` can bind all its host ports on `node`: no pod charged there (bound,
 * terminating or assumed) holds a conflicting one. Visits each charged pod once and
 * compares ports only for pods that hold any: O(pods + wanted × used ports), no allocation.
 */
export function fitsPorts(pod: PodInfo, node: NodeInfo): boolean {
  const wanted = pod.hostPorts;
  if (wanted.length === 0) return true;
  for (const other of node.pods.values()) {
    const used = other.hostPorts;
    if (used.length !== 0 && anyHostPortConflict(wanted, used)) return false;
  }
  return true;
}

/**
 * kube's NodePorts events with queueing hints on: a node added, or a pod that held host
 * ports stopped holding them on its node (deleted, finished, moved, replaced, removed by
 * a relist). A node update never frees a port. kube also skips a deleted pod whose ports
 * do not conflict with the parked pod's; berth's hints do not see the parked pod, so any
 * released host port requeues (more often than kube, never less). A reservation released
 * (`charge`) names no ports: it requeues.
 */
export const hostPortsReleased: QueueingHint = queueingHint({
  node: (c) => added(c.before, c.after),
  ...onRelease(leftNode((r) => r.info.hostPorts.length > 0, true)),
});

/**
 * Filter: Unschedulable when a host port the pod wants (its sidecar and app containers')
 * conflicts with one held by a pod charged to the node. Skipped for pods that want none
 * (kube's PreFilter Skip).
 */
export const nodePorts = {
  name,
  queueingHint: hostPortsReleased,
  preFilterSkip(pod: PodInfo): boolean {
    return pod.hostPorts.length === 0;
  },
  filter(pod: PodInfo, node: NodeInfo): Status {
    return fitsPorts(pod, node) ? success : rejected;
  },
} satisfies FilterPlugin;

/** Returns the NodePorts plugin (it takes no arguments). */
export function newNodePorts(): typeof nodePorts {
  return nodePorts;
}
