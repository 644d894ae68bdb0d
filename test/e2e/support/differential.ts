// Differential runs: load a generated scenario into a reset control plane, read what a scheduler did, compare two.
import { type Api, waitForReadyNodes } from './api.ts';
import { overcommits } from './invariants.ts';
import type { NodeJson, PodJson } from './kubectl.ts';
import { podScheduledCondition } from './kubectl.ts';
import { namespaceLabelsByName } from './scenario-basics.ts';
import { ownerPlaceholder } from './scenario-features-topology.ts';
import type { PodObj } from './scenario-model.ts';
import type { WorkloadObj } from './scenario-topology.ts';
import { priorityClasses, type Scenario } from './scenarios.ts';
import { delay, waitFor } from './wait.ts';

/** What one scheduler did with one pending pod once it settled. */
export interface Outcome {
  /** The node it was bound to; undefined when it stayed pending. */
  node?: string;
  /** PodScheduled=False reason and message, when pending. */
  reason?: string;
  message?: string;
}

/** Outcomes by pending pod name. */
export type Outcomes = Record<string, Outcome>;

type List<T> = { items: T[] };

async function createIgnoringConflict(api: Api, path: string, body: unknown): Promise<void> {
  const r = await api.request('POST', path, body);
  if (r.status !== 201 && r.status !== 409)
    throw new Error(`POST ${path}: HTTP ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
}

/** The collection path of a workload kind in `namespace`. */
function workloadsPath(kind: WorkloadObj['kind'], namespace: string): string {
  switch (kind) {
    case 'Service':
      return `/api/v1/namespaces/${namespace}/services`;
    case 'ReplicationController':
      return `/api/v1/namespaces/${namespace}/replicationcontrollers`;
    case 'ReplicaSet':
      return `/apis/apps/v1/namespaces/${namespace}/replicasets`;
    case 'StatefulSet':
      return `/apis/apps/v1/namespaces/${namespace}/statefulsets`;
  }
}

const workloadKinds: readonly WorkloadObj['kind'][] = [
  'Service',
  'ReplicaSet',
  'StatefulSet',
  'ReplicationController',
];

/**
 * Deletes every pod (grace 0), every node and the scenario namespaces' Services and
 * controllers, then waits until the API lists none, so the next scenario starts from
 * nothing. PriorityClasses and the namespace stay (they are the same for every scenario).
 */
export async function resetCluster(api: Api): Promise<void> {
  const namespaces = await api.ok<List<{ metadata: { name: string } }>>(
    'GET',
    '/api/v1/namespaces',
  );
  for (const ns of namespaces.items)
    await api.ok('DELETE', `/api/v1/namespaces/${ns.metadata.name}/pods?gracePeriodSeconds=0`);
  await api.ok('DELETE', '/api/v1/nodes');
  const listWorkloads = async () => {
    const names: string[] = [];
    for (const kind of workloadKinds)
      for (const ns of Object.keys(namespaceLabelsByName)) {
        const path = workloadsPath(kind, ns);
        const r = await api.request<List<{ metadata: { name: string } }>>('GET', path);
        if (r.status === 404) continue; // the namespace does not exist yet
        if (r.status !== 200) throw new Error(`GET ${path}: HTTP ${r.status}`);
        for (const w of r.body.items) names.push(`${path}/${w.metadata.name}`);
      }
    return names;
  };
  for (const path of await listWorkloads()) {
    // Without a garbage collector an `orphan` finalizer (a ReplicationController's default)
    // would never be removed: delete in the background, which adds none.
    const r = await api.request('DELETE', path, {
      apiVersion: 'v1',
      kind: 'DeleteOptions',
      propagationPolicy: 'Background',
    });
    if (r.status !== 200 && r.status !== 202 && r.status !== 404)
      throw new Error(`DELETE ${path}: HTTP ${r.status}`);
  }
  await waitFor('no pods, no nodes and no workloads', async () => {
    const [pods, nodes, workloads] = await Promise.all([
      api.ok<List<PodJson>>('GET', '/api/v1/pods'),
      api.ok<List<NodeJson>>('GET', '/api/v1/nodes'),
      listWorkloads(),
    ]);
    return {
      ok: pods.items.length === 0 && nodes.items.length === 0 && workloads.length === 0,
      seen: { pods: pods.items.length, nodes: nodes.items.length, workloads },
    };
  });
}

/** The uids of a loaded scenario's workloads, by `ownerPlaceholder(kind, name)`. */
export type OwnerUids = ReadonlyMap<string, string>;

/** A uid no object has: an ownerReference to a controller that does not exist. */
const missingOwnerUid = '00000000-0000-4000-8000-000000000000';

/** `pod` with each ownerReference's placeholder uid replaced by the loaded workload's (a copy). */
export function withOwnerUids(pod: PodObj, uids: OwnerUids): PodObj {
  const refs = pod.metadata.ownerReferences;
  if (refs === undefined) return pod;
  const ownerReferences = refs.map((r) => ({ ...r, uid: uids.get(r.uid) ?? missingOwnerUid }));
  return { ...pod, metadata: { ...pod.metadata, ownerReferences } };
}

/**
 * Creates the scenario on an empty control plane, one object at a time in the scenario's
 * order: PriorityClasses and namespaces (if missing), nodes (then waits until kwok reports
 * them Ready), workloads, residents (then waits until kwok runs them), and, unless the
 * scenario is sequential, the pending pods. Returns the workloads' uids.
 */
export async function loadScenario(api: Api, scenario: Scenario): Promise<OwnerUids> {
  for (const pc of priorityClasses)
    await createIgnoringConflict(api, '/apis/scheduling.k8s.io/v1/priorityclasses', {
      apiVersion: 'scheduling.k8s.io/v1',
      kind: 'PriorityClass',
      metadata: { name: pc.name },
      value: pc.value,
    });
  for (const [name, labels] of Object.entries(namespaceLabelsByName))
    await createIgnoringConflict(api, '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name, labels },
    });
  for (const n of scenario.nodes) await api.ok('POST', '/api/v1/nodes', n);
  await waitForReadyNodes(api, scenario.nodes.length);
  const uids = new Map<string, string>();
  for (const w of scenario.workloads) {
    const created = await api.ok<{ metadata: { uid: string } }>(
      'POST',
      workloadsPath(w.kind, w.metadata.namespace),
      w,
    );
    uids.set(ownerPlaceholder(w.kind, w.metadata.name), created.metadata.uid);
  }
  const podsPath = `/api/v1/namespaces/${scenario.namespace}/pods`;
  for (const p of scenario.residents)
    await api.ok('POST', `/api/v1/namespaces/${p.metadata.namespace}/pods`, withOwnerUids(p, uids));
  await waitFor('kwok to run every resident', async () => {
    const pods = (await api.ok<List<PodJson>>('GET', '/api/v1/pods')).items;
    const running = pods.filter((p) => p.status?.phase === 'Running');
    return { ok: running.length === scenario.residents.length, seen: `${running.length}` };
  });
  if (!scenario.sequential)
    for (const p of scenario.pending) await api.ok('POST', podsPath, withOwnerUids(p, uids));
  return uids;
}

/** What a scheduler did with `pod` so far: bound, marked unschedulable, or nothing yet (undefined). */
export function outcomeOf(pod: PodJson): Outcome | undefined {
  if (pod.spec.nodeName !== undefined) return { node: pod.spec.nodeName };
  const c = podScheduledCondition(pod);
  if (c?.status !== 'False' || c.message === undefined) return undefined;
  return { reason: c.reason, message: c.message };
}

async function readOutcomes(api: Api, scenario: Scenario) {
  const pods = (await api.ok<List<PodJson>>('GET', `/api/v1/namespaces/${scenario.namespace}/pods`))
    .items;
  const byName = new Map(pods.map((p) => [p.metadata.name, p]));
  const outcomes: Outcomes = {};
  const waiting: string[] = [];
  for (const p of scenario.pending) {
    const pod = byName.get(p.metadata.name);
    const o = pod === undefined ? undefined : outcomeOf(pod);
    if (o === undefined) waiting.push(p.metadata.name);
    else outcomes[p.metadata.name] = o;
  }
  return { outcomes, waiting };
}

/**
 * Waits until every pending pod of `scenario` is bound or has PodScheduled=False with a
 * message, and two reads `quietMs` apart agree; returns those outcomes. `checkAlive` throws
 * (a GiveUp) when the scheduler under test has exited.
 */
export async function settledOutcomes(
  api: Api,
  scenario: Scenario,
  checkAlive: () => void,
  { timeoutMs = 60_000, quietMs = 1_000 } = {},
): Promise<Outcomes> {
  let previous = '';
  return waitFor(
    `every pending pod of seed ${scenario.seed} bound or marked unschedulable`,
    async () => {
      checkAlive();
      const { outcomes, waiting } = await readOutcomes(api, scenario);
      const text = JSON.stringify(outcomes);
      const ok = waiting.length === 0 && text === previous;
      previous = waiting.length === 0 ? text : '';
      if (waiting.length === 0 && !ok) await delay(quietMs);
      return { ok, seen: ok ? outcomes : { waiting } };
    },
    { timeoutMs, intervalMs: 300 },
  ) as Promise<Outcomes>;
}

/** Nodes over capacity right now (cpu, memory, pod slots), as `node/resource` strings. */
export async function overcommitted(api: Api): Promise<string[]> {
  const [nodes, pods] = await Promise.all([
    api.ok<List<NodeJson>>('GET', '/api/v1/nodes'),
    api.ok<List<PodJson>>('GET', '/api/v1/pods'),
  ]);
  return overcommits(nodes.items, pods.items).map((o) => `${o.node}/${o.resource}`);
}

/**
 * The filters' sentence of a PodScheduled message (`0/N nodes are available: … .`): kube's
 * FitError appends a space and what its PostFilter plugins said (DynamicResources' "no new
 * claims to deallocate", DefaultPreemption's "preemption: …").
 */
export function filtersSentence(message: string): string {
  return message.replace(/\. .*$/s, '.');
}

/**
 * Whether berth's PodScheduled message says what kube-scheduler's does: the whole message,
 * PostFilter part included (a berth message without one, from a profile without
 * PostFilters, is held to kube's filters' sentence).
 */
export function sameMessage(kube: string | undefined, berth: string | undefined): boolean {
  if (kube === undefined || berth === undefined) return kube === berth;
  return filtersSentence(berth) === berth ? filtersSentence(kube) === berth : kube === berth;
}

/** What kind of disagreement a mismatch is. */
export type MismatchKind =
  /** Bound by one scheduler, pending with the other. */
  | 'schedulable'
  /** Pending in both, with different reasons or filter sentences. */
  | 'message'
  /** Bound to different nodes although the scenario allows only one. */
  | 'node'
  /** berth bound it to a node the model says does not fit. */
  | 'berth-infeasible'
  /** kube-scheduler contradicts the generator's model: scenario-model.ts is wrong, not berth. */
  | 'model';

/** One disagreement about one pod. */
export interface Mismatch {
  pod: string;
  kind: MismatchKind;
  detail: string;
}

function describe(o: Outcome | undefined): string {
  if (o === undefined) return 'no outcome';
  if (o.node !== undefined) return `bound to ${o.node}`;
  return `pending (${o.reason}): ${JSON.stringify(o.message)}`;
}

/**
 * Compares kube-scheduler's and berth's outcomes pod by pod: schedulable in both or in
 * neither; for pods pending in both, the same reason and filter sentence; the same node
 * wherever the scenario allows exactly one. Also checks kube-scheduler against the
 * generator's model (a 'model' mismatch means the harness's premise is broken) and that
 * berth bound nothing where the model says it cannot fit. Pods in `skip` are not compared.
 */
export function compareOutcomes(
  scenario: Scenario,
  kube: Outcomes,
  berth: Outcomes,
  skip: ReadonlySet<string> = new Set(),
): Mismatch[] {
  const out: Mismatch[] = [];
  for (const p of scenario.pending) {
    const pod = p.metadata.name;
    if (skip.has(pod)) continue;
    const want = scenario.expectations[pod];
    const k = kube[pod];
    const b = berth[pod];
    const add = (kind: MismatchKind, detail: string) => out.push({ pod, kind, detail });
    if (want === undefined || k === undefined || b === undefined) {
      add(
        'schedulable',
        `missing: expectation ${want !== undefined}, ${describe(k)}, ${describe(b)}`,
      );
      continue;
    }
    const fits = want.feasible.length > 0;
    if (
      (k.node !== undefined) !== fits ||
      (k.node !== undefined && !want.feasible.includes(k.node))
    )
      add('model', `model says fits on [${want.feasible}] but kube-scheduler ${describe(k)}`);
    else if (want.node !== undefined && k.node !== want.node)
      add('model', `model says only ${want.node} can win but kube-scheduler ${describe(k)}`);
    if (b.node !== undefined && !want.feasible.includes(b.node))
      add('berth-infeasible', `berth ${describe(b)}, model fits it on [${want.feasible}]`);
    if ((k.node === undefined) !== (b.node === undefined)) {
      add('schedulable', `kube-scheduler ${describe(k)}; berth ${describe(b)}`);
    } else if (k.node === undefined) {
      if (k.reason !== b.reason || !sameMessage(k.message, b.message))
        add('message', `kube-scheduler ${describe(k)}; berth ${describe(b)}`);
    } else if (want.node !== undefined && k.node !== b.node) {
      add('node', `only ${want.node} can win; kube-scheduler ${describe(k)}; berth ${describe(b)}`);
    }
  }
  return out;
}

/** The parts of a pod spec that decide where it goes (for mismatch reports). */
export function schedulingSpec(scenario: Scenario, pod: string): Record<string, unknown> {
  const p = scenario.pending.find((q) => q.metadata.name === pod);
  if (p === undefined) return {};
  const { nodeSelector, affinity, tolerations, priorityClassName, topologySpreadConstraints } =
    p.spec;
  const c = p.spec.containers[0];
  const { labels, ownerReferences } = p.metadata;
  return {
    labels,
    ...(ownerReferences === undefined
      ? {}
      : { owner: ownerReferences.map((o) => `${o.kind}/${o.name}`) }),
    resources: c?.resources,
    ...(topologySpreadConstraints === undefined ? {} : { topologySpreadConstraints }),
    ...(c?.ports === undefined ? {} : { ports: c.ports }),
    ...(nodeSelector === undefined ? {} : { nodeSelector }),
    ...(affinity === undefined ? {} : { affinity }),
    ...(tolerations === undefined ? {} : { tolerations }),
    ...(priorityClassName === undefined ? {} : { priorityClassName }),
  };
}

/** A multi-line report of `mismatches` with what is needed to reproduce them. */
export function formatMismatches(
  scenario: Scenario,
  mismatches: readonly Mismatch[],
  kube: Outcomes,
  berth: Outcomes,
): string {
  const lines = [
    `seed ${scenario.seed}, features [${scenario.features.join(', ')}]: ${mismatches.length} mismatch(es)`,
    `  reproduce: BERTH_DIFF_SEED=${scenario.seed} BERTH_DIFF_FEATURES=${scenario.features.join(',')} npx vitest run --config vitest.e2e.config.ts test/e2e/differential.e2e.test.ts`,
  ];
  for (const m of mismatches) {
    const want = scenario.expectations[m.pod];
    lines.push(
      `- ${scenario.namespace}/${m.pod} [${m.kind}] ${m.detail}`,
      `    spec: ${JSON.stringify(schedulingSpec(scenario, m.pod))}`,
      `    model: fits [${want?.feasible ?? []}]${want?.node === undefined ? '' : `, must go to ${want.node}`}; rejected by ${JSON.stringify(want?.rejectedBy ?? {})}`,
      ...(want?.scores === undefined ? [] : [`    model scores: ${JSON.stringify(want.scores)}`]),
      `    kube-scheduler: ${describe(kube[m.pod])}`,
      `    berth:          ${describe(berth[m.pod])}`,
    );
  }
  return lines.join('\n');
}

/** A one-line description of the scenario's nodes (for the run log). */
export function describeNodes(scenario: Scenario): string {
  return scenario.nodes
    .map((n) => {
      const a = n.status.allocatable;
      const taints = (n.spec.taints ?? []).map((t) => `${t.key}:${t.effect}`).join('+');
      const zone = n.metadata.labels['topology.kubernetes.io/zone'];
      return `${n.metadata.name}(${a.cpu},${a.memory},${a.pods}${zone === undefined ? '' : `,${zone}`}${n.spec.unschedulable ? ',cordoned' : ''}${taints === '' ? '' : `,${taints}`})`;
    })
    .join(' ');
}
