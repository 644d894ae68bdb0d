// The differential test's scenario generator: deterministic per seed, valid for the API, independent placements.
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  type Amounts,
  addAmounts,
  certainNode,
  filterReason,
  hostPorts,
  type NodeObj,
  type PodObj,
  type PortObj,
  podRequests,
  requirementMatches,
  type TermObj,
  tolerates,
} from '../e2e/support/scenario-model.ts';
import {
  allFeatures,
  defaultFeatureNames,
  generateScenario,
  rngFrom,
  type Scenario,
} from '../e2e/support/scenarios.ts';

const seeds = Array.from({ length: 60 }, (_, i) => i + 1);
const everything = allFeatures.map((f) => f.name);

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
      const without = generateScenario(seed);
      const withPorts = generateScenario(seed, { features: [...defaultFeatureNames, 'hostPorts'] });
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

  it('gives every pending pod the same verdicts whatever order and nodes the others took', () => {
    // Brute force: schedule the pods in random orders onto random feasible nodes, with the
    // model's filters, and look at each pod's verdicts when its turn comes and at the end.
    for (const seed of seeds) {
      const s = generateScenario(seed, { features: everything });
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
      const s = generateScenario(seed);
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
