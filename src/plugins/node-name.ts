// NodeName filter: a pod that names a node (spec.nodeName) fits only that node.

import type { NodeInfo, PodInfo } from '../cluster/types.ts';
import { nodeAdded } from '../framework/hints.ts';
import { type FilterPlugin, type Status, status, success } from '../framework/types.ts';

/** Name of the plugin in the registry and in profiles. */
export const name = 'NodeName';

/** kube's ErrReason for NodeName. */
export const ErrReason = "node(s) didn't match the requested node name";

const rejected: Status = Object.freeze(status('UnschedulableAndUnresolvable', name, ErrReason));

/** Passes when the pod names no node (undefined or empty) or names this node. */
export const nodeName = {
  name,
  queueingHint: nodeAdded,
  /** kube's PreFilter Skip: a pod that names no node passes every node. */
  preFilterSkip(pod: PodInfo): boolean {
    return pod.nodeName === undefined || pod.nodeName === '';
  },
  filter(pod: PodInfo, node: NodeInfo): Status {
    const wanted = pod.nodeName;
    if (wanted === undefined || wanted === '' || wanted === node.name) return success;
    return rejected;
  },
} satisfies FilterPlugin;

/** Returns the NodeName plugin (it takes no arguments). */
export function newNodeName(): typeof nodeName {
  return nodeName;
}
