// Turns generated operations into a scenario: ops in time order, targets resolved by name.
import type { Toleration } from '../../src/model/objects.ts';
import type { Amounts, NodeModel, PodModel, Step } from './run-models.ts';

/** Node names, in the order nodes are created. */
export const NODE_NAMES = ['n0', 'n1', 'n2', 'n3', 'n4', 'n5', 'n6'] as const;

/** Models without ids and names (assigned when the scenario is assembled). */
export type NodeDraft = Omit<NodeModel, 'id' | 'name'>;
export type PodDraft = Omit<
  PodModel,
  'id' | 'name' | 'schedulerName' | 'nodeName' | 'phase' | 'terminating'
>;
export type ForeignDraft = { amounts: Partial<Amounts>; phase: 'Running' | 'Succeeded' };

/** What a node update changes. */
export type NodeChange = 'labels' | 'taints' | 'cordon' | 'shrink' | 'grow';

/** Pod updates the API allows: labels, removing a gate, adding a toleration; and the kubelet's. */
export type PodChange = 'labels' | 'ungate' | 'tolerate' | 'terminate' | 'complete';

/** One generated operation; `target` indexes the names known when it runs. */
export type RawOp =
  | { op: 'newPod'; at: number; pod: PodDraft }
  | { op: 'recreate'; at: number; target: number; pod: PodDraft }
  | { op: 'update'; at: number; target: number; change: PodChange; toleration: Toleration }
  | { op: 'delete'; at: number; target: number }
  | { op: 'foreign'; at: number; node: number; pod: ForeignDraft }
  | { op: 'nodeUpdate'; at: number; target: number; changes: NodeChange[]; draft: NodeDraft }
  | { op: 'nodeAdd'; at: number; node: NodeDraft }
  | { op: 'nodeDelete'; at: number; target: number }
  | { op: 'relist'; at: number };

class Assembler {
  private ids = 0;
  readonly latestPod = new Map<string, PodModel>();
  readonly latestNode = new Map<string, NodeModel>();
  private podNames = 0;
  private foreignCount = 0;

  nextId(prefix: string): string {
    this.ids += 1;
    return `${prefix}${this.ids}`;
  }

  berthPod(draft: PodDraft, name?: string): PodModel {
    const pod: PodModel = {
      ...draft,
      id: this.nextId('p'),
      name: name ?? `p${this.podNames++}`,
      schedulerName: 'berth',
      nodeName: undefined,
      phase: undefined,
      terminating: false,
    };
    this.latestPod.set(pod.name, pod);
    return pod;
  }

  foreignPod(draft: ForeignDraft, nodeName: string): PodModel {
    const pod: PodModel = {
      id: this.nextId('f'),
      name: `other${this.foreignCount++}`,
      schedulerName: 'default-scheduler',
      nodeName,
      phase: draft.phase,
      terminating: false,
      priority: 0,
      labels: {},
      containers: [{ requests: draft.amounts, limits: {} }],
      sidecar: undefined,
      init: undefined,
      podLevel: undefined,
      overheadMilli: undefined,
      nodeSelector: {},
      required: undefined,
      preferred: [],
      tolerations: [],
      gates: [],
    };
    this.latestPod.set(pod.name, pod);
    return pod;
  }

  node(draft: NodeDraft, name: string): NodeModel {
    const node: NodeModel = { ...draft, id: this.nextId('n'), name };
    this.latestNode.set(name, node);
    return node;
  }

  boundNames(): string[] {
    return [...this.latestPod.values()].filter((p) => p.nodeName !== undefined).map((p) => p.name);
  }

  berthNames(): string[] {
    return [...this.latestPod.values()]
      .filter((p) => p.schedulerName === 'berth')
      .map((p) => p.name);
  }
}

function pick<T>(list: readonly T[], i: number): T | undefined {
  return list.length === 0 ? undefined : list[i % list.length];
}

function changedNode(base: NodeModel, changes: NodeChange[], d: NodeDraft): NodeDraft {
  const a = base.allocatable;
  const scale = (f: number) => ({
    cpuMilli: Math.max(0, Math.round(a.cpuMilli * f)),
    memMi: Math.max(0, Math.round(a.memMi * f)),
    gpus: Math.floor(a.gpus * f),
    pods: Math.max(0, Math.floor(a.pods * f)),
  });
  return {
    labels: changes.includes('labels') ? d.labels : base.labels,
    taints: changes.includes('taints') ? d.taints : base.taints,
    unschedulable: changes.includes('cordon') ? !base.unschedulable : base.unschedulable,
    allocatable: changes.includes('shrink')
      ? scale(0.5)
      : changes.includes('grow')
        ? scale(1.5)
        : a,
  };
}

function updatedPod(base: PodModel, op: Extract<RawOp, { op: 'update' }>): Omit<PodModel, 'id'> {
  switch (op.change) {
    case 'labels':
      return { ...base, labels: { ...base.labels, app: base.labels.app === 'web' ? 'db' : 'web' } };
    case 'ungate':
      // One gate at a time: a pod with two stays gated after the first is removed.
      return { ...base, gates: base.gates.slice(1) };
    case 'tolerate':
      return { ...base, tolerations: [...base.tolerations, op.toleration] };
    case 'terminate':
      return { ...base, terminating: true };
    case 'complete':
      return { ...base, phase: 'Succeeded' };
  }
}

/** The initial objects and the script of a scenario, from its drafts and operations. */
export function assemble(
  nodes: NodeDraft[],
  pods: PodDraft[],
  foreign: { node: number; pod: ForeignDraft }[],
  ops: RawOp[],
): { nodes: NodeModel[]; pods: PodModel[]; steps: Step[] } {
  const a = new Assembler();
  const initialNodes = nodes.map((d, i) => a.node(d, `n${i}`));
  const nodeNames = initialNodes.map((n) => n.name);
  const initialPods = [
    ...pods.map((d) => a.berthPod(d)),
    // A pod bound to a node that may not exist (yet): its charge waits for the node.
    ...foreign.map((f) =>
      a.foreignPod(f.pod, NODE_NAMES[f.node % (nodeNames.length + 1)] as string),
    ),
  ];
  const steps: Step[] = [];
  const sorted = ops.map((op, i) => ({ op, i })).sort((x, y) => x.op.at - y.op.at || x.i - y.i);
  for (const { op } of sorted) {
    switch (op.op) {
      case 'newPod':
        steps.push({ at: op.at, kind: 'createPod', pod: a.berthPod(op.pod) });
        break;
      case 'recreate': {
        const name = pick(a.berthNames(), op.target);
        if (name !== undefined)
          steps.push({ at: op.at, kind: 'createPod', pod: a.berthPod(op.pod, name) });
        break;
      }
      case 'update': {
        // Only bound pods finish (the kubelet runs them): the other scheduler's, here.
        const names =
          op.change === 'complete'
            ? a.boundNames()
            : op.change === 'terminate'
              ? [...a.latestPod.keys()]
              : a.berthNames();
        const base = a.latestPod.get(pick(names, op.target) ?? '');
        if (base === undefined) break;
        const pod: PodModel = { ...updatedPod(base, op), id: a.nextId('p') };
        a.latestPod.set(pod.name, pod);
        steps.push({ at: op.at, kind: 'updatePod', pod });
        break;
      }
      case 'delete': {
        const name = pick([...a.latestPod.keys()], op.target);
        if (name !== undefined) steps.push({ at: op.at, kind: 'deletePod', name });
        break;
      }
      case 'foreign': {
        const name = pick(nodeNames, op.node);
        if (name !== undefined)
          steps.push({ at: op.at, kind: 'createPod', pod: a.foreignPod(op.pod, name) });
        break;
      }
      case 'nodeUpdate': {
        const base = a.latestNode.get(pick(nodeNames, op.target) ?? '');
        if (base === undefined) break;
        const node = a.node(changedNode(base, op.changes, op.draft), base.name);
        steps.push({ at: op.at, kind: 'addNode', node });
        break;
      }
      case 'nodeAdd': {
        const name = NODE_NAMES[nodeNames.length];
        if (name === undefined) break;
        nodeNames.push(name);
        steps.push({ at: op.at, kind: 'addNode', node: a.node(op.node, name) });
        break;
      }
      case 'nodeDelete': {
        const name = pick(nodeNames, op.target);
        if (name !== undefined) steps.push({ at: op.at, kind: 'deleteNode', name });
        break;
      }
      case 'relist':
        steps.push({ at: op.at, kind: 'relist' });
        break;
    }
  }
  return { nodes: initialNodes, pods: initialPods, steps };
}
