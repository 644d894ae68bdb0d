// What the scenario models of kube's pod-reading plugins share: the world they read, label selectors as kube evaluates them.

import { namespaceLabelsByName } from './scenario-basics.ts';
import type { LabelSelectorObj, NodeObj, PodObj, RequirementObj } from './scenario-model.ts';
import { requirementMatches } from './scenario-model.ts';

/** A Service, ReplicaSet, StatefulSet or ReplicationController as the generator writes it. */
export type WorkloadObj = {
  apiVersion: string;
  kind: 'Service' | 'ReplicaSet' | 'StatefulSet' | 'ReplicationController';
  metadata: { name: string; namespace: string };
  /** A map for Services and ReplicationControllers, a LabelSelector for the apps/v1 kinds. */
  spec: { selector?: Record<string, string> | LabelSelectorObj; [field: string]: unknown };
};

/** A pod bound to a node (a resident, or a pending pod a scheduler placed). */
export interface Placed {
  pod: PodObj;
  node: string;
}

/** What the plugins read besides the pod: every node, the placed pods, the workloads. */
export interface World {
  nodes: readonly NodeObj[];
  placed: readonly Placed[];
  workloads: readonly WorkloadObj[];
}

/** The labels of namespace `ns` (kube's `kubernetes.io/metadata.name`, plus the scenario's own). */
export function namespaceLabels(ns: string): Record<string, string> {
  return namespaceLabelsByName[ns] ?? { 'kubernetes.io/metadata.name': ns };
}

/** labels.Selector: `nothing` matches no set (a nil LabelSelector); no requirements matches all. */
export interface Selector {
  nothing: boolean;
  reqs: RequirementObj[];
}

/** metav1.LabelSelectorAsSelector: absent → Nothing; matchLabels become `In [value]`. */
export function asSelector(sel: LabelSelectorObj | undefined): Selector {
  if (sel === undefined) return { nothing: true, reqs: [] };
  const reqs: RequirementObj[] = Object.entries(sel.matchLabels ?? {}).map(([key, v]) => ({
    key,
    operator: 'In',
    values: [v],
  }));
  for (const e of sel.matchExpressions ?? []) reqs.push({ ...e });
  return { nothing: false, reqs };
}

/** selector.Matches(labels). */
export function selectorMatches(s: Selector, labels: Record<string, string>): boolean {
  return !s.nothing && s.reqs.every((r) => requirementMatches(r, labels));
}

/** selector.Empty(): no requirements (Nothing is not empty). */
export function selectorEmpty(s: Selector): boolean {
  return !s.nothing && s.reqs.length === 0;
}

/** `sel` plus `key In|NotIn [pod's value]` for each listed key the pod has; Nothing stays Nothing. */
export function withLabelKeys(
  s: Selector,
  labels: Record<string, string>,
  keys: readonly string[] | undefined,
  operator: 'In' | 'NotIn',
): Selector {
  if (s.nothing) return s;
  const extra = (keys ?? []).flatMap((key) =>
    Object.hasOwn(labels, key) ? [{ key, operator, values: [labels[key] as string] }] : [],
  );
  return { nothing: false, reqs: [...s.reqs, ...extra] };
}

/** The pods placed on `node`. */
export function podsOn(world: World, node: string): PodObj[] {
  return world.placed.filter((p) => p.node === node).map((p) => p.pod);
}
