// The differential test's scenario generator and model: deterministic per seed, valid for the API, independent placements, kube's semantics.
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  affinityFilter,
  affinityNotMatch,
  affinityScores,
  existingAntiAffinityNotMatch,
} from '../e2e/support/scenario-affinity.ts';
import {
  type Amounts,
  addAmounts,
  allocatable,
  certainNode,
  filterReason,
  hostPorts,
  type LabelSelectorObj,
  type NodeObj,
  type PodObj,
  type PortObj,
  podRequests,
  requirementMatches,
  type SpreadConstraintObj,
  type TermObj,
  tolerates,
} from '../e2e/support/scenario-model.ts';
import {
  expectationIn,
  resourceScores,
  sequentialExpectations,
} from '../e2e/support/scenario-sequential.ts';
import {
  defaultSelector,
  spreadFilter,
  spreadMissingLabel,
  spreadScores,
} from '../e2e/support/scenario-spread.ts';
import {
  asSelector,
  type Placed,
  selectorMatches,
  type WorkloadObj,
} from '../e2e/support/scenario-topology.ts';
import {
  allFeatures,
  defaultFeatureNames,
  generateScenario,
  rngFrom,
  type Scenario,
  sequentialFeatureNames,
} from '../e2e/support/scenarios.ts';

const seeds = Array.from({ length: 60 }, (_, i) => i + 1);
const everything = allFeatures.map((f) => f.name);
/** Every feature whose pods' fates do not depend on each other (all pods created at once). */
const independent = everything.filter((f) => !sequentialFeatureNames.includes(f));
const independentDefaults = defaultFeatureNames.filter((f) => !sequentialFeatureNames.includes(f));

afterEach(() => {
  vi.restoreAllMocks();
});

function terms(pod: PodObj): TermObj[] {
  const na = pod.spec.affinity?.nodeAffinity;
  return [
    ...(na?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? []),
    ...(na?.preferredDuringSchedulingIgnoredDuringExecution ?? []).map((t) => t.preference),
  ];
}

describe('generateScenario', () => {
  it('gives the same scenario for the same seed and features, without Math.random', () => {
    vi.spyOn(Math, 'random').mockImplementation(() => {
      throw new Error('Math.random called');
    });
    for (const seed of seeds.slice(0, 20)) {
      expect(generateScenario(seed)).toEqual(generateScenario(seed));
      expect(generateScenario(seed, { features: everything })).toEqual(
        generateScenario(seed, { features: everything }),
      );
    }
  });

  it('gives different scenarios for different seeds', () => {
    const texts = new Set(seeds.map((s) => JSON.stringify(generateScenario(s))));
    expect(texts.size).toBe(seeds.length);
  });

  it('leaves the other features draws alone when one feature is switched on', () => {
    for (const seed of seeds.slice(0, 20)) {
      const without = generateScenario(seed, { features: independentDefaults });
      const withPorts = generateScenario(seed, { features: [...independentDefaults, 'hostPorts'] });
      expect(withPorts.nodes).toEqual(without.nodes);
      const stripPorts = (s: Scenario) =>
        s.residents.map((p) => ({
          ...p,
          spec: { ...p.spec, containers: p.spec.containers.map(({ ports: _, ...c }) => c) },
        }));
      expect(stripPorts(withPorts)).toEqual(stripPorts(without));
    }
  });

  it('draws 4–12 nodes and uniquely named pods, pending ones named in creation order', () => {
    for (const seed of seeds) {
      const s = generateScenario(seed, { features: everything });
      expect(s.nodes.length).toBeGreaterThanOrEqual(4);
      expect(s.nodes.length).toBeLessThanOrEqual(12);
      const names = [...s.residents, ...s.pending].map((p) => p.metadata.name);
      expect(new Set(names).size).toBe(names.length);
      // The API lists by name: creation order and list order are the same.
      const pending = s.pending.map((p) => p.metadata.name);
      expect([...pending].sort()).toEqual(pending);
      expect(pending.length).toBeGreaterThan(0);
    }
  });

  it('writes only objects the API server accepts (rules it enforced on earlier drafts)', () => {
    for (const seed of seeds) {
      const s = generateScenario(seed, { features: everything });
      for (const n of s.nodes) {
        const keys = (n.spec.taints ?? []).map((t) => `${t.key}:${t.effect}`);
        expect(new Set(keys).size, `${n.metadata.name} taints unique by key and effect`).toBe(
          keys.length,
        );
      }
      for (const p of [...s.residents, ...s.pending]) {
        for (const t of terms(p)) {
          for (const f of t.matchFields ?? []) expect(f.values).toHaveLength(1);
          for (const r of t.matchExpressions ?? []) {
            if (r.operator === 'Exists' || r.operator === 'DoesNotExist')
              expect(r.values).toBeUndefined();
            else if (r.operator === 'Gt' || r.operator === 'Lt') {
              expect(r.values).toHaveLength(1);
              expect(r.values?.[0]).toMatch(/^\d+$/);
            } else expect(r.values?.length).toBeGreaterThan(0);
          }
        }
        const res = p.spec.containers[0]?.resources ?? {};
        for (const k of ['cpu', 'memory'] as const) {
          const req = res.requests?.[k];
          const lim = res.limits?.[k];
          if (req !== undefined && lim !== undefined)
            expect(Number.parseInt(lim, 10)).toBeGreaterThanOrEqual(Number.parseInt(req, 10));
        }
      }
    }
  });

  it('writes spread constraints, pod affinity and workloads the API server accepts', () => {
    const selectorKeys = (sel: LabelSelectorObj | undefined) => [
      ...Object.keys(sel?.matchLabels ?? {}),
      ...(sel?.matchExpressions ?? []).map((e) => e.key),
    ];
    let constraints = 0;
    let podTerms = 0;
    for (const seed of seeds) {
      const s = generateScenario(seed, { features: everything });
      for (const p of [...s.residents, ...s.pending]) {
        const list = p.spec.topologySpreadConstraints ?? [];
        const pairs = list.map((c) => `${c.topologyKey} ${c.whenUnsatisfiable}`);
        expect(new Set(pairs).size, 'one constraint per key and action').toBe(pairs.length);
        for (const c of list) {
          constraints++;
          expect(c.maxSkew).toBeGreaterThanOrEqual(1);
          if (c.minDomains !== undefined) {
            expect(c.whenUnsatisfiable).toBe('DoNotSchedule');
            expect(c.minDomains).toBeGreaterThanOrEqual(1);
          }
          if (c.matchLabelKeys !== undefined) {
            expect(c.labelSelector).toBeDefined();
            for (const k of c.matchLabelKeys)
              expect(selectorKeys(c.labelSelector)).not.toContain(k);
          }
        }
        const a = p.spec.affinity;
        for (const x of [a?.podAffinity, a?.podAntiAffinity]) {
          const required = x?.requiredDuringSchedulingIgnoredDuringExecution ?? [];
          const preferred = x?.preferredDuringSchedulingIgnoredDuringExecution ?? [];
          for (const w of preferred) {
            expect(w.weight).toBeGreaterThanOrEqual(1);
            expect(w.weight).toBeLessThanOrEqual(100);
          }
          for (const t of [...required, ...preferred.map((w) => w.podAffinityTerm)]) {
            podTerms++;
            expect(t.topologyKey).not.toBe('');
            const keys = [...(t.matchLabelKeys ?? []), ...(t.mismatchLabelKeys ?? [])];
            if (keys.length > 0) expect(t.labelSelector).toBeDefined();
            for (const k of t.matchLabelKeys ?? [])
              expect(selectorKeys(t.labelSelector)).not.toContain(k);
          }
        }
        for (const o of p.metadata.ownerReferences ?? []) {
          expect(o.controller).toBe(true);
          expect(o.uid).toBe(`owner:${o.kind}/${o.name}`);
        }
      }
      for (const w of s.workloads) {
        const t = w.spec.template as { metadata: { labels: Record<string, string> } } | undefined;
        if (w.kind === 'Service') {
          expect(w.spec.clusterIP).toBe('None');
          continue;
        }
        // The API wants a controller's selector to select its own template.
        const labels = t?.metadata.labels ?? {};
        const sel =
          w.kind === 'ReplicationController'
            ? { matchLabels: w.spec.selector as Record<string, string> }
            : (w.spec.selector as LabelSelectorObj);
        expect(selectorMatches(asSelector(sel), labels), `${w.kind}/${w.metadata.name}`).toBe(true);
        expect(w.spec.replicas).toBe(0);
      }
    }
    expect(constraints).toBeGreaterThan(100);
    expect(podTerms).toBeGreaterThan(100);
  });

  it("never binds residents beyond a node's allocatable (the overcommit check would fail the run)", () => {
    for (const seed of seeds) {
      const s = generateScenario(seed, { features: everything });
      for (const n of s.nodes) {
        const used: Amounts = {};
        for (const r of s.residents)
          if (r.spec.nodeName === n.metadata.name) addAmounts(used, podRequests(r));
        const alloc = allocatable(n);
        for (const [r, v] of Object.entries(used))
          expect(v, `seed ${seed} ${n.metadata.name} ${r}`).toBeLessThanOrEqual(alloc[r] ?? 0);
      }
    }
  });

  it('places a scenario one pod at a time exactly when a sequential feature is on, with one priority for all its pods', () => {
    for (const seed of seeds.slice(0, 20)) {
      expect(generateScenario(seed, { features: independent }).sequential).toBe(false);
      for (const f of sequentialFeatureNames) {
        const s = generateScenario(seed, { features: [...independentDefaults, f] });
        expect(s.sequential).toBe(true);
        // kube would preempt an earlier pod of lower priority; berth has no preemption.
        for (const p of s.pending) expect(p.spec.priorityClassName).toBeUndefined();
        expect(s.expectations).toEqual({});
      }
    }
  });

  it('gives every pending pod the same verdicts whatever order and nodes the others took', () => {
    // Brute force: schedule the pods in random orders onto random feasible nodes, with the
    // model's filters, and look at each pod's verdicts when its turn comes and at the end.
    for (const seed of seeds) {
      const s = generateScenario(seed, { features: independent });
      expect(s.sequential).toBe(false);
      for (let trial = 0; trial < 10; trial++) {
        const rng = rngFrom(seed * 1000 + trial);
        const used = new Map(s.nodes.map((n) => [n.metadata.name, {} as Amounts]));
        const ports = new Map(s.nodes.map((n) => [n.metadata.name, [] as PortObj[]]));
        const place = (p: PodObj, node: string) => {
          addAmounts(used.get(node) ?? {}, podRequests(p));
          ports.get(node)?.push(...hostPorts(p));
        };
        for (const r of s.residents) place(r, r.spec.nodeName as string);
        const verdicts = (p: PodObj) =>
          Object.fromEntries(
            s.nodes.map((n) => {
              const name = n.metadata.name;
              return [name, filterReason(p, n, used.get(name) ?? {}, ports.get(name) ?? [])];
            }),
          );
        const order = [...s.pending];
        for (let i = order.length - 1; i > 0; i--) {
          const j = rng.int(i + 1);
          [order[i], order[j]] = [order[j] as PodObj, order[i] as PodObj];
        }
        const left: PodObj[] = [];
        for (const p of order) {
          const want = s.expectations[p.metadata.name];
          const v = verdicts(p);
          const fits = Object.keys(v).filter((n) => v[n] === undefined);
          expect(fits, `seed ${seed} trial ${trial}: ${p.metadata.name}`).toEqual(want?.feasible);
          if (fits.length > 0) place(p, rng.pick(fits));
          else left.push(p);
        }
        for (const p of left) {
          const want = s.expectations[p.metadata.name];
          expect(verdicts(p), `seed ${seed} trial ${trial}: ${p.metadata.name} at the end`).toEqual(
            want?.rejectedBy,
          );
        }
      }
    }
  });

  it('names a certain node only among the feasible ones, and always when there is just one', () => {
    let forced = 0;
    let nowhere = 0;
    let pods = 0;
    for (const seed of seeds) {
      const s = generateScenario(seed, { features: independentDefaults });
      for (const e of Object.values(s.expectations)) {
        pods++;
        if (e.feasible.length === 0) nowhere++;
        if (e.node !== undefined) {
          forced++;
          expect(e.feasible).toContain(e.node);
        }
        if (e.feasible.length === 1) expect(e.node).toBe(e.feasible[0]);
        expect(Object.keys(e.rejectedBy).length + e.feasible.length).toBe(s.nodes.length);
      }
    }
    // A useful mix: some pods fit nowhere, many fit somewhere, some have one possible node.
    expect(nowhere / pods).toBeGreaterThan(0.15);
    expect(nowhere / pods).toBeLessThan(0.6);
    expect(forced).toBeGreaterThan(seeds.length / 2);
  });

  it('refuses an unknown feature name', () => {
    expect(() => generateScenario(1, { features: ['nodeLabels', 'podAffinty'] })).toThrow(
      /unknown scenario feature "podAffinty"/,
    );
  });
});

function node(name: string, labels: Record<string, string>, extra: Partial<NodeObj['spec']> = {}) {
  const r = { cpu: '4', memory: '8Gi', pods: '110' };
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels, annotations: {} },
    spec: extra,
    status: { capacity: r, allocatable: r },
  } satisfies NodeObj;
}

function pod(spec: Partial<PodObj['spec']> = {}): PodObj {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'diff', labels: {} },
    spec: {
      schedulerName: 'default-scheduler',
      terminationGracePeriodSeconds: 0,
      containers: [{ name: 'c', image: 'i', resources: {} }],
      ...spec,
    },
  };
}

const none = {};

describe('the scenario model (kube semantics)', () => {
  it.each([
    [
      'In matches a listed value',
      { key: 'z', operator: 'In', values: ['a', 'b'] },
      { z: 'b' },
      true,
    ],
    ['In needs the label', { key: 'z', operator: 'In', values: ['a'] }, {}, false],
    [
      'NotIn matches a node without the label',
      { key: 'z', operator: 'NotIn', values: ['a'] },
      {},
      true,
    ],
    [
      'NotIn rejects a listed value',
      { key: 'z', operator: 'NotIn', values: ['a'] },
      { z: 'a' },
      false,
    ],
    ['Exists needs the label', { key: 'z', operator: 'Exists' }, { z: '' }, true],
    [
      'DoesNotExist rejects a present label',
      { key: 'z', operator: 'DoesNotExist' },
      { z: 'a' },
      false,
    ],
    ['Gt compares integers', { key: 'g', operator: 'Gt', values: ['3'] }, { g: '10' }, true],
    ['Gt is strict', { key: 'g', operator: 'Gt', values: ['3'] }, { g: '3' }, false],
    [
      'Lt compares integers, not strings',
      { key: 'g', operator: 'Lt', values: ['10'] },
      { g: '9' },
      true,
    ],
    [
      'Gt on a non-integer label matches nothing',
      { key: 'g', operator: 'Gt', values: ['0'] },
      { g: 'x1' },
      false,
    ],
    [
      'Lt on a missing label matches nothing',
      { key: 'g', operator: 'Lt', values: ['9'] },
      {},
      false,
    ],
  ])('%s', (_name, r, labels: Record<string, string>, want) => {
    expect(requirementMatches(r, labels)).toBe(want);
  });

  it.each([
    ['an empty effect tolerates every effect', { key: 'k', operator: 'Exists' }, true],
    ['an empty key with Exists tolerates every taint', { operator: 'Exists' }, true],
    ['Equal needs the same value', { key: 'k', operator: 'Equal', value: 'w' }, false],
    [
      'a different effect does not tolerate',
      { key: 'k', operator: 'Exists', effect: 'NoExecute' },
      false,
    ],
    ['no operator means Equal', { key: 'k', value: 'v' }, true],
  ])('%s', (_name, t, want) => {
    expect(tolerates(t, { key: 'k', value: 'v', effect: 'NoSchedule' })).toBe(want);
  });

  it('rejects by the first failing filter in kube order, and counts residents', () => {
    const cordoned = node(
      'n',
      { z: 'a' },
      { unschedulable: true, taints: [{ key: 'k', effect: 'NoSchedule' }] },
    );
    expect(filterReason(pod(), cordoned, none, [])).toBe('NodeUnschedulable');
    const full = node('n', {});
    const big = pod({
      containers: [{ name: 'c', image: 'i', resources: { limits: { cpu: '3' } } }],
    });
    expect(filterReason(big, full, none, [])).toBeUndefined();
    expect(filterReason(big, full, { cpu: 1001, pods: 1000 }, [])).toBe('Insufficient cpu');
    expect(filterReason(pod(), full, { pods: 110_000 }, [])).toBe('Too many pods');
    const gpu = pod({
      containers: [{ name: 'c', image: 'i', resources: { limits: { 'example.com/gpu': '1' } } }],
    });
    expect(filterReason(gpu, full, none, [])).toBe('Insufficient example.com/gpu');
    const fields = pod({
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [
              { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['m'] }] },
            ],
          },
        },
      },
    });
    expect(filterReason(fields, full, none, [])).toBe('NodeAffinity required');
    expect(filterReason(fields, node('m', {}), none, [])).toBeUndefined();
  });

  it('counts requests as the API and kube do: limits default requests, init containers peak, sidecars add', () => {
    const c = (name: string, cpu: string, extra: object = {}) => ({
      name,
      image: 'i',
      resources: { requests: { cpu } },
      ...extra,
    });
    const p = pod({
      containers: [
        c('a', '100m'),
        { name: 'b', image: 'i', resources: { limits: { cpu: '200m' } } },
      ],
      initContainers: [
        c('side', '50m', { restartPolicy: 'Always' }),
        c('init', '1'), // runs beside the first sidecar only: 1050m
        c('late', '10m', { restartPolicy: 'Always' }),
      ],
    });
    // max(app 300m + sidecars 60m, init 1000m + earlier sidecar 50m)
    expect(podRequests(p)).toEqual({ cpu: 1050, pods: 1000 });
    const small = pod({ containers: [c('a', '2')], initContainers: [c('init', '1')] });
    expect(podRequests(small).cpu).toBe(2000);
  });

  it('is certain of a node only when its static score wins by more than 200', () => {
    const prefer = (weight: number) =>
      pod({
        affinity: {
          nodeAffinity: {
            preferredDuringSchedulingIgnoredDuringExecution: [
              {
                weight,
                preference: { matchExpressions: [{ key: 'z', operator: 'In', values: ['a'] }] },
              },
            ],
          },
        },
      });
    const a = node('a', { z: 'a' });
    const b = node('b', { z: 'b' });
    const spot = node('c', { z: 'b' }, { taints: [{ key: 'spot', effect: 'PreferNoSchedule' }] });
    // Affinity alone: 2 × 100 = 200 ahead, which resource scores could still overturn.
    expect(certainNode(prefer(10), [a, b])).toBeUndefined();
    // Affinity and an untolerated PreferNoSchedule taint on the other: 500 ahead.
    expect(certainNode(prefer(10), [a, spot])).toBe('a');
    // Two nodes share the best score: nobody can say which wins.
    expect(certainNode(prefer(10), [a, node('a2', { z: 'a' }), spot])).toBeUndefined();
    expect(certainNode(pod(), [b])).toBe('b');
    expect(certainNode(pod(), [])).toBeUndefined();
  });
});

/** A pod named `name` with `labels` (and spec fields), in the scenario namespace. */
function labelled(
  name: string,
  labels: Record<string, string>,
  spec: Partial<PodObj['spec']> = {},
): PodObj {
  const p = pod(spec);
  return { ...p, metadata: { ...p.metadata, name, labels } };
}

/** `count` placed pods on `node` with `labels`. */
function placedOn(node: string, labels: Record<string, string>, count = 1, spec = {}): Placed[] {
  return Array.from({ length: count }, (_, i) => ({
    pod: labelled(`${node}-${i}`, labels, spec),
    node,
  }));
}

const fooSelector: LabelSelectorObj = { matchExpressions: [{ key: 'foo', operator: 'Exists' }] };
const hostname = 'kubernetes.io/hostname';

function spreadPod(...constraints: SpreadConstraintObj[]): PodObj {
  return labelled('p', { foo: '' }, { topologySpreadConstraints: constraints });
}

/** The verdicts of `verdicts` as kube's status codes in kube's tests (model reasons → codes). */
function codes(verdicts: Map<string, string | undefined>): Record<string, string> {
  const code = (r: string | undefined) =>
    r === undefined
      ? 'Success'
      : [spreadMissingLabel, affinityNotMatch].includes(r)
        ? 'UnschedulableAndUnresolvable'
        : 'Unschedulable';
  return Object.fromEntries([...verdicts].map(([n, r]) => [n, code(r)]));
}

// Cases from kube 1.34's own tests (pkg/scheduler/framework/plugins/podtopologyspread/
// {filtering,scoring}_test.go, interpodaffinity/{filtering,scoring}_test.go): the model is
// held to kube's expected results, not to berth's.
describe('the scenario model of PodTopologySpread (kube 1.34 test cases)', () => {
  it('pods spread across nodes as 2/2/1, maxSkew 2, fewer domains than minDomains: only the third node fits', () => {
    const nodes = ['node-a', 'node-b', 'node-c'].map((n) => node(n, { node: n }));
    const placed = [
      ...placedOn('node-a', { foo: '' }, 2),
      ...placedOn('node-b', { foo: '' }, 2),
      ...placedOn('node-c', { foo: '' }, 1),
    ];
    const p = spreadPod({
      maxSkew: 2,
      topologyKey: 'node',
      whenUnsatisfiable: 'DoNotSchedule',
      labelSelector: fooSelector,
      minDomains: 4,
    });
    expect(codes(spreadFilter(p, { nodes, placed, workloads: [] }))).toEqual({
      'node-a': 'Unschedulable',
      'node-b': 'Unschedulable',
      'node-c': 'Success',
    });
  });

  it.each([
    ['honored: the tainted node is no domain', 'Honor' as const, 'Success'],
    ['ignored: the tainted node counts', undefined, 'Unschedulable'],
  ])('NodeTaintsPolicy %s', (_name, policy, nodeY) => {
    const taint = { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' };
    const nodes = [
      node('node-a', { node: 'node-a', foo: '' }),
      node('node-b', { node: 'node-b', foo: '' }),
      node('node-x', { node: 'node-x', foo: '' }),
      node('node-y', { node: 'node-y' }, { taints: [taint] }),
    ];
    const placed = [
      ...placedOn('node-a', { foo: '' }),
      ...placedOn('node-b', { foo: '' }),
      ...placedOn('node-y', { foo: '' }),
    ];
    const p = spreadPod({
      maxSkew: 1,
      topologyKey: 'node',
      whenUnsatisfiable: 'DoNotSchedule',
      labelSelector: fooSelector,
      ...(policy === undefined ? {} : { nodeTaintsPolicy: policy }),
    });
    expect(codes(spreadFilter(p, { nodes, placed, workloads: [] }))).toEqual({
      'node-a': 'Unschedulable',
      'node-b': 'Unschedulable',
      'node-x': 'Success',
      'node-y': nodeY,
    });
  });

  it("two constraints on zone and node, absence of label 'node' on node-x, spreads = [1/1, 1/0/0/1]", () => {
    const nodes = [
      node('node-a', { zone: 'zone1', node: 'node-a' }),
      node('node-b', { zone: 'zone1', node: 'node-b' }),
      node('node-x', { zone: 'zone2' }),
      node('node-y', { zone: 'zone2', node: 'node-y' }),
    ];
    const placed = [...placedOn('node-a', { foo: '' }), ...placedOn('node-y', { foo: '' })];
    const c = (topologyKey: string): SpreadConstraintObj => ({
      maxSkew: 1,
      topologyKey,
      whenUnsatisfiable: 'DoNotSchedule',
      labelSelector: fooSelector,
    });
    expect(
      codes(spreadFilter(spreadPod(c('zone'), c('node')), { nodes, placed, workloads: [] })),
    ).toEqual({
      'node-a': 'Unschedulable',
      'node-b': 'Success',
      'node-x': 'UnschedulableAndUnresolvable',
      'node-y': 'Unschedulable',
    });
  });

  const spread4 = () => [
    ...placedOn('node-a', { foo: '' }, 4),
    ...placedOn('node-b', { foo: '' }, 2),
    ...placedOn('node-x', { foo: '' }, 1),
    ...placedOn('node-y', { foo: '' }, 3),
  ];

  it('system defaulting, nodes without zone, pods matching a Service: 44/66/77/100', () => {
    const nodes = ['node-a', 'node-b', 'node-c', 'node-d'].map((n) => node(n, { [hostname]: n }));
    const placed = [
      ...placedOn('node-a', { foo: '' }, 4),
      ...placedOn('node-b', { foo: '' }, 3),
      ...placedOn('node-c', { foo: '' }, 2),
      ...placedOn('node-d', { foo: '' }, 1),
    ];
    const svc: WorkloadObj = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 's', namespace: 'diff' },
      spec: { selector: { foo: '' } },
    };
    const world = { nodes, placed, workloads: [svc] };
    expect(spreadScores(labelled('p', { foo: '' }), nodes, world)).toEqual([44, 66, 77, 100]);
    // Without the Service the pod has no default constraints: PreScore skips.
    expect(spreadScores(labelled('p', { foo: '' }), nodes, { ...world, workloads: [] })).toEqual([
      0, 0, 0, 0,
    ]);
  });

  it('one constraint on hostname, 3 of 4 nodes candidates: 33/83/100; one lacking the key: 16/0/100', () => {
    const all = ['node-a', 'node-b', 'node-x', 'node-y'].map((n) => node(n, { [hostname]: n }));
    const p = spreadPod({
      maxSkew: 1,
      topologyKey: hostname,
      whenUnsatisfiable: 'ScheduleAnyway',
      labelSelector: fooSelector,
    });
    const world = { nodes: all, placed: spread4(), workloads: [] };
    expect(spreadScores(p, all.slice(0, 3), world)).toEqual([33, 83, 100]);
    const b = node('node-b', { n: 'node-b' });
    const nodes = [all[0] as NodeObj, b, all[2] as NodeObj, all[3] as NodeObj];
    expect(spreadScores(p, nodes.slice(0, 3), { ...world, nodes })).toEqual([16, 0, 100]);
  });

  it('one constraint on zone, 3 of 4 nodes candidates: 75/75/100', () => {
    const nodes = [
      node('node-a', { zone: 'zone1', [hostname]: 'node-a' }),
      node('node-b', { zone: 'zone1', [hostname]: 'node-b' }),
      node('node-x', { zone: 'zone2', [hostname]: 'node-x' }),
      node('node-y', { zone: 'zone2', [hostname]: 'node-y' }),
    ];
    const p = spreadPod({
      maxSkew: 1,
      topologyKey: 'zone',
      whenUnsatisfiable: 'ScheduleAnyway',
      labelSelector: fooSelector,
    });
    expect(spreadScores(p, nodes.slice(0, 3), { nodes, placed: spread4(), workloads: [] })).toEqual(
      [75, 75, 100],
    );
  });

  it('deduces the default selector from Services and the controller, as kube does', () => {
    const rs: WorkloadObj = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'rs', namespace: 'diff' },
      spec: { selector: { matchExpressions: [{ key: 'rs', operator: 'In', values: ['a', 'b'] }] } },
    };
    const svc: WorkloadObj = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 's', namespace: 'diff' },
      spec: { selector: { svc: 's1' } },
    };
    const owned = labelled('p', { svc: 's1', rs: 'a' });
    owned.metadata.ownerReferences = [
      { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u', controller: true },
    ];
    const world = { nodes: [], placed: [], workloads: [rs, svc] };
    const sel = defaultSelector(owned, world);
    expect(selectorMatches(sel, { svc: 's1', rs: 'b' })).toBe(true);
    expect(selectorMatches(sel, { svc: 's1', rs: 'c' })).toBe(false);
    expect(selectorMatches(sel, { rs: 'a' })).toBe(false);
    // A controller that does not exist adds nothing; a non-controller owner is no controller.
    owned.metadata.ownerReferences = [
      { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'gone', uid: 'u', controller: true },
    ];
    expect(selectorMatches(defaultSelector(owned, world), { svc: 's1' })).toBe(true);
  });
});

describe('the scenario model of InterPodAffinity (kube 1.34 test cases)', () => {
  const required = (key: string, value: string, topologyKey: string) => ({
    labelSelector: { matchExpressions: [{ key, operator: 'In', values: [value] }] },
    topologyKey,
  });

  it('lets the first pod of a collection go anywhere its topology keys exist, and nowhere else', () => {
    const p = labelled(
      'p',
      { foo: 'bar', service: 'securityscan' },
      {
        affinity: {
          podAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: [
              required('foo', 'bar', 'zone'),
              required('service', 'securityscan', 'zone'),
            ],
          },
        },
      },
    );
    const placed = placedOn('nodeA', { foo: 'bar' });
    const zoned = [node('nodeA', { zone: 'az1' }), node('nodeB', { zone: 'az2' })];
    expect(codes(affinityFilter(p, { nodes: zoned, placed, workloads: [] }))).toEqual({
      nodeA: 'Success',
      nodeB: 'Success',
    });
    const unzoned = [node('nodeA', { zoneLabel: 'az1' }), node('nodeB', { zoneLabel: 'az2' })];
    expect(codes(affinityFilter(p, { nodes: unzoned, placed, workloads: [] }))).toEqual({
      nodeA: 'UnschedulableAndUnresolvable',
      nodeB: 'UnschedulableAndUnresolvable',
    });
  });

  it('rejects both nodes of a region when any anti-affinity term matches a pod there', () => {
    const p = labelled(
      'p',
      {},
      {
        affinity: {
          podAntiAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: [
              required('foo', 'abc', 'region'),
              required('service', 'securityscan', 'zone'),
            ],
          },
        },
      },
    );
    const nodes = [
      node('nodeA', { region: 'r1', zone: 'z1' }),
      node('nodeB', { region: 'r1', zone: 'z2' }),
    ];
    const placed = placedOn('nodeA', { foo: 'abc', service: 'securityscan' });
    expect(codes(affinityFilter(p, { nodes, placed, workloads: [] }))).toEqual({
      nodeA: 'Unschedulable',
      nodeB: 'Unschedulable',
    });
  });

  it("honours an existing pod's anti-affinity against the incoming pod (symmetry)", () => {
    const nodes = [node('nodeA', { [hostname]: 'nodeA' }), node('nodeB', { [hostname]: 'nodeB' })];
    const placed = placedOn('nodeA', {}, 1, {
      affinity: {
        podAntiAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [required('foo', 'bar', hostname)],
        },
      },
    });
    const verdicts = affinityFilter(labelled('p', { foo: 'bar' }), {
      nodes,
      placed,
      workloads: [],
    });
    expect(verdicts.get('nodeA')).toBe(existingAntiAffinityNotMatch);
    expect(verdicts.get('nodeB')).toBeUndefined();
  });

  const preferred = (weight: number, exprs: NonNullable<LabelSelectorObj['matchExpressions']>) => ({
    weight,
    podAffinityTerm: { labelSelector: { matchExpressions: exprs }, topologyKey: 'region' },
  });
  const nodes3 = [
    node('node1', { region: 'China' }),
    node('node2', { region: 'India' }),
    node('node3', { az: 'az1' }),
  ];

  it('scores preferred affinity per region: 100/0/0, and 20/100/0 with two weighted terms', () => {
    const placed = [
      ...placedOn('node1', { security: 'S1' }),
      ...placedOn('node2', { security: 'S2' }),
      ...placedOn('node3', { security: 'S1' }),
    ];
    const world = { nodes: nodes3, placed, workloads: [] };
    const stayWithS1 = labelled(
      'p',
      { security: 'S1' },
      {
        affinity: {
          podAffinity: {
            preferredDuringSchedulingIgnoredDuringExecution: [
              preferred(5, [{ key: 'security', operator: 'In', values: ['S1'] }]),
            ],
          },
        },
      },
    );
    expect(affinityScores(stayWithS1, nodes3, world)).toEqual([100, 0, 0]);
    const affinity3 = labelled(
      'p',
      { security: 'S1' },
      {
        affinity: {
          podAffinity: {
            preferredDuringSchedulingIgnoredDuringExecution: [
              preferred(8, [
                { key: 'security', operator: 'NotIn', values: ['S1'] },
                { key: 'security', operator: 'In', values: ['S2'] },
              ]),
              preferred(2, [
                { key: 'security', operator: 'Exists' },
                { key: 'wrongkey', operator: 'DoesNotExist' },
              ]),
            ],
          },
        },
      },
    );
    expect(affinityScores(affinity3, nodes3, world)).toEqual([20, 100, 0]);
  });

  it("scores existing pods' required affinity the incoming pod matches (hardPodAffinityWeight 1): 100/100/0", () => {
    const hard = {
      affinity: {
        podAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [
            {
              labelSelector: {
                matchExpressions: [{ key: 'security', operator: 'In', values: ['S1', 'value2'] }],
              },
              topologyKey: 'region',
            },
          ],
        },
      },
    };
    const placed = [
      ...placedOn('node1', { security: 'S1' }, 1, hard),
      ...placedOn('node2', { security: 'S2' }, 1, hard),
    ];
    const p = labelled('p', { security: 'S1' });
    expect(affinityScores(p, nodes3, { nodes: nodes3, placed, workloads: [] })).toEqual([
      100, 100, 0,
    ]);
  });
});

describe('the sequential model (whole default score along a history)', () => {
  it('counts LeastAllocated on non-zero requests and BalancedAllocation on real ones', () => {
    const big = {
      ...node('big', {}),
      status: { capacity: {}, allocatable: { cpu: '4', memory: '8Gi', pods: '110' } },
    };
    const p = labelled(
      'p',
      {},
      {
        containers: [{ name: 'c', image: 'i', resources: { requests: { cpu: '1' } } }],
      },
    );
    // LeastAllocated: cpu (4000−1000)·100/4000 = 75, memory (8Gi−200Mi)·100/8Gi = 97 → 86;
    // BalancedAllocation (kube 1.36+): balance with the pod, fractions 0.25 and 0 →
    // (1 − 0.125)·100 = 87; without it, 0 and 0 → 100; 50 + trunc((50 + 87 − 100) / 2) = 68.
    expect(resourceScores(p, [big], { nodes: [big], placed: [], workloads: [] })).toEqual([
      86 + 68,
    ]);
    // A BestEffort pod: LeastAllocated only, with 100m/200Mi: (3900·100/4000 = 97, 97) → 97.
    expect(
      resourceScores(labelled('q', {}), [big], { nodes: [big], placed: [], workloads: [] }),
    ).toEqual([97]);
  });

  it('follows the history kube-scheduler made: a later pod sees the earlier ones where kube put them', () => {
    const hard: SpreadConstraintObj = {
      maxSkew: 1,
      topologyKey: hostname,
      whenUnsatisfiable: 'DoNotSchedule',
      labelSelector: { matchLabels: { app: 'web' } },
    };
    const web = (name: string) =>
      labelled(name, { app: 'web' }, { topologySpreadConstraints: [hard] });
    const s: Scenario = {
      ...generateScenario(1, { features: independent }),
      nodes: [node('a', { [hostname]: 'a' }), node('b', { [hostname]: 'b' })],
      workloads: [],
      residents: [],
      pending: [web('p-00'), web('p-01'), web('p-02')],
      sequential: true,
      expectations: {},
    };
    const e = sequentialExpectations(s, { 'p-00': { node: 'a' }, 'p-01': { node: 'b' } });
    expect(e['p-00']?.feasible).toEqual(['a', 'b']);
    expect(e['p-01']).toMatchObject({ feasible: ['b'], node: 'b' });
    expect(e['p-02']?.feasible).toEqual(['a', 'b']);
    // Had kube put p-01 on a too, the model would say so (and flag kube: a is skewed).
    expect(
      sequentialExpectations(s, { 'p-00': { node: 'a' }, 'p-01': { node: 'a' } })['p-02']?.feasible,
    ).toEqual(['b']);
  });

  it('names a node only when its total leads every other feasible node', () => {
    const a = node('a', {});
    const spot = node('b', {}, { taints: [{ key: 'spot', effect: 'PreferNoSchedule' }] });
    const world = { nodes: [a, spot], placed: [], workloads: [] };
    // Same shape, same usage: TaintToleration alone decides (3 × 100 ahead).
    expect(expectationIn(labelled('p', {}), world).node).toBe('a');
    // Two identical nodes tie: a random pick, nothing to compare.
    expect(
      expectationIn(labelled('p', {}), { ...world, nodes: [a, node('c', {})] }).node,
    ).toBeUndefined();
  });
});
