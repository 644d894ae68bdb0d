// The models behind generated runs (what the test knows it generated) and the API objects made from them.
import type {
  NodeObject,
  NodeSelectorTerm,
  PodObject,
  PreferredSchedulingTerm,
  RawResourceList,
  Taint,
  Toleration,
} from '../../src/model/objects.ts';
import type { ScriptedChange } from '../../src/runtime/simulate.ts';

/**
 * The label every generated object carries: the id of the model it was made from, so that an
 * oracle reads what was generated (requests, selectors) instead of what berth parsed.
 */
export const MODEL_LABEL = 'berth.test/model';

/** The extended resource the generators use. */
export const GPU = 'nvidia.com/gpu';

/** Resource amounts in whole units: millicores, MiB, GPUs. */
export interface Amounts {
  cpuMilli: number;
  memMi: number;
  gpus: number;
}

/** One app container: requests, limits (a limit stands in for a missing request). */
export interface ContainerModel {
  requests: Partial<Amounts>;
  limits: Partial<Amounts>;
}

/** A generated node, as the test knows it. */
export interface NodeModel {
  id: string;
  name: string;
  labels: Record<string, string>;
  taints: Taint[];
  unschedulable: boolean;
  allocatable: Amounts & { pods: number };
}

/** A generated pod, as the test knows it. */
export interface PodModel {
  id: string;
  name: string;
  schedulerName: string;
  /** Set for pods another scheduler already bound. */
  nodeName: string | undefined;
  /** `Succeeded` pods use no capacity. */
  phase: 'Running' | 'Succeeded' | undefined;
  /** `metadata.deletionTimestamp` is set: never scheduled, still uses its node if bound. */
  terminating: boolean;
  priority: number;
  labels: Record<string, string>;
  containers: ContainerModel[];
  /** A restartable init container (sidecar), started first. */
  sidecar: Partial<Amounts> | undefined;
  /** A regular init container, after the sidecar. */
  init: Partial<Amounts> | undefined;
  /** Pod-level requests (`spec.resources.requests`): cpu and memory only. */
  podLevel: Partial<Pick<Amounts, 'cpuMilli' | 'memMi'>> | undefined;
  overheadMilli: number | undefined;
  nodeSelector: Record<string, string>;
  required: NodeSelectorTerm[] | undefined;
  preferred: PreferredSchedulingTerm[];
  tolerations: Toleration[];
  gates: string[];
}

/** One scripted API change, with the model it carries. */
export type Step = { at: number } & (
  | { kind: 'createPod'; pod: PodModel }
  | { kind: 'updatePod'; pod: PodModel }
  | { kind: 'deletePod'; name: string }
  | { kind: 'addNode'; node: NodeModel }
  | { kind: 'deleteNode'; name: string }
  | { kind: 'relist' }
);

/** A generated run: the initial cluster, its script, and the simulator's knobs. */
export interface RunScenario {
  nodes: NodeModel[];
  pods: PodModel[];
  steps: Step[];
  seed: number;
  bindLatencyMs: number;
  bindFailureRate: number;
  watchFirstRate: number;
}

function resourceList(a: Partial<Amounts>): RawResourceList {
  const out: RawResourceList = {};
  if (a.cpuMilli !== undefined) out.cpu = `${a.cpuMilli}m`;
  if (a.memMi !== undefined) out.memory = `${a.memMi}Mi`;
  if (a.gpus !== undefined) out[GPU] = `${a.gpus}`;
  return out;
}

function resources(c: ContainerModel): { requests?: RawResourceList; limits?: RawResourceList } {
  return {
    ...(Object.keys(c.requests).length > 0 ? { requests: resourceList(c.requests) } : {}),
    ...(Object.keys(c.limits).length > 0 ? { limits: resourceList(c.limits) } : {}),
  };
}

/** The Pod manifest of a model (labelled with its model id). */
export function podObject(m: PodModel): PodObject {
  const init = [
    ...(m.sidecar === undefined
      ? []
      : [
          {
            name: 'sidecar',
            restartPolicy: 'Always',
            resources: { requests: resourceList(m.sidecar) },
          },
        ]),
    ...(m.init === undefined
      ? []
      : [{ name: 'init', resources: { requests: resourceList(m.init) } }]),
  ];
  const affinity =
    m.required === undefined && m.preferred.length === 0
      ? undefined
      : {
          nodeAffinity: {
            ...(m.required === undefined
              ? {}
              : {
                  requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: m.required },
                }),
            ...(m.preferred.length === 0
              ? {}
              : { preferredDuringSchedulingIgnoredDuringExecution: m.preferred }),
          },
        };
  return {
    metadata: {
      name: m.name,
      namespace: 'default',
      labels: { ...m.labels, [MODEL_LABEL]: m.id },
      creationTimestamp: '2026-01-01T00:00:00Z',
      ...(m.terminating ? { deletionTimestamp: '2026-01-01T00:01:00Z' } : {}),
    },
    spec: {
      schedulerName: m.schedulerName,
      priority: m.priority,
      ...(m.nodeName === undefined ? {} : { nodeName: m.nodeName }),
      ...(Object.keys(m.nodeSelector).length === 0 ? {} : { nodeSelector: m.nodeSelector }),
      ...(affinity === undefined ? {} : { affinity }),
      ...(m.tolerations.length === 0 ? {} : { tolerations: m.tolerations }),
      ...(m.gates.length === 0 ? {} : { schedulingGates: m.gates.map((name) => ({ name })) }),
      ...(init.length === 0 ? {} : { initContainers: init }),
      containers: m.containers.map((c, i) => ({ name: `c${i}`, resources: resources(c) })),
      ...(m.podLevel === undefined ? {} : { resources: { requests: resourceList(m.podLevel) } }),
      ...(m.overheadMilli === undefined ? {} : { overhead: { cpu: `${m.overheadMilli}m` } }),
    },
    ...(m.phase === undefined ? {} : { status: { phase: m.phase } }),
  };
}

/** The Node manifest of a model (labelled with its model id). */
export function nodeObject(m: NodeModel): NodeObject {
  const a = m.allocatable;
  return {
    metadata: { name: m.name, labels: { ...m.labels, [MODEL_LABEL]: m.id } },
    spec: { taints: m.taints, unschedulable: m.unschedulable },
    status: {
      allocatable: {
        cpu: `${a.cpuMilli}m`,
        memory: `${a.memMi}Mi`,
        pods: `${a.pods}`,
        ...(a.gpus > 0 ? { [GPU]: `${a.gpus}` } : {}),
      },
    },
  };
}

function scriptedChange(step: Step): ScriptedChange {
  switch (step.kind) {
    case 'createPod':
      return { at: step.at, createPod: podObject(step.pod) };
    case 'updatePod':
      return { at: step.at, updatePod: podObject(step.pod) };
    case 'deletePod':
      return { at: step.at, deletePod: `default/${step.name}` };
    case 'addNode':
      return { at: step.at, addNode: nodeObject(step.node) };
    case 'deleteNode':
      return { at: step.at, deleteNode: step.name };
    case 'relist':
      return { at: step.at, relist: true };
  }
}

/** The simulator's script for a scenario's steps. */
export function scriptOf(s: RunScenario): ScriptedChange[] {
  return s.steps.map(scriptedChange);
}

/** Every model of a scenario (initial objects and scripted versions), by id. */
export function modelsOf(s: RunScenario): {
  pods: Map<string, PodModel>;
  nodes: Map<string, NodeModel>;
} {
  const pods = new Map(s.pods.map((p) => [p.id, p]));
  const nodes = new Map(s.nodes.map((n) => [n.id, n]));
  for (const step of s.steps) {
    if (step.kind === 'createPod' || step.kind === 'updatePod') pods.set(step.pod.id, step.pod);
    if (step.kind === 'addNode') nodes.set(step.node.id, step.node);
  }
  return { pods, nodes };
}
