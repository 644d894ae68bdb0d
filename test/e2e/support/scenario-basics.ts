// The scenario generator's basics shared by every feature file: namespace, scheduler name, the draft, the Feature hooks, a bare pod.
import type { NodeObj, PodObj } from './scenario-model.ts';
import type { WorkloadObj } from './scenario-topology.ts';
import type { Rng } from './scenarios.ts';

/** The namespace, scheduler name and label every generated object shares. */
export const scenarioNamespace = 'diff';
/**
 * A second namespace for a few residents and Services: spreading counts only the pod's own
 * namespace, and pod affinity terms name namespaces or select them by label.
 */
export const otherNamespace = 'diff-other';

/** The labels of the scenario namespaces (kube adds `kubernetes.io/metadata.name` to every namespace). */
export const namespaceLabelsByName: Readonly<Record<string, Record<string, string>>> = {
  [scenarioNamespace]: { 'kubernetes.io/metadata.name': scenarioNamespace },
  [otherNamespace]: { 'kubernetes.io/metadata.name': otherNamespace, env: 'other' },
};
/** Pending pods name this scheduler; berth is configured with the same name, so pods are identical. */
export const scenarioSchedulerName = 'default-scheduler';

/** What features see and fill in while a scenario is drawn. */
export interface Draft {
  nodes: NodeObj[];
  /** Services and pod controllers, created before the residents. */
  workloads: WorkloadObj[];
  /** Pods bound with `spec.nodeName` before any scheduler runs. */
  residents: PodObj[];
}

/**
 * One generator feature: adds fields to nodes, resident pods and pending pods, drawing from
 * its own random stream. A new plugin's feature goes here; what the fields mean to kube
 * goes into scenario-model.ts (`filterReason`, `staticScores`) or, for a feature whose
 * pods' fate depends on where other pods went, scenario-spread.ts / scenario-affinity.ts
 * (their shared world in scenario-topology.ts); such a feature is
 * `sequential`: its scenarios place pods one at a time (scenario-sequential.ts). Otherwise
 * scenarios.ts's `placementIndependent` drops pods whose verdicts could depend on the
 * others' placement, and all pods are created at once.
 */
export interface Feature {
  readonly name: string;
  /** Its pods read where other pods went: the scenario is placed one pod at a time. */
  readonly sequential?: boolean;
  /** Adds fields to one node (all nodes exist, earlier features have run on this one). */
  node?(node: NodeObj, rng: Rng, draft: Draft): void;
  /** Adds Services and controllers (pushes to `draft.workloads`); runs once, after the nodes. */
  workloads?(rng: Rng, draft: Draft): void;
  /** Adds resident pods bound to `node` (pushes to `draft.residents`). */
  residents?(node: NodeObj, rng: Rng, draft: Draft): void;
  /** Adds fields to a pending pod. */
  pod?(pod: PodObj, rng: Rng, draft: Draft): void;
}

/** A bare pod (in the scenario namespace by default) for the scenario scheduler: one pause container, no requests. */
export function podTemplate(name: string, namespace = scenarioNamespace): PodObj {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace, labels: { app: 'berth-diff' } },
    spec: {
      schedulerName: scenarioSchedulerName,
      terminationGracePeriodSeconds: 0,
      containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10', resources: {} }],
    },
  };
}
