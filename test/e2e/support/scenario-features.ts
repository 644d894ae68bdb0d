// The scenario generator's features: each adds fields to nodes, resident pods and pending pods.

import { kwokNode } from './manifests.ts';
import {
  type Draft,
  type Feature,
  podTemplate,
  scenarioNamespace,
  scenarioSchedulerName,
} from './scenario-basics.ts';
import { defaultSpread, podAffinity, spread } from './scenario-features-topology.ts';
import {
  allocatable,
  type NodeObj,
  type PodObj,
  type PortObj,
  type RequirementObj,
  type TaintObj,
  type TermObj,
  type TolerationObj,
} from './scenario-model.ts';
import type { Rng } from './scenarios.ts';

export { type Draft, type Feature, podTemplate, scenarioNamespace, scenarioSchedulerName };

/** Label keys and values the features draw from (some values no node has). */
export const labelCatalogue: Readonly<Record<string, readonly string[]>> = {
  'topology.kubernetes.io/zone': ['zone-a', 'zone-b', 'zone-c', 'zone-x'],
  disktype: ['ssd', 'hdd', 'nvme'],
  'example.com/gen': ['1', '2', '3', '4', '5', '6'],
  tier: ['frontend', 'backend'],
  accelerator: ['gpu'],
};

const taintCatalogue: readonly TaintObj[] = [
  { key: 'dedicated', value: 'infra', effect: 'NoSchedule' },
  { key: 'spot', value: 'true', effect: 'PreferNoSchedule' },
  { key: 'noisy', effect: 'PreferNoSchedule' },
  { key: 'maintenance', value: 'true', effect: 'NoExecute' },
];
const gpuTaint: TaintObj = { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' };

const tolerationCatalogue: readonly TolerationObj[] = [
  { key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' },
  { key: 'dedicated', operator: 'Exists' },
  { key: 'dedicated', operator: 'Equal', value: 'infra' },
  { key: 'spot', operator: 'Equal', value: 'true', effect: 'PreferNoSchedule' },
  { key: 'noisy', operator: 'Exists', effect: 'PreferNoSchedule' },
  { key: 'maintenance', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 60 },
  { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
  { operator: 'Exists' },
];

/** PriorityClasses the scenarios use (created once per control plane). */
export const priorityClasses: readonly { name: string; value: number }[] = [
  { name: 'diff-low', value: 10 },
  { name: 'diff-mid', value: 100 },
  { name: 'diff-high', value: 1000 },
  // Residents outrank every pending pod, so kube's preemption never finds a victim (nor berth's).
  { name: 'diff-resident', value: 1_000_000 },
];

/** Mebibytes in a gibibyte. */
export const gi = 1024;

/** A kwok Node (kwok's annotation, the usual labels) offering `cpuMilli`, `memoryMi` and 110 pod slots. */
export function baseNode(name: string, cpuMilli: number, memoryMi: number): NodeObj {
  // An empty spec, which the features fill (taints, cordon).
  const node = kwokNode(name, { cpu: `${cpuMilli}m`, memory: `${memoryMi}Mi` });
  return { ...node, spec: {} } as unknown as NodeObj;
}

function container(pod: PodObj) {
  return pod.spec.containers[0] as PodObj['spec']['containers'][number];
}

/** A label of some node (so selectors usually match something), or now and then one no node has. */
function someLabel(rng: Rng, draft: Draft, hostname: boolean): [string, string] {
  if (rng.chance(0.15)) return ['disktype', 'nvme'];
  const node = rng.pick(draft.nodes);
  const keys = Object.keys(node.metadata.labels).filter(
    (k) => (hostname || k !== 'kubernetes.io/hostname') && !['type'].includes(k),
  );
  const key = rng.pick(keys);
  return [key, node.metadata.labels[key] as string];
}

const requirementKeys = [...Object.keys(labelCatalogue), 'kubernetes.io/hostname'];

function requirement(rng: Rng, draft: Draft): RequirementObj {
  const key = rng.pick(requirementKeys);
  const valuesOf = (k: string) =>
    k === 'kubernetes.io/hostname' ? draft.nodes.map((n) => n.metadata.name) : labelCatalogue[k];
  const pool = valuesOf(key) ?? ['x'];
  const operators = key === 'example.com/gen' ? ['Gt', 'Lt', 'In', 'NotIn', 'Exists'] : [];
  const op = rng.pick([...operators, 'In', 'In', 'NotIn', 'Exists', 'DoesNotExist']);
  if (op === 'Exists' || op === 'DoesNotExist') return { key, operator: op };
  if (op === 'Gt' || op === 'Lt') return { key, operator: op, values: [String(rng.range(0, 6))] };
  const values = [rng.pick(pool)];
  if (rng.chance(0.4)) values.push(rng.pick(pool));
  return { key, operator: op, values: [...new Set(values)] };
}

function term(rng: Rng, draft: Draft, fields: boolean): TermObj {
  if (fields && rng.chance(0.15)) {
    // The API allows exactly one value for a field selector's In/NotIn.
    const values = [rng.pick(draft.nodes).metadata.name];
    const operator = rng.chance(0.7) ? 'In' : 'NotIn';
    return { matchFields: [{ key: 'metadata.name', operator, values }] };
  }
  return {
    matchExpressions: Array.from({ length: rng.range(1, 2) }, () => requirement(rng, draft)),
  };
}

function affinityOf(pod: PodObj) {
  pod.spec.affinity ??= {};
  pod.spec.affinity.nodeAffinity ??= {};
  return pod.spec.affinity.nodeAffinity;
}

/** Node labels: zone (now and then none), disk type, a numeric generation (rarely not a number), tier, GPUs. */
export const nodeLabels: Feature = {
  name: 'nodeLabels',
  node(node, rng) {
    const labels = node.metadata.labels;
    if (rng.chance(0.9))
      labels['topology.kubernetes.io/zone'] = rng.pick(['zone-a', 'zone-b', 'zone-c']);
    if (rng.chance(0.7)) labels.disktype = rng.pick(['ssd', 'hdd']);
    if (rng.chance(0.8))
      labels['example.com/gen'] = rng.chance(0.05) ? 'x1' : String(rng.range(1, 6));
    if (rng.chance(0.5)) labels.tier = rng.pick(['frontend', 'backend']);
    if (rng.chance(0.2)) labels.accelerator = 'gpu';
  },
};

/** Taints: NoSchedule, PreferNoSchedule and NoExecute; GPU nodes mostly dedicated. */
export const taints: Feature = {
  name: 'taints',
  node(node, rng) {
    const list: TaintObj[] = [];
    if (node.metadata.labels.accelerator === 'gpu' && rng.chance(0.7)) list.push(gpuTaint);
    for (const t of taintCatalogue) {
      // The API refuses two taints with the same key and effect.
      const taken = list.some((u) => u.key === t.key && u.effect === t.effect);
      if (rng.chance(0.08) && !taken) list.push({ ...t });
    }
    if (list.length > 0) node.spec.taints = list;
  },
};

/** Cordoned nodes (`spec.unschedulable`). */
export const cordon: Feature = {
  name: 'cordon',
  node(node, rng) {
    if (rng.chance(0.1)) node.spec.unschedulable = true;
  },
};

/** Nodes with only a few pod slots (so "Too many pods" can happen). */
export const podSlots: Feature = {
  name: 'podSlots',
  node(node, rng) {
    if (!rng.chance(0.15)) return;
    const pods = rng.range(2, 6);
    node.status.capacity.pods = String(pods);
    node.status.allocatable.pods = String(pods);
  },
};

/** Pods bound with spec.nodeName before the schedulers start: they take cpu, memory and slots. */
export const residents: Feature = {
  name: 'residents',
  residents(node, rng, draft) {
    const alloc = allocatable(node);
    const slots = (alloc.pods ?? 0) / 1000;
    // A slot-limited node is mostly filled up to its last slot ("Too many pods").
    const fill = slots <= 6 && rng.chance(0.7);
    if (!fill && !rng.chance(0.5)) return;
    const cpu = alloc.cpu ?? 0; // millicores
    const memoryMi = (alloc.memory ?? 0) / 1000 / 2 ** 20;
    const count = fill ? slots : rng.range(1, 2);
    let freeCpu = Math.floor(cpu * 0.9);
    let freeMi = Math.floor(memoryMi * 0.9);
    for (let i = 0; i < count; i++) {
      const p = podTemplate(`r-${node.metadata.name}-${i}`);
      const c = Math.min(freeCpu, Math.floor((cpu * rng.pick([5, 10, 20, 40])) / 100));
      const m = Math.min(freeMi, Math.floor((memoryMi * rng.pick([5, 10, 20, 40])) / 100));
      freeCpu -= c;
      freeMi -= m;
      container(p).resources.requests = { cpu: `${c}m`, memory: `${m}Mi` };
      p.spec.nodeName = node.metadata.name;
      p.spec.priorityClassName = 'diff-resident';
      p.metadata.labels.role = 'resident';
      draft.residents.push(p);
    }
  },
};

/** cpu/memory requests: small, medium, large, larger than any node, or none at all. */
export const requests: Feature = {
  name: 'requests',
  pod(pod, rng) {
    const kind = rng.int(20);
    const step = (lo: number, hi: number, by: number) => rng.range(lo / by, hi / by) * by;
    let cpu: number | undefined;
    let mi: number | undefined;
    if (kind < 10) [cpu, mi] = [step(50, 300, 50), step(32, 256, 32)];
    else if (kind < 14) [cpu, mi] = [step(500, 2000, 250), step(512, 2048, 256)];
    else if (kind < 16) [cpu, mi] = [step(3000, 8000, 1000), step(4 * gi, 16 * gi, gi)];
    else if (kind < 17) [cpu, mi] = rng.chance(0.5) ? [40_000, 256] : [100, 64 * gi]; // fits no node
    if (cpu === undefined || mi === undefined) return; // BestEffort
    const r: Record<string, string> = {};
    if (kind === 16 || rng.chance(0.9)) r.cpu = `${cpu}m`;
    if (kind === 16 || rng.chance(0.9)) r.memory = `${mi}Mi`;
    container(pod).resources.requests = r;
  },
};

/** Limits: limits only (the API copies them into requests), or limits above requests. */
export const limits: Feature = {
  name: 'limits',
  pod(pod, rng) {
    const res = container(pod).resources;
    if (res.requests === undefined) return;
    const roll = rng.int(10);
    if (roll < 3) {
      res.limits = res.requests;
      delete res.requests;
    } else if (roll < 5) {
      res.limits = Object.fromEntries(
        Object.entries(res.requests).map(([k, v]) => [
          k,
          v.replace(/^(\d+)/, (n) => String(2 * Number(n))),
        ]),
      );
    }
  },
};

/** More containers: a second app container, an init container bigger than the app, sidecars. */
export const containers: Feature = {
  name: 'containers',
  pod(pod, rng) {
    const c = (name: string, cpu: number, mi: number) => ({
      name,
      image: 'registry.k8s.io/pause:3.10',
      resources: { requests: { cpu: `${cpu}m`, memory: `${mi}Mi` } },
    });
    if (rng.chance(0.2))
      pod.spec.containers.push(c('app2', rng.range(1, 6) * 50, rng.range(1, 8) * 32));
    const init = [];
    if (rng.chance(0.15))
      init.push({ ...c('sidecar', rng.range(1, 4) * 50, 64), restartPolicy: 'Always' });
    // An init container runs alone (beside earlier sidecars): it counts only if bigger than the rest.
    if (rng.chance(0.2)) init.push(c('init', rng.range(1, 12) * 250, rng.range(1, 16) * 256));
    if (rng.chance(0.1)) init.push({ ...c('late-sidecar', 100, 128), restartPolicy: 'Always' });
    if (init.length > 0) pod.spec.initContainers = init;
  },
};

/** An extended resource (example.com/gpu) on GPU nodes; pods ask for it, and for one no node has. */
export const extendedResources: Feature = {
  name: 'extendedResources',
  node(node, rng) {
    if (node.metadata.labels.accelerator !== 'gpu' && !rng.chance(0.1)) return;
    const gpus = String(rng.pick([1, 2, 4]));
    node.status.capacity['example.com/gpu'] = gpus;
    node.status.allocatable['example.com/gpu'] = gpus;
  },
  residents(node, rng, draft) {
    if (node.status.allocatable['example.com/gpu'] === undefined || !rng.chance(0.5)) return;
    const p = draft.residents.find((r) => r.spec.nodeName === node.metadata.name);
    if (p === undefined) return;
    // Extended resources cannot be overcommitted: the API wants requests equal to limits.
    const res = container(p).resources;
    res.requests = { ...res.requests, 'example.com/gpu': '1' };
    res.limits = { ...res.limits, 'example.com/gpu': '1' };
  },
  pod(pod, rng) {
    if (!rng.chance(0.15)) return;
    const name = rng.chance(0.9) ? 'example.com/gpu' : 'example.com/fpga';
    const count = String(rng.pick([1, 1, 2, 3]));
    const res = container(pod).resources;
    if (rng.chance(0.5)) res.requests = { ...res.requests, [name]: count };
    res.limits = { ...res.limits, [name]: count };
    // GPU nodes are mostly tainted for GPU pods: most of those pods tolerate it.
    if (rng.chance(0.6))
      pod.spec.tolerations = [
        ...(pod.spec.tolerations ?? []),
        { key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' },
      ];
  },
};

/** Local ephemeral storage: most nodes offer some, some pods ask for it. */
export const ephemeralStorage: Feature = {
  name: 'ephemeralStorage',
  node(node, rng) {
    if (!rng.chance(0.85)) return;
    const size = `${rng.pick([10, 20, 50, 100])}Gi`;
    node.status.capacity['ephemeral-storage'] = size;
    node.status.allocatable['ephemeral-storage'] = size;
  },
  pod(pod, rng) {
    if (!rng.chance(0.15)) return;
    const res = container(pod).resources;
    res.requests = {
      ...res.requests,
      'ephemeral-storage': `${rng.pick([1, 2, 5, 15, 40, 200])}Gi`,
    };
  },
};

/** nodeSelector on one or two labels (hostname included), usually of some node. */
export const nodeSelector: Feature = {
  name: 'nodeSelector',
  pod(pod, rng, draft) {
    if (!rng.chance(0.3)) return;
    const selector: Record<string, string> = {};
    for (let i = rng.range(1, 2); i > 0; i--) {
      const [k, v] = someLabel(rng, draft, true);
      selector[k] = v;
    }
    pod.spec.nodeSelector = selector;
  },
};

/** Required node affinity: 1–2 terms of In/NotIn/Exists/DoesNotExist/Gt/Lt, now and then matchFields. */
export const requiredAffinity: Feature = {
  name: 'requiredAffinity',
  pod(pod, rng, draft) {
    if (!rng.chance(0.3)) return;
    affinityOf(pod).requiredDuringSchedulingIgnoredDuringExecution = {
      nodeSelectorTerms: Array.from({ length: rng.range(1, 2) }, () => term(rng, draft, true)),
    };
  },
};

/** Preferred node affinity: 1–3 weighted terms. */
export const preferredAffinity: Feature = {
  name: 'preferredAffinity',
  pod(pod, rng, draft) {
    if (!rng.chance(0.35)) return;
    affinityOf(pod).preferredDuringSchedulingIgnoredDuringExecution = Array.from(
      { length: rng.range(1, 3) },
      () => ({ weight: rng.pick([1, 10, 50, 100]), preference: term(rng, draft, false) }),
    );
  },
};

/** Tolerations of the catalogue's taints (and the cordon taint, and tolerate-everything). */
export const tolerations: Feature = {
  name: 'tolerations',
  pod(pod, rng) {
    if (!rng.chance(0.4)) return;
    const list = Array.from({ length: rng.range(1, 2) }, () => ({
      ...rng.pick(tolerationCatalogue),
    }));
    pod.spec.tolerations = [...(pod.spec.tolerations ?? []), ...list];
  },
};

/** Priority classes on pending pods (queue order; never enough to preempt a resident). */
export const priorities: Feature = {
  name: 'priorities',
  pod(pod, rng) {
    if (rng.chance(0.4))
      pod.spec.priorityClassName = rng.pick(['diff-low', 'diff-mid', 'diff-high']);
  },
};

/** Host ports on residents and pending pods (a few shared numbers, so they collide). */
export const hostPortsFeature: Feature = {
  name: 'hostPorts',
  residents(node, rng, draft) {
    for (const p of draft.residents.filter((r) => r.spec.nodeName === node.metadata.name)) {
      if (rng.chance(0.4)) container(p).ports = [hostPort(rng)];
    }
  },
  pod(pod, rng) {
    if (rng.chance(0.3)) container(pod).ports = [hostPort(rng)];
  },
};

function hostPort(rng: Rng): PortObj {
  const port = rng.pick([8080, 8081, 9090]);
  return { containerPort: port, hostPort: port, protocol: rng.chance(0.8) ? 'TCP' : 'UDP' };
}

/** Every feature, in the order they run. */
export const allFeatures: readonly Feature[] = [
  nodeLabels,
  taints,
  cordon,
  podSlots,
  residents,
  requests,
  limits,
  containers,
  extendedResources,
  ephemeralStorage,
  nodeSelector,
  requiredAffinity,
  preferredAffinity,
  tolerations,
  priorities,
  hostPortsFeature,
  spread,
  defaultSpread,
  podAffinity,
];

/** The features whose pods read where other pods went: a scenario with any is placed one pod at a time. */
export const sequentialFeatureNames: readonly string[] = allFeatures
  .filter((f) => f.sequential === true)
  .map((f) => f.name);

/**
 * Features left out unless asked for (`BERTH_DIFF_FEATURES=+hostPorts`). hostPorts: the
 * berth this test was written against refused host ports (UnsupportedConstraints); berth's
 * NodePorts filter has landed since (4dfa165) and agreed on seeds 1–30, so this can go once
 * its owner says so.
 */
export const offByDefault: readonly string[] = ['hostPorts'];

/** The default feature names: all but `offByDefault`. */
export const defaultFeatureNames: readonly string[] = allFeatures
  .map((f) => f.name)
  .filter((n) => !offByDefault.includes(n));
