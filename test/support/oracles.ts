// Oracles for simulated runs, independent of berth's parsers, plugins and reducer: brute-force fit and API truth.

import type { Envelope } from '../../src/events/types.ts';
import type {
  NodeSelectorRequirement,
  NodeSelectorTerm,
  Taint,
  Toleration,
} from '../../src/model/objects.ts';
import { type Amounts, MODEL_LABEL, type NodeModel, type PodModel } from './run-models.ts';

/** MiB in bytes. */
const MI = 1024 * 1024;

/** What a pod takes from a node, in base units (millicores, bytes, GPUs). */
export interface Demand {
  milliCPU: number;
  memory: number;
  gpus: number;
}

const zero = (): Demand => ({ milliCPU: 0, memory: 0, gpus: 0 });

function demandOfAmounts(a: Partial<Amounts> | undefined): Demand {
  return { milliCPU: a?.cpuMilli ?? 0, memory: (a?.memMi ?? 0) * MI, gpus: a?.gpus ?? 0 };
}

function add(x: Demand, y: Demand): Demand {
  return { milliCPU: x.milliCPU + y.milliCPU, memory: x.memory + y.memory, gpus: x.gpus + y.gpus };
}

function max(x: Demand, y: Demand): Demand {
  return {
    milliCPU: Math.max(x.milliCPU, y.milliCPU),
    memory: Math.max(x.memory, y.memory),
    gpus: Math.max(x.gpus, y.gpus),
  };
}

/**
 * kube's PodRequests for the shapes the generators make, written from kube's rules: a limit
 * stands in for a missing request (API defaulting); app containers plus the sidecar, or the
 * init container plus the sidecar started before it, whichever is larger; pod-level cpu/memory
 * requests replace the containers' figure; overhead is added.
 */
export function demandOf(p: PodModel): Demand {
  let app = zero();
  for (const c of p.containers) {
    app = add(app, {
      milliCPU: c.requests.cpuMilli ?? c.limits.cpuMilli ?? 0,
      memory: (c.requests.memMi ?? c.limits.memMi ?? 0) * MI,
      gpus: c.requests.gpus ?? c.limits.gpus ?? 0,
    });
  }
  const sidecar = demandOfAmounts(p.sidecar);
  const initStep = p.init === undefined ? zero() : add(demandOfAmounts(p.init), sidecar);
  const total = max(add(app, sidecar), max(sidecar, initStep));
  if (p.podLevel?.cpuMilli !== undefined) total.milliCPU = p.podLevel.cpuMilli;
  if (p.podLevel?.memMi !== undefined) total.memory = p.podLevel.memMi * MI;
  total.milliCPU += p.overheadMilli ?? 0;
  return total;
}

/** kube's ToleratesTaint. */
export function tolerates(t: Toleration, taint: Taint): boolean {
  if (t.effect !== undefined && t.effect !== '' && t.effect !== taint.effect) return false;
  if (t.key !== undefined && t.key !== '' && t.key !== taint.key) return false;
  if (t.operator === 'Exists') return true;
  return (t.operator ?? 'Equal') === 'Equal' && (t.value ?? '') === (taint.value ?? '');
}

function requirementMatches(r: NodeSelectorRequirement, value: string | undefined): boolean {
  const values = r.values ?? [];
  switch (r.operator) {
    case 'In':
      return value !== undefined && values.includes(value);
    case 'NotIn':
      return value === undefined || !values.includes(value);
    case 'Exists':
      return value !== undefined;
    case 'DoesNotExist':
      return value === undefined;
    default:
      return false;
  }
}

/** A node selector term: every expression and field matches; an empty term matches nothing. */
function termMatches(t: NodeSelectorTerm, node: NodeModel): boolean {
  const exprs = t.matchExpressions ?? [];
  const fields = t.matchFields ?? [];
  if (exprs.length + fields.length === 0) return false;
  return (
    exprs.every((r) => requirementMatches(r, node.labels[r.key])) &&
    fields.every(
      (r) =>
        r.key === 'metadata.name' && r.values?.length === 1 && requirementMatches(r, node.name),
    )
  );
}

const CORDON: Taint = { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' };

/** Whether `pod` may go on `node` regardless of resources: cordon, taints, selector, affinity. */
export function nodeAllows(node: NodeModel, pod: PodModel): boolean {
  const tolerated = (taint: Taint) => pod.tolerations.some((t) => tolerates(t, taint));
  if (node.unschedulable && !tolerated(CORDON)) return false;
  for (const taint of node.taints) {
    if ((taint.effect === 'NoSchedule' || taint.effect === 'NoExecute') && !tolerated(taint))
      return false;
  }
  for (const [k, v] of Object.entries(pod.nodeSelector)) if (node.labels[k] !== v) return false;
  if (pod.required !== undefined && !pod.required.some((t) => termMatches(t, node))) return false;
  return true;
}

/** kube's NodeResourcesFit: a pod slot is always needed; each non-zero request must fit. */
export function fitsResources(node: NodeModel, pod: PodModel, occupants: PodModel[]): boolean {
  if (occupants.length + 1 > node.allocatable.pods) return false;
  const used = occupants.map(demandOf).reduce(add, zero());
  const want = demandOf(pod);
  const a = node.allocatable;
  if (want.milliCPU > 0 && want.milliCPU > a.cpuMilli - used.milliCPU) return false;
  if (want.memory > 0 && want.memory > a.memMi * MI - used.memory) return false;
  if (want.gpus > 0 && want.gpus > a.gpus - used.gpus) return false;
  return true;
}

/**
 * A pod as the simulated API server holds it: the generated model, and what the API itself
 * writes (uid, `spec.nodeName` on bind, `status.phase`).
 */
export interface TruthPod {
  uid: string;
  model: PodModel;
  nodeName: string | undefined;
  /** `status.phase` is Succeeded or Failed: the pod uses no node. */
  finished: boolean;
}

/** A bind command berth issued whose result has not come back. */
export interface InFlightBind {
  key: string;
  node: string;
  attempt: number;
}

function modelId(obj: unknown): string {
  const id = (obj as { metadata?: { labels?: Record<string, string> } }).metadata?.labels?.[
    MODEL_LABEL
  ];
  if (id === undefined) throw new Error(`object without ${MODEL_LABEL}: ${JSON.stringify(obj)}`);
  return id;
}

/**
 * What the simulated API server holds, rebuilt from the run's inputs (the simulator's
 * outputs: watch events and bind results), with the generated models standing for the
 * objects, plus the binds berth has in flight (from its BindRequested decisions).
 */
export class ApiTruth {
  readonly nodes = new Map<string, NodeModel>();
  /** By `default/name`. */
  readonly pods = new Map<string, TruthPod>();
  /** The last model seen for every uid, deleted ones included. */
  readonly modelOfUid = new Map<string, PodModel>();
  readonly inFlight = new Map<string, InFlightBind>();

  constructor(
    private readonly podModels: ReadonlyMap<string, PodModel>,
    private readonly nodeModels: ReadonlyMap<string, NodeModel>,
  ) {}

  /** Follows one envelope (call in log order, before it is applied). */
  observe(env: Envelope): void {
    const e = env.event;
    switch (e.type) {
      case 'NodeUpserted': {
        const model = this.nodeModels.get(modelId(e.node));
        if (model === undefined) throw new Error(`unknown node model ${modelId(e.node)}`);
        this.nodes.set(model.name, model);
        return;
      }
      case 'NodeDeleted':
        this.nodes.delete(e.name);
        return;
      case 'PodUpserted': {
        const model = this.podModels.get(modelId(e.pod));
        const uid = e.pod.metadata.uid;
        if (model === undefined || uid === undefined) throw new Error('unknown pod model or uid');
        this.modelOfUid.set(uid, model);
        const nodeName = e.pod.spec.nodeName;
        const phase = e.pod.status?.phase;
        const finished = phase === 'Succeeded' || phase === 'Failed';
        this.pods.set(`default/${model.name}`, { uid, model, nodeName, finished });
        return;
      }
      case 'PodDeleted':
        if (this.pods.get(e.key)?.uid === e.uid) this.pods.delete(e.key);
        this.inFlight.delete(e.uid);
        return;
      case 'BindSucceeded': {
        const pod = this.pods.get(e.key);
        if (pod?.uid === e.uid) {
          // The simulated API server marks a pod Running when it binds it.
          pod.nodeName = e.node;
          pod.finished = false;
        }
        if (this.inFlight.get(e.uid)?.attempt === e.attempt) this.inFlight.delete(e.uid);
        return;
      }
      case 'BindFailed':
        if (this.inFlight.get(e.uid)?.attempt === e.attempt) this.inFlight.delete(e.uid);
        return;
      case 'BindRequested':
        this.inFlight.set(e.uid, { key: e.key, node: e.node, attempt: e.attempt });
        return;
      default:
        return;
    }
  }

  /** The pod's model is bound to a node and still uses it (not finished). */
  static holdsNode(p: TruthPod): boolean {
    return p.nodeName !== undefined && !p.finished;
  }

  /** Pods using `node`: bound there (not finished), or being bound there by berth. */
  occupants(node: string): PodModel[] {
    const out: PodModel[] = [];
    for (const p of this.pods.values())
      if (ApiTruth.holdsNode(p) && p.nodeName === node) out.push(p.model);
    for (const [uid, b] of this.inFlight) {
      const p = this.pods.get(b.key);
      if (b.node === node && p?.uid === uid && p.nodeName === undefined) out.push(p.model);
    }
    return out;
  }

  /** Nodes where `pod` fits now, by brute force over every node and every pod. */
  feasibleNodes(pod: PodModel): string[] {
    const out: string[] = [];
    for (const node of this.nodes.values()) {
      if (nodeAllows(node, pod) && fitsResources(node, pod, this.occupants(node.name)))
        out.push(node.name);
    }
    return out.sort();
  }

  /** Berth's pods the API holds unbound, ungated and unfinished: they need a node. */
  waitingBerthPods(): TruthPod[] {
    return [...this.pods.values()].filter(
      (p) =>
        p.model.schedulerName === 'berth' &&
        p.nodeName === undefined &&
        p.model.gates.length === 0 &&
        !p.model.terminating &&
        !p.finished,
    );
  }

  /** Sum of demands and pod count of what the API has bound to each node name. */
  boundTotals(): Map<string, Demand & { pods: number }> {
    const totals = new Map<string, Demand & { pods: number }>();
    for (const p of this.pods.values()) {
      if (!ApiTruth.holdsNode(p) || p.nodeName === undefined) continue;
      const t = totals.get(p.nodeName) ?? { ...zero(), pods: 0 };
      totals.set(p.nodeName, { ...add(t, demandOf(p.model)), pods: t.pods + 1 });
    }
    return totals;
  }
}

/** Sum of the demands of the given pods. */
export function totalDemand(pods: PodModel[]): Demand {
  return pods.map(demandOf).reduce(add, zero());
}
