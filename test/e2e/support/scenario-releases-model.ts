// The release scenarios' vocabulary: releases, what a release must do with a pod, the API writes before scheduling, and pod builders.
import { podTemplate } from './scenario-basics.ts';
import type { NodeObj, PodObj, TaintObj } from './scenario-model.ts';

/** A Kubernetes minor whose kube-scheduler is an oracle here (1.34.10: what berth matched before). */
export type OracleRelease = '1.34' | '1.35' | '1.36' | '1.37';

/** Whether `release` is `since` or later (both `1.N`). */
export function atLeast(release: OracleRelease, since: OracleRelease): boolean {
  return Number(release.split('.')[1]) >= Number(since.split('.')[1]);
}

/** What kube-scheduler of one release must do with one pending pod of a scenario. */
export interface ReleaseExpectation {
  /** The nodes it fits on (empty: none, it stays pending). */
  feasible: string[];
  /** The node it must go to, when only one can fit or win. */
  node?: string;
  /** The filters' sentence of its PodScheduled=False message ("0/N nodes are available: … ."). */
  filters?: string;
  /** The first PodScheduled=False message a scheduler writes for it, in full. */
  firstMessage?: string;
  /** Its `status.nominatedNodeName` once settled ('' for none). */
  nominated?: string;
}

/** An API write made after the pods exist and before any scheduler runs. */
export type PrepareStep =
  /** Another component (a cluster autoscaler, Kueue) nominates a pending pod. */
  | { kind: 'nominate'; pod: string; node: string }
  /** The kubelet publishes `status.declaredFeatures`. */
  | { kind: 'declareFeatures'; node: string; features: string[] }
  /** The kubelet reports the images it holds (`status.images`). */
  | { kind: 'nodeImages'; node: string; images: { names: string[]; sizeBytes: number }[] }
  /**
   * A resident's containers are resized through `pods/resize` (`requests`), while the
   * kubelet reports what runs (`actuated`, status.containerStatuses[].resources.requests)
   * and the resize's condition.
   */
  | {
      kind: 'resize';
      pod: string;
      requests: Record<string, Record<string, string>>;
      actuated: Record<string, Record<string, string>>;
      condition: { type: 'PodResizeInProgress' | 'PodResizePending'; reason?: string };
    };

/** One behaviour's cluster: nodes, running residents, pending pods, and the writes before scheduling. */
export interface ReleaseScenario {
  name: string;
  /** What changed, in which release, by which PR. */
  change: string;
  nodes: NodeObj[];
  residents: PodObj[];
  pending: PodObj[];
  prepare: PrepareStep[];
  /** What kube-scheduler of `release` must do, by pending pod name. */
  expect(release: OracleRelease): Record<string, ReleaseExpectation>;
}

/** Mebibytes in a gibibyte (baseNode takes memory in Mi). */
export const Gi = 1024;

/** A bare pod asking for `cpu` (and `memory`, when given). */
export function pausePod(
  name: string,
  cpu: string,
  opts: { memory?: string; priorityClassName?: string; nodeName?: string } = {},
): PodObj {
  const pod = podTemplate(name);
  const requests: Record<string, string> = { cpu };
  if (opts.memory !== undefined) requests.memory = opts.memory;
  pod.spec.containers = [
    { name: 'c', image: 'registry.k8s.io/pause:3.10', resources: { requests } },
  ];
  if (opts.priorityClassName !== undefined) pod.spec.priorityClassName = opts.priorityClassName;
  if (opts.nodeName !== undefined) pod.spec.nodeName = opts.nodeName;
  return pod;
}

/** A pod bound by nodeName that no pending pod may preempt. */
export function resident(name: string, node: string, cpu: string, memory?: string): PodObj {
  return pausePod(name, cpu, {
    nodeName: node,
    priorityClassName: 'diff-resident',
    ...(memory === undefined ? {} : { memory }),
  });
}

/** `pod` with a nodeSelector on `node`'s hostname label. */
export function pinnedTo(pod: PodObj, node: string): PodObj {
  pod.spec.nodeSelector = { 'kubernetes.io/hostname': node };
  return pod;
}

/** `node` with one taint. */
export function tainted(node: NodeObj, taint: TaintObj): NodeObj {
  node.spec.taints = [taint];
  return node;
}
