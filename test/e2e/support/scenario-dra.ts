// Seeded generator of small DRA clusters (nodes, ResourceSlices, DeviceClasses, taint rules, claims, pods) for the DRA differential.
import type { NodeObj } from './scenario-model.ts';
import { type Rng, rngFrom } from './scenarios.ts';

/** A plain API object as POSTed (resource.k8s.io/v1 kinds). */
export type DraObj = { apiVersion: string; kind: string; metadata: { name: string } } & Record<
  string,
  unknown
>;

/** A container of a pending pod: requests (and limits, for extended resources), its claims. */
export interface DraContainer {
  name: string;
  image: string;
  restartPolicy?: 'Always';
  resources: {
    requests: Record<string, string>;
    limits?: Record<string, string>;
    claims?: { name: string }[];
  };
}

/**
 * A pending pod: a bare pod with claims, pinned to one node by a nodeSelector or by its
 * claims' selectors; or (an `ext-` pod) one asking for extended resources backed by DRA,
 * pinned by its nodeSelector.
 */
export interface DraPodObj {
  apiVersion: 'v1';
  kind: 'Pod';
  metadata: { name: string; namespace: string };
  spec: {
    schedulerName: 'default-scheduler';
    terminationGracePeriodSeconds: 0;
    nodeSelector?: Record<string, string>;
    resourceClaims?: {
      name: string;
      resourceClaimName?: string;
      resourceClaimTemplateName?: string;
    }[];
    initContainers?: DraContainer[];
    containers: DraContainer[];
  };
}

/** A generated DRA scenario: everything but the pods is created before the scheduler starts. */
export interface DraScenario {
  seed: number;
  namespace: string;
  nodes: NodeObj[];
  classes: DraObj[];
  /** Node-local slices: one per (node, driver) pool, plus a counters-only slice for partitionable pools. */
  slices: DraObj[];
  taintRules: DraObj[];
  templates: DraObj[];
  claims: DraObj[];
  /** Created one at a time, each once the one before settled. */
  pending: DraPodObj[];
  /** What the scenario exercises (counted over the run). */
  covers: Set<string>;
}

/** The scenario namespace. */
export const draNamespace = 'dra-diff';
/** The drivers (and class names) of the GPU and partitionable pools. */
export const gpu = 'gpu.example.com';
export const mig = 'mig.example.com';
const classes = { gpu, mig, big: 'big-gpu.example.com', missing: 'missing.example.com' };
const models = ['a100', 'h100', 'l4'];
const memories = ['16Gi', '40Gi', '80Gi'];
const maintTaint = { key: 'example.com/maint', value: 'true', effect: 'NoSchedule' };
const ruleTaint = { key: 'example.com/rule', value: 'drain', effect: 'NoSchedule' };

const cel = (expression: string) => ({ cel: { expression } });
const attr = (name: string) => `device.attributes[device.driver].${name}`;

function node(name: string): NodeObj {
  const resources = { cpu: '8', memory: '16Gi', pods: '110' };
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: { 'kubernetes.io/hostname': name, type: 'kwok' },
      annotations: { 'kwok.x-k8s.io/node': 'fake' },
    },
    spec: {},
    status: { capacity: resources, allocatable: resources },
  };
}

function slice(name: string, driver: string, nodeName: string, pool: string, count: number) {
  return {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'ResourceSlice',
    metadata: { name },
    spec: { driver, nodeName, pool: { name: pool, generation: 1, resourceSliceCount: count } },
  };
}

/** A GPU pool on `nodeName`: 3–5 devices with model, rack, numa and memory; some tainted. */
function gpuSlice(r: Rng, nodeName: string, rack: string, covers: Set<string>): DraObj {
  const devices = Array.from({ length: r.range(3, 5) }, (_, j) => {
    const tainted = r.chance(0.12);
    if (tainted) covers.add('slice device taint');
    return {
      name: `gpu-${j}`,
      attributes: {
        model: { string: r.pick(models) },
        rack: { string: rack },
        numa: { int: r.int(2) },
      },
      capacity: { memory: { value: r.pick(memories) } },
      ...(tainted ? { taints: [maintTaint] } : {}),
    };
  });
  const s = slice(`${nodeName}-gpu`, gpu, nodeName, `${nodeName}-gpu`, 1);
  return { ...s, spec: { ...s.spec, devices } };
}

/** A partitionable GPU on `nodeName`: 40Gi of shared memory, one whole, two halves and four quarters. */
function migSlices(nodeName: string, rack: string): DraObj[] {
  const pool = `${nodeName}-mig`;
  const counters = slice(`${pool}-counters`, mig, nodeName, pool, 2);
  const part = (name: string, profile: string, memory: string) => ({
    name,
    attributes: { profile: { string: profile }, rack: { string: rack } },
    capacity: { memory: { value: memory } },
    consumesCounters: [{ counterSet: 'phys-0', counters: { memory: { value: memory } } }],
  });
  const devices = [
    part('mig-full', '4g', '40Gi'),
    part('mig-half-0', '2g', '20Gi'),
    part('mig-half-1', '2g', '20Gi'),
    ...[0, 1, 2, 3].map((i) => part(`mig-q-${i}`, '1g', '10Gi')),
  ];
  const devs = slice(`${pool}-devices`, mig, nodeName, pool, 2);
  return [
    {
      ...counters,
      spec: {
        ...counters.spec,
        sharedCounters: [{ name: 'phys-0', counters: { memory: { value: '40Gi' } } }],
      },
    },
    { ...devs, spec: { ...devs.spec, devices } },
  ];
}

function deviceClass(name: string, expression: string): DraObj {
  return {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'DeviceClass',
    metadata: { name },
    spec: { selectors: [cel(expression)] },
  };
}

/** The extended resource the GPU class backs (explicitly); mig's is only its implicit name. */
export const gpuResource = 'example.com/gpu';

const allClasses: DraObj[] = [
  (() => {
    const c = deviceClass(gpu, `device.driver == "${gpu}"`);
    return { ...c, spec: { ...(c.spec as object), extendedResourceName: gpuResource } };
  })(),
  deviceClass(mig, `device.driver == "${mig}"`),
  deviceClass(
    classes.big,
    `device.driver == "${gpu}" && device.capacity["${gpu}"].memory.compareTo(quantity("40Gi")) >= 0`,
  ),
];

/** How a pod is kept to one node: its nodeSelector, or a rack selector in every new claim. */
type Pin = { kind: 'nodeSelector' | 'rack'; node: string; rack: string };

/** One device request's `exactly` (or a firstAvailable subrequest without its name). */
function exact(r: Rng, pin: Pin, covers: Set<string>, mode: 'ExactCount' | 'All') {
  const className = r.chance(0.025)
    ? classes.missing
    : r.pick([gpu, gpu, gpu, classes.big, mig, mig]);
  if (className === classes.missing) covers.add('unknown DeviceClass');
  if (className === classes.big) covers.add('class CEL on capacity');
  const selectors: { cel: { expression: string } }[] = [];
  if (pin.kind === 'rack') selectors.push(cel(`${attr('rack')} == "${pin.rack}"`));
  if (className === gpu && r.chance(0.25)) {
    covers.add('CEL on attribute');
    selectors.push(cel(`${attr('model')} == "${r.pick(models)}"`));
  }
  if (className !== classes.missing && r.chance(0.25)) {
    covers.add('CEL on capacity');
    const q = r.pick(['10Gi', '16Gi', '16Gi', '20Gi', '40Gi', '80Gi']);
    selectors.push(cel(`device.capacity[device.driver].memory.compareTo(quantity("${q}")) >= 0`));
  }
  const tolerations = [];
  if (r.chance(0.3)) {
    covers.add('device toleration');
    tolerations.push(
      r.chance(0.5)
        ? { key: maintTaint.key, operator: 'Exists', effect: 'NoSchedule' }
        : { key: ruleTaint.key, operator: 'Equal', value: ruleTaint.value, effect: 'NoSchedule' },
    );
  }
  covers.add(`allocationMode ${mode}`);
  return {
    deviceClassName: className,
    allocationMode: mode,
    ...(mode === 'ExactCount' ? { count: r.range(1, 2) } : {}),
    ...(selectors.length > 0 ? { selectors } : {}),
    ...(tolerations.length > 0 ? { tolerations } : {}),
  };
}

/** A claim spec of 1–2 requests: exactly (ExactCount or All) or firstAvailable, maybe a matchAttribute constraint. */
function claimSpec(r: Rng, pin: Pin, covers: Set<string>, opts: DraOptions) {
  const requests = Array.from({ length: r.chance(0.2) ? 2 : 1 }, (_, i) => {
    const name = `req-${i}`;
    const kind = r.int(8);
    if (kind < 2) {
      covers.add('firstAvailable');
      const subs = Array.from({ length: r.range(2, 3) }, (_, j) => ({
        name: `sub-${j}`,
        ...exact(r, pin, covers, 'ExactCount'),
      }));
      return { name, firstAvailable: subs };
    }
    return { name, exactly: exact(r, pin, covers, kind === 2 ? 'All' : 'ExactCount') };
  });
  const constraints = [];
  const both = requests.length === 2 && r.chance(0.5);
  const constrained = both ? requests : requests.slice(0, 1);
  // A constraint an All request cannot meet is an Error in kube's allocator (see
  // `DraOptions.allWithConstraint`).
  const allMode = constrained.some((q) => q.exactly?.allocationMode === 'All');
  if (r.chance(0.3) && (opts.allWithConstraint !== false || !allMode)) {
    covers.add(allMode ? 'matchAttribute on All' : 'matchAttribute');
    constraints.push({
      ...(both ? {} : { requests: [requests[0]?.name as string] }),
      // Mostly an attribute the first request's devices have (a mig device has no numa).
      matchAttribute:
        requests[0]?.exactly?.deviceClassName === mig
          ? r.pick([`${mig}/profile`, `${mig}/profile`, `${gpu}/numa`])
          : r.pick([`${gpu}/numa`, `${gpu}/model`, `${mig}/profile`]),
    });
  }
  return { devices: { requests, ...(constraints.length > 0 ? { constraints } : {}) } };
}

/** Generator options; the defaults make the default run. */
export interface DraOptions {
  /** false: every new claim is a direct one (the same draws otherwise). */
  templates?: boolean;
  /**
   * true (the default run): a matchAttribute constraint may cover an All request. When it
   * cannot hold, kube's allocator fails with an Error ("cannot add device … because a claim
   * constraint would not be satisfied") and both schedulers write PodScheduled=False
   * SchedulerError `running "DynamicResources" filter plugin: …` (seeds 10, 18 and 28).
   */
  allWithConstraint?: boolean;
}

/** The pod's template or direct claim, registered in the scenario. */
function newClaim(r: Rng, s: DraScenario, pod: string, ref: string, pin: Pin, opts: DraOptions) {
  const spec = claimSpec(r, pin, s.covers, opts);
  const meta = { name: `${pod}-${ref}`, namespace: s.namespace };
  if (r.chance(0.5) && opts.templates !== false) {
    s.covers.add('claim template');
    s.templates.push({
      apiVersion: 'resource.k8s.io/v1',
      kind: 'ResourceClaimTemplate',
      metadata: meta,
      spec: { spec },
    });
    return { name: ref, resourceClaimTemplateName: meta.name };
  }
  s.covers.add('direct claim');
  s.claims.push({ apiVersion: 'resource.k8s.io/v1', kind: 'ResourceClaim', metadata: meta, spec });
  return { name: ref, resourceClaimName: meta.name };
}

/**
 * The scenario of `seed`: 3–5 nodes, each with a GPU pool and maybe a partitionable one,
 * maybe a DeviceTaintRule, then 3–5 pods with 1–2 claims each (direct, from a template, or
 * another pod's direct claim). Every pod can only ever land on its pinned node (nodeSelector,
 * or a rack selector in each of its new claims), so no random tie-break decides anything.
 */
export function generateDraScenario(seed: number, opts: DraOptions = {}): DraScenario {
  const r = rngFrom(seed ^ 0x5d1a_0000);
  const s: DraScenario = {
    seed,
    namespace: draNamespace,
    nodes: [],
    classes: allClasses,
    slices: [],
    taintRules: [],
    templates: [],
    claims: [],
    pending: [],
    covers: new Set(),
  };
  const names = Array.from({ length: r.range(3, 5) }, (_, i) => `dra-node-${i + 1}`);
  for (const [i, n] of names.entries()) {
    s.nodes.push(node(n));
    s.slices.push(gpuSlice(r, n, `rack-${i + 1}`, s.covers));
    if (r.chance(0.6)) {
      s.covers.add('partitionable devices');
      s.slices.push(...migSlices(n, `rack-${i + 1}`));
    }
  }
  const direct: string[] = [];
  const targets: string[] = [];
  for (let k = 0; k < r.range(3, 6); k++) {
    const pod = `pod-${k}`;
    const i = r.int(names.length);
    const pin: Pin = {
      kind: r.chance(0.6) ? 'nodeSelector' : 'rack',
      node: names[i] as string,
      rack: `rack-${i + 1}`,
    };
    targets.push(pin.node);
    const refs: DraPodObj['spec']['resourceClaims'] = [];
    for (let c = 0; c < (r.chance(0.25) ? 2 : 1); c++) {
      // Another pod's claim: kube-scheduler 1.37.2 fails PreBind for a pod that lists one
      // claim twice ("got allocated elsewhere in the meantime", then a duplicate reservedFor
      // entry), so a pod never does here.
      const others = direct.filter(
        (d) => !d.startsWith(`${pod}-`) && !refs.some((x) => x.resourceClaimName === d),
      );
      if (others.length > 0 && r.chance(0.25)) {
        s.covers.add('shared claim');
        refs.push({ name: `claim-${c}`, resourceClaimName: r.pick(others) });
        continue;
      }
      const ref = newClaim(r, s, pod, `claim-${c}`, pin, opts);
      if (ref.resourceClaimName !== undefined) direct.push(ref.resourceClaimName);
      refs.push(ref);
    }
    // Only shared claims: their selectors may pin nothing, so the nodeSelector must.
    if (refs.every((x) => x.resourceClaimName?.startsWith(`${pod}-`) === false))
      pin.kind = 'nodeSelector';
    s.pending.push({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: pod, namespace: s.namespace },
      spec: {
        schedulerName: 'default-scheduler',
        terminationGracePeriodSeconds: 0,
        ...(pin.kind === 'nodeSelector'
          ? { nodeSelector: { 'kubernetes.io/hostname': pin.node } }
          : {}),
        resourceClaims: refs,
        containers: [
          {
            name: 'main',
            image: 'registry.k8s.io/pause:3.10',
            resources: {
              requests: { cpu: '100m' },
              claims: refs.map((x) => ({ name: x.name })),
            },
          },
        ],
      },
    });
  }
  // On a node some pod is pinned to: its first device (kube's allocator would take it
  // first) or the whole pool.
  if (r.chance(0.6)) {
    s.covers.add('DeviceTaintRule');
    const n = r.pick(targets);
    const device = r.chance(0.7) ? { device: 'gpu-0' } : {};
    s.taintRules.push({
      apiVersion: 'resource.k8s.io/v1',
      kind: 'DeviceTaintRule',
      metadata: { name: 'drain' },
      spec: { deviceSelector: { driver: gpu, pool: `${n}-gpu`, ...device }, taint: ruleTaint },
    });
  }
  return s;
}
