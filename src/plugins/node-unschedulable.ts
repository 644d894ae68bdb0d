// NodeUnschedulable filter: keeps pods off cordoned nodes (spec.unschedulable) unless tolerated.

import type { NodeInfo, PodInfo } from '../cluster/types.ts';
import { nodeCordonChanged } from '../framework/hints.ts';
import { type FilterPlugin, type Status, status, success } from '../framework/types.ts';
import type { Taint } from '../model/objects.ts';
import { tolerationsTolerateTaint } from './taint-toleration.ts';

/** Name of the plugin in the registry and in profiles. */
export const name = 'NodeUnschedulable';

/** kube's ErrReasonUnschedulable. */
export const ErrReasonUnschedulable = 'node(s) were unschedulable';

/** The taint kube checks for: a pod tolerating it also tolerates `spec.unschedulable`. */
export const unschedulableTaint: Taint = Object.freeze({
  key: 'node.kubernetes.io/unschedulable',
  effect: 'NoSchedule',
});

// Shared, frozen: the common rejection allocates nothing.
const rejected: Status = Object.freeze(
  status('UnschedulableAndUnresolvable', name, ErrReasonUnschedulable),
);

/**
 * Rejects an unschedulable node unless the pod tolerates the taint
 * `node.kubernetes.io/unschedulable:NoSchedule` (kube's rule).
 */
export const nodeUnschedulable = {
  name,
  queueingHint: nodeCordonChanged,
  passesUntaintedNodes: true,
  filter(pod: PodInfo, node: NodeInfo): Status {
    if (!node.unschedulable) return success;
    if (tolerationsTolerateTaint(pod.tolerations, unschedulableTaint)) return success;
    return rejected;
  },
} satisfies FilterPlugin;

/** Returns the NodeUnschedulable plugin (it takes no arguments). */
export function newNodeUnschedulable(): typeof nodeUnschedulable {
  return nodeUnschedulable;
}
