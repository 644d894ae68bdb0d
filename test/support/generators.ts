// fast-check generators of whole simulated runs: node and pod models plus a script of API changes.
import fc from 'fast-check';
import type {
  NodeSelectorRequirement,
  NodeSelectorTerm,
  PreferredSchedulingTerm,
  Taint,
  Toleration,
} from '../../src/model/objects.ts';
import type { Amounts, ContainerModel, PodModel, RunScenario } from './run-models.ts';
import {
  assemble,
  type ForeignDraft,
  NODE_NAMES,
  type NodeChange,
  type NodeDraft,
  type PodChange,
  type PodDraft,
  type RawOp,
} from './script-assembly.ts';

const ZONES = ['a', 'b', 'c'] as const;
const DISKS = ['ssd', 'hdd'] as const;

const taint: fc.Arbitrary<Taint> = fc.record({
  key: fc.constantFrom('dedicated', 'gpu'),
  value: fc.constantFrom('a', 'b'),
  effect: fc.constantFrom('NoSchedule', 'NoExecute', 'PreferNoSchedule'),
});

/** Tolerations with and without key, operator, value and effect (kube's matching rules). */
const toleration: fc.Arbitrary<Toleration> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record(
      {
        key: fc.constantFrom('dedicated', 'gpu'),
        operator: fc.constantFrom('Equal', 'Exists'),
        value: fc.constantFrom('a', 'b'),
        effect: fc.constantFrom('NoSchedule', 'NoExecute', 'PreferNoSchedule'),
      },
      { requiredKeys: ['key'] },
    ),
  },
  // Tolerates every taint, the cordon's included.
  { weight: 1, arbitrary: fc.constant<Toleration>({ operator: 'Exists' }) },
  { weight: 1, arbitrary: fc.constant<Toleration>({ operator: 'Exists', effect: 'NoSchedule' }) },
);

const labels: fc.Arbitrary<Record<string, string>> = fc.record(
  { zone: fc.constantFrom(...ZONES), disk: fc.constantFrom(...DISKS) },
  { requiredKeys: [] },
);

const nodeDraft: fc.Arbitrary<NodeDraft> = fc.record({
  labels,
  taints: fc.oneof(
    { weight: 3, arbitrary: fc.constant<Taint[]>([]) },
    fc.array(taint, { maxLength: 2 }),
  ),
  unschedulable: fc.constantFrom(false, false, false, false, true),
  allocatable: fc.record({
    cpuMilli: fc.integer({ min: 1000, max: 8000 }),
    memMi: fc.integer({ min: 1024, max: 16384 }),
    gpus: fc.constantFrom(0, 0, 1, 2),
    pods: fc.oneof(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 8 })),
  }),
});

const requirement: fc.Arbitrary<NodeSelectorRequirement> = fc.oneof(
  fc.record({
    key: fc.constant('zone'),
    operator: fc.constantFrom('In', 'NotIn'),
    values: fc.subarray([...ZONES], { minLength: 1 }),
  }),
  fc.record({
    key: fc.constantFrom('zone', 'disk'),
    operator: fc.constantFrom('Exists', 'DoesNotExist'),
  }),
  fc.record({
    key: fc.constant('disk'),
    operator: fc.constantFrom('In', 'NotIn'),
    values: fc.subarray([...DISKS], { minLength: 1 }),
  }),
);

/** The API server accepts only `metadata.name` In/NotIn with exactly one value. */
const fieldRequirement: fc.Arbitrary<NodeSelectorRequirement> = fc.record({
  key: fc.constant('metadata.name'),
  operator: fc.constantFrom('In', 'NotIn'),
  values: fc.constantFrom(...NODE_NAMES).map((n) => [n]),
});

const term: fc.Arbitrary<NodeSelectorTerm> = fc
  .record({
    matchExpressions: fc.array(requirement, { maxLength: 2 }),
    matchFields: fc.array(fieldRequirement, { maxLength: 1 }),
  })
  .map((t) => ({
    ...(t.matchExpressions.length > 0 ? { matchExpressions: t.matchExpressions } : {}),
    ...(t.matchFields.length > 0 ? { matchFields: t.matchFields } : {}),
  }));

const preferred: fc.Arbitrary<PreferredSchedulingTerm> = fc.record({
  weight: fc.integer({ min: 1, max: 100 }),
  preference: term,
});

const amounts = (cpu: number, mem: number): fc.Arbitrary<Partial<Amounts>> =>
  fc.record(
    {
      cpuMilli: fc.integer({ min: 0, max: cpu }),
      memMi: fc.integer({ min: 0, max: mem }),
      gpus: fc.constantFrom(0, 0, 0, 0, 1),
    },
    { requiredKeys: [] },
  );

/** Requests only, limits only (the API server copies them to requests), both, or neither. */
const container: fc.Arbitrary<ContainerModel> = fc.oneof(
  { weight: 4, arbitrary: amounts(2000, 3072).map((requests) => ({ requests, limits: {} })) },
  { weight: 2, arbitrary: amounts(2000, 3072).map((limits) => ({ requests: {}, limits })) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(amounts(2000, 2048), fc.integer({ min: 0, max: 1000 }))
      .map(([r, extra]) => ({
        requests: r,
        // Limits above requests: only the requests are charged.
        limits: {
          ...(r.cpuMilli === undefined ? {} : { cpuMilli: r.cpuMilli + extra }),
          ...(r.memMi === undefined ? {} : { memMi: r.memMi + extra }),
          ...(r.gpus === undefined ? {} : { gpus: r.gpus }),
        },
      })),
  },
  { weight: 1, arbitrary: fc.constant<ContainerModel>({ requests: {}, limits: {} }) },
);

/** `arb` one time in `n`, else undefined. */
function oneIn<T>(n: number, arb: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> {
  return fc.oneof(
    { weight: n - 1, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: arb },
  );
}

const podDraft: fc.Arbitrary<PodDraft> = fc.record({
  priority: fc.integer({ min: 0, max: 3 }),
  labels: fc.record({ app: fc.constantFrom('web', 'db') }, { requiredKeys: [] }),
  containers: fc.array(container, { minLength: 1, maxLength: 2 }),
  sidecar: oneIn(5, amounts(500, 512)),
  init: oneIn(5, amounts(3000, 4096)),
  podLevel: oneIn(
    6,
    fc.record(
      { cpuMilli: fc.integer({ min: 0, max: 2000 }), memMi: fc.integer({ min: 0, max: 3072 }) },
      { requiredKeys: [] },
    ),
  ),
  overheadMilli: oneIn(6, fc.integer({ min: 0, max: 250 })),
  nodeSelector: oneIn(4, fc.record({ zone: fc.constantFrom(...ZONES) })).map((s) => s ?? {}),
  required: oneIn(4, fc.array(term, { minLength: 1, maxLength: 2 })),
  preferred: fc.array(preferred, { maxLength: 2 }),
  tolerations: fc.array(toleration, { maxLength: 2 }),
  gates: fc.constantFrom<string[]>([], [], [], [], [], ['example.com/quota'], ['a.io/x', 'b.io/y']),
});

/** A berth pod's model (name and id left empty for the caller to fill in). */
export const berthPodModel: fc.Arbitrary<PodModel> = podDraft.map((d) => ({
  ...d,
  id: '',
  name: '',
  schedulerName: 'berth',
  nodeName: undefined,
  phase: undefined,
  terminating: false,
}));

const foreignDraft: fc.Arbitrary<ForeignDraft> = fc.record({
  amounts: amounts(1500, 2048),
  phase: fc.constantFrom('Running', 'Running', 'Running', 'Succeeded'),
});

/**
 * Times of scripted changes: many inside the first bind latencies (a change while binds are
 * in flight: NotFound, Conflict, relist of an assumed pod), the rest spread over a minute.
 */
const at = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 0, max: 40 }) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 3_000 }) },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 60_000 }) },
);

const rawOp: fc.Arbitrary<RawOp> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ op: fc.constant('newPod'), at, pod: podDraft }) },
  {
    weight: 2,
    arbitrary: fc.record({ op: fc.constant('recreate'), at, target: fc.nat(), pod: podDraft }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant('update'),
      at,
      target: fc.nat(),
      change: fc.constantFrom<PodChange>(
        'labels',
        'ungate',
        'ungate',
        'tolerate',
        'terminate',
        'complete',
      ),
      toleration,
    }),
  },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('delete'), at, target: fc.nat() }) },
  {
    weight: 2,
    arbitrary: fc.record({ op: fc.constant('foreign'), at, node: fc.nat(), pod: foreignDraft }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant('nodeUpdate'),
      at,
      target: fc.nat(),
      changes: fc.subarray<NodeChange>(['labels', 'taints', 'cordon', 'shrink', 'grow'], {
        minLength: 1,
      }),
      draft: nodeDraft,
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('nodeAdd'), at, node: nodeDraft }) },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant('nodeDelete'), at, target: fc.nat() }),
  },
  { weight: 4, arbitrary: fc.record({ op: fc.constant('relist'), at }) },
);

/** Sizes of generated runs. */
export interface ScenarioSizes {
  maxNodes: number;
  maxPods: number;
  maxForeign: number;
  maxSteps: number;
}

const defaultSizes: ScenarioSizes = { maxNodes: 4, maxPods: 14, maxForeign: 3, maxSteps: 12 };

/**
 * Whole runs: nodes with labels, taints, cordons and GPUs; berth pods with requests or
 * limits only, sidecars, init containers, pod-level requests, overhead, priorities,
 * tolerations, node selectors, required and preferred node affinity, and scheduling gates;
 * pods of another scheduler already bound; and a script of creations, same-name recreations,
 * updates (ungating among them), deletions, node updates (labels, taints, cordon, allocatable
 * shrink or growth), node additions and deletions and relists, many of them while binds are
 * in flight. The simulator's seed chooses bind failures and watch-before-result orderings.
 */
export function runScenario(sizes: Partial<ScenarioSizes> = {}): fc.Arbitrary<RunScenario> {
  const z = { ...defaultSizes, ...sizes };
  return fc
    .record({
      nodes: fc.array(nodeDraft, { minLength: 1, maxLength: z.maxNodes }),
      pods: fc.array(podDraft, { minLength: 1, maxLength: z.maxPods }),
      foreign: fc.array(fc.record({ node: fc.nat(), pod: foreignDraft }), {
        maxLength: z.maxForeign,
      }),
      ops: fc.array(rawOp, { maxLength: z.maxSteps }),
      seed: fc.integer({ min: 0, max: 1_000_000 }),
      // Slow binds (over the 1 s initial backoff) let retried pods race the binds in flight.
      bindLatencyMs: fc.oneof(
        { weight: 1, arbitrary: fc.constant(0) },
        { weight: 2, arbitrary: fc.integer({ min: 5, max: 40 }) },
        { weight: 3, arbitrary: fc.integer({ min: 500, max: 3_000 }) },
      ),
      bindFailureRate: fc.constantFrom(0, 0, 0.2, 0.5),
      watchFirstRate: fc.constantFrom(0, 0.5, 1),
    })
    .map(({ nodes, pods, foreign, ops, ...knobs }) => ({
      ...assemble(nodes, pods, foreign, ops),
      ...knobs,
    }));
}
