// Table-driven tests of DefaultPreemption from kube's documented rules: victims, reprieve, PDBs, node choice, eligibility.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nodeObject, podObject } from '../../../test/support/objects.ts';
import { budgetsOf } from '../../cluster/disruption-budgets.ts';
import { podInfoFromObject } from '../../cluster/pod-info.ts';
import { initialState, reduce } from '../../cluster/reducer.ts';
import type { ClusterState, NodeInfo, PodInfo } from '../../cluster/types.ts';
import type { BerthEvent } from '../../events/types.ts';
import type { KubeRelease } from '../../model/kube-release.ts';
import { defaultProfile, profileFromConfig } from '../../plugins/registry.ts';
import { type CycleResult, scheduleOne } from '../cycle.ts';
import { seededRng } from '../rng.ts';
import { selectVictimsOnNode } from './victims.ts';

/** A pod of `priority` asking `cpu`, optionally bound and started at `started` (ms). */
interface PodSpec {
  name: string;
  cpu: string;
  priority?: number;
  node?: string;
  started?: number;
  labels?: Record<string, string>;
  terminatingByPreemption?: boolean;
  preemptionPolicy?: string;
  nominated?: string;
}

function podOf(p: PodSpec) {
  const o = podObject(p.name, {
    requests: { cpu: p.cpu },
    ...(p.priority === undefined ? {} : { priority: p.priority }),
    ...(p.node === undefined ? {} : { nodeName: p.node }),
    ...(p.labels === undefined ? {} : { labels: p.labels }),
    schedulerName: 'berth',
  });
  o.metadata.uid = `uid-${p.name}`;
  o.status = { phase: p.node === undefined ? 'Pending' : 'Running' };
  if (p.started !== undefined) o.status.startTime = new Date(p.started).toISOString();
  if (p.nominated !== undefined) o.status.nominatedNodeName = p.nominated;
  if (p.preemptionPolicy !== undefined)
    (o.spec as Record<string, unknown>).preemptionPolicy = p.preemptionPolicy;
  if (p.terminatingByPreemption === true) {
    o.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
    o.status.conditions = [
      { type: 'DisruptionTarget', status: 'True', reason: 'PreemptionByScheduler' },
    ];
  }
  return o;
}

/** A PDB over `labels` in namespace default allowing `allowed` disruptions. */
function pdb(name: string, labels: Record<string, string>, allowed: number) {
  return {
    metadata: { name, namespace: 'default' },
    spec: { selector: { matchLabels: labels } },
    status: { disruptionsAllowed: allowed },
  };
}

function cluster(nodes: string[], pods: PodSpec[], budgets: ReturnType<typeof pdb>[] = []) {
  const state = initialState();
  let seq = 0;
  const apply = (event: BerthEvent) => reduce(state, { seq: ++seq, time: 0, event });
  for (const n of nodes) apply({ type: 'NodeUpserted', node: nodeObject(n) });
  for (const p of pods) apply({ type: 'PodUpserted', pod: podOf(p) });
  for (const b of budgets)
    apply({ type: 'ObjectUpserted', kind: 'PodDisruptionBudget', object: b });
  return state;
}

function preemptor(p: PodSpec): PodInfo {
  const info = podInfoFromObject(podOf(p));
  if ('rejected' in info) throw new Error(info.rejected);
  return info;
}

function run(state: ClusterState, pod: PodInfo, seed = 1, release?: KubeRelease): CycleResult {
  return scheduleOne(pod, state, {
    profile: release === undefined ? defaultProfile() : profileFromConfig({ release }),
    rng: seededRng(seed),
    cursor: { next: 0 },
    percentageOfNodesToScore: 0,
    now: Date.parse('2026-06-01T00:00:00Z'),
  });
}

function nominationOf(r: CycleResult) {
  if (r.kind !== 'Unschedulable' || r.nomination === undefined)
    throw new Error(`no nomination: ${JSON.stringify(r.kind === 'Unschedulable' ? r.message : r)}`);
  return { node: r.nomination.node, victims: r.nomination.victims.map((v) => v.name) };
}

const t = (iso: string) => Date.parse(iso);

describe('DefaultPreemption: victims on a node', () => {
  it('removes every lower-priority pod, then reprieves the most important that still leave room', () => {
    // n1: 4 cpu, three 1-cpu pods (priorities 30, 20, 10) and 1 free; the preemptor wants 3.
    const s = cluster(
      ['n1'],
      [
        { name: 'p30', cpu: '1', priority: 30, node: 'n1' },
        { name: 'p20', cpu: '1', priority: 20, node: 'n1' },
        { name: 'p10', cpu: '1', priority: 10, node: 'n1' },
      ],
    );
    const r = run(s, preemptor({ name: 'hi', cpu: '3', priority: 100 }));
    // 1 free + 2 evicted = 3: p30 is reprieved first (most important), then p20 and p10 go.
    expect(nominationOf(r)).toEqual({ node: 'n1', victims: ['p20', 'p10'] });
    // kube 1.37 names the placement (PR #140180); 1.36 and before say only the filters' part.
    expect(r.kind === 'Unschedulable' && r.message).toBe(
      '0/1 nodes are available: 1 Insufficient cpu. preemption: found a potential placement for pod on node n1, preempting 2 victims',
    );
    const before = run(s, preemptor({ name: 'hi', cpu: '3', priority: 100 }), 1, '1.36');
    expect(nominationOf(before)).toEqual({ node: 'n1', victims: ['p20', 'p10'] });
    expect(before.kind === 'Unschedulable' && before.message).toBe(
      '0/1 nodes are available: 1 Insufficient cpu.',
    );
  });

  it('never evicts a pod of equal or higher priority', () => {
    const s = cluster(
      ['n1'],
      [
        { name: 'same', cpu: '2', priority: 100, node: 'n1' },
        { name: 'low', cpu: '2', priority: 1, node: 'n1' },
      ],
    );
    expect(nominationOf(run(s, preemptor({ name: 'hi', cpu: '2', priority: 100 })))).toEqual({
      node: 'n1',
      victims: ['low'],
    });
    const r = run(s, preemptor({ name: 'hi2', cpu: '3', priority: 100 }));
    expect(r.kind === 'Unschedulable' && r.message).toBe(
      '0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 Insufficient cpu.',
    );
  });

  it('says no victims were found where no pod has lower priority', () => {
    const s = cluster(
      ['n1', 'n2'],
      [
        { name: 'a', cpu: '4', priority: 5, node: 'n1' },
        { name: 'b', cpu: '4', priority: 5, node: 'n2' },
      ],
    );
    const r = run(s, preemptor({ name: 'p', cpu: '1', priority: 5 }));
    expect(r.kind === 'Unschedulable' && r.message).toBe(
      '0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.',
    );
    // kube's PostFilter result nominates to "": the pod's own nomination is to be cleared.
    expect(r).toMatchObject({ kind: 'Unschedulable', clearsNomination: true });
  });

  it('reprieves PodDisruptionBudget-violating victims first and counts the violations', () => {
    // Two 2-cpu pods of equal priority; one protected by a PDB allowing no disruption.
    const s = cluster(
      ['n1'],
      [
        {
          name: 'guarded',
          cpu: '2',
          priority: 1,
          node: 'n1',
          started: t('2026-01-01T00:00:00Z'),
          labels: { app: 'db' },
        },
        { name: 'free', cpu: '2', priority: 1, node: 'n1', started: t('2026-01-02T00:00:00Z') },
      ],
      [pdb('db', { app: 'db' }, 0)],
    );
    // The preemptor needs 2 cpu: the guarded pod is reprieved first, so the other goes.
    expect(nominationOf(run(s, preemptor({ name: 'hi', cpu: '2', priority: 9 })))).toEqual({
      node: 'n1',
      victims: ['free'],
    });
  });
});

describe('DefaultPreemption: which node', () => {
  const started = (d: number) => t(`2026-01-0${d}T00:00:00Z`);
  it.each([
    {
      rule: 'fewest PDB violations',
      pods: [
        { name: 'a', cpu: '4', priority: 1, node: 'n1', labels: { app: 'db' } },
        { name: 'b', cpu: '4', priority: 5, node: 'n2' },
      ],
      budgets: [pdb('db', { app: 'db' }, 0)],
      want: 'n2',
    },
    {
      rule: 'lowest highest-victim priority',
      pods: [
        { name: 'a', cpu: '4', priority: 7, node: 'n1' },
        { name: 'b', cpu: '2', priority: 3, node: 'n2' },
        { name: 'c', cpu: '2', priority: 3, node: 'n2' },
      ],
      want: 'n2',
    },
    {
      rule: 'smallest priority sum',
      pods: [
        { name: 'a', cpu: '2', priority: 5, node: 'n1' },
        { name: 'b', cpu: '2', priority: 5, node: 'n1' },
        { name: 'c', cpu: '2', priority: 5, node: 'n2' },
        { name: 'd', cpu: '2', priority: 1, node: 'n2' },
      ],
      want: 'n2',
    },
    {
      rule: 'fewest victims',
      pods: [
        { name: 'a', cpu: '2', priority: 5, node: 'n1' },
        { name: 'b', cpu: '2', priority: -2147483648, node: 'n1' },
        { name: 'c', cpu: '4', priority: 5, node: 'n2' },
      ],
      want: 'n2',
    },
    {
      rule: 'latest start of the highest-priority victims',
      pods: [
        { name: 'a', cpu: '4', priority: 5, node: 'n1', started: started(1) },
        { name: 'b', cpu: '4', priority: 5, node: 'n2', started: started(3) },
      ],
      want: 'n2',
    },
  ])('$rule', ({ pods, budgets, want }) => {
    const s = cluster(['n1', 'n2'], pods, budgets ?? []);
    for (const seed of [1, 2, 3, 4])
      expect(
        nominationOf(run(s, preemptor({ name: 'hi', cpu: '4', priority: 10 }), seed)).node,
      ).toBe(want);
  });

  it('clears the nominations of lower-priority pods to the chosen node', () => {
    const s = cluster(
      ['n1'],
      [
        { name: 'low', cpu: '4', priority: 1, node: 'n1' },
        { name: 'waiting-lower', cpu: '1', priority: 2, nominated: 'n1' },
        { name: 'waiting-higher', cpu: '1', priority: 50, nominated: 'n1' },
      ],
    );
    const r = run(s, preemptor({ name: 'hi', cpu: '2', priority: 10 }));
    expect(r.kind === 'Unschedulable' && r.nomination?.clearNominated.map((p) => p.name)).toEqual([
      'waiting-lower',
    ]);
  });
});

describe('DefaultPreemption: eligibility', () => {
  it('does not preempt for preemptionPolicy Never', () => {
    const s = cluster(['n1'], [{ name: 'low', cpu: '4', priority: 1, node: 'n1' }]);
    const r = run(s, preemptor({ name: 'hi', cpu: '1', priority: 10, preemptionPolicy: 'Never' }));
    expect(r.kind === 'Unschedulable' && r.message).toBe(
      '0/1 nodes are available: 1 Insufficient cpu. preemption: not eligible due to preemptionPolicy=Never.',
    );
    // Not eligible: kube's result is nil, the nomination is left as it is.
    expect(r.kind === 'Unschedulable' && r.clearsNomination).toBeFalsy();
  });

  it('waits while a victim of its own preemption still terminates on its nominated node', () => {
    const s = cluster(
      ['n1'],
      [{ name: 'going', cpu: '4', priority: 1, node: 'n1', terminatingByPreemption: true }],
    );
    const r = run(s, preemptor({ name: 'hi', cpu: '1', priority: 10, nominated: 'n1' }));
    expect(r.kind === 'Unschedulable' && r.message).toBe(
      '0/1 nodes are available: 1 Insufficient cpu. preemption: not eligible due to a terminating pod on the nominated node.',
    );
    expect(r.kind === 'Unschedulable' && r.clearsNomination).toBeFalsy();
  });

  it('tries the nominated node first, and lower-priority pods leave room for a nominated one', () => {
    const s = cluster(
      ['n1', 'n2'],
      [
        { name: 'big', cpu: '3', priority: 0, node: 'n2' },
        { name: 'holder', cpu: '3', priority: 100, nominated: 'n1' },
      ],
    );
    // A lower-priority pod of 2 cpu fits neither: n1's room is held, n2 has 1 cpu left.
    const low = run(
      s,
      preemptor({ name: 'low', cpu: '2', priority: 0, preemptionPolicy: 'Never' }),
    );
    expect(low.kind).toBe('Unschedulable');
    // A pod of higher priority than the holder ignores the nomination.
    const higher = run(s, preemptor({ name: 'top', cpu: '2', priority: 500 }));
    expect(higher).toMatchObject({ kind: 'Scheduled', node: 'n1' });
  });

  it('says "not found" after a PreFilter that stopped the loop (kube DynamicResources has no state), and preempts nobody', () => {
    const s = cluster(['n1'], [{ name: 'low', cpu: '4', priority: 1, node: 'n1' }]);
    const base = defaultProfile();
    const stopper = {
      name: 'Stopper',
      preFilter: () => ({
        code: 'UnschedulableAndUnresolvable' as const,
        reasons: ['stopped here'],
        plugin: 'Stopper',
      }),
    };
    const r = scheduleOne(preemptor({ name: 'hi', cpu: '1', priority: 10 }), s, {
      // Before DynamicResources: kube's DynamicResources PreFilter never runs, so has no state.
      profile: { ...base, preFilter: [stopper, ...base.preFilter] },
      rng: seededRng(1),
      cursor: { next: 0 },
      percentageOfNodesToScore: 0,
    });
    expect(r).toMatchObject({
      kind: 'Unschedulable',
      message: '0/1 nodes are available: stopped here. not found',
    });
    expect(r.kind === 'Unschedulable' && r.nomination).toBeUndefined();
  });

  it('runs no PostFilter in a profile without them (logs from before preemption)', () => {
    const s = cluster(['n1'], [{ name: 'low', cpu: '4', priority: 1, node: 'n1' }]);
    const r = scheduleOne(preemptor({ name: 'hi', cpu: '1', priority: 10 }), s, {
      profile: profileFromConfig({ postFilters: [] }),
      rng: seededRng(1),
      cursor: { next: 0 },
      percentageOfNodesToScore: 0,
    });
    // No PostFilter at all: kube clears the pod's nomination (clearNominatedNode).
    expect(r).toMatchObject({
      kind: 'Unschedulable',
      message: '0/1 nodes are available: 1 Insufficient cpu.',
      clearsNomination: true,
    });
  });
});

describe('DefaultPreemption: the resource bound of the candidate walk', () => {
  // The walk skips nodes where NodeResourcesFit's arithmetic alone rules preemption out. With
  // the same filter under another name the bound is off: every outcome must be the same.
  const renamedFit = (): ReturnType<typeof defaultProfile> => {
    const p = defaultProfile();
    return {
      ...p,
      filter: p.filter.map((f) =>
        f.name === 'NodeResourcesFit'
          ? { name: 'FitUnderAnotherName', filter: f.filter.bind(f) }
          : f,
      ),
    };
  };
  const podArb = (name: string, node: string | undefined) =>
    fc
      .record({
        cpu: fc.integer({ min: 1, max: 4 }),
        priority: fc.integer({ min: 0, max: 3 }),
        nominated: fc.boolean(),
      })
      .map((p) => ({
        name,
        cpu: String(p.cpu),
        priority: p.priority,
        ...(node === undefined ? {} : { node }),
        ...(node === undefined && p.nominated ? { nominated: 'n0' } : {}),
      }));
  it('changes no outcome (message, node, victims)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4 }),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 3 }), fc.boolean()), { maxLength: 10 }),
        fc.record({
          cpu: fc.integer({ min: 1, max: 5 }),
          priority: fc.integer({ min: 0, max: 4 }),
        }),
        fc.integer({ min: 1, max: 50 }),
        (nodeCount, placed, want, seed) => {
          const nodes = Array.from({ length: nodeCount }, (_, i) => `n${i}`);
          const pods = placed.map(
            ([n, bound], i) =>
              fc.sample(podArb(`p${i}`, bound ? nodes[n % nodeCount] : undefined), {
                seed: seed + i,
                numRuns: 1,
              })[0] as PodSpec,
          );
          const s = cluster(nodes, pods);
          const pod = preemptor({ name: 'hi', cpu: String(want.cpu), priority: want.priority });
          const ctx = (profile: ReturnType<typeof defaultProfile>) => ({
            profile,
            rng: seededRng(seed),
            cursor: { next: 0 },
            percentageOfNodesToScore: 0,
            now: 0,
          });
          const a = scheduleOne(pod, s, ctx(defaultProfile()));
          const b = scheduleOne(pod, s, ctx(renamedFit()));
          const view = (r: CycleResult) =>
            r.kind === 'Unschedulable'
              ? {
                  message: r.message,
                  node: r.nomination?.node,
                  victims: r.nomination?.victims.map((v) => v.name),
                }
              : r;
          expect(view(a)).toEqual(view(b));
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('DefaultPreemption: PodDisruptionBudgets over generated clusters', () => {
  /** Victims and budget violations on `node`, or undefined when it is no candidate. */
  function victimsOn(s: ClusterState, pod: PodInfo, node: string) {
    const profile = defaultProfile();
    const state = new Map<string, unknown>();
    for (const pl of profile.preFilter) pl.preFilter(pod, state, s);
    const filters = profile.filter.filter((f) => f.preFilterSkip?.(pod, state) !== true);
    const r = selectVictimsOnNode(pod, s.nodes.get(node) as NodeInfo, {
      snapshot: s,
      state,
      filters,
      preFilters: profile.preFilter,
      budgets: budgetsOf(s),
      now: 0,
    });
    return 'victims' in r ? r : undefined;
  }

  it('violates a budget only when every candidate node would', () => {
    let violating = 0;
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 4 }),
        fc.array(
          fc.record({
            node: fc.nat(3),
            cpu: fc.integer({ min: 1, max: 3 }),
            priority: fc.integer({ min: 0, max: 3 }),
            app: fc.constantFrom('a', 'b', 'c'),
          }),
          { maxLength: 10 },
        ),
        fc.tuple(fc.integer({ min: 0, max: 2 }), fc.integer({ min: 0, max: 2 })),
        fc.record({
          cpu: fc.integer({ min: 1, max: 4 }),
          priority: fc.integer({ min: 1, max: 5 }),
        }),
        (nodeCount, placed, [allowA, allowB], want) => {
          const nodes = Array.from({ length: nodeCount }, (_, i) => `n${i}`);
          const pods = placed.map((p, i) => ({
            name: `p${i}`,
            cpu: String(p.cpu),
            priority: p.priority,
            node: nodes[p.node % nodeCount] as string,
            labels: { app: p.app },
          }));
          const s = cluster(nodes, pods, [
            pdb('pa', { app: 'a' }, allowA),
            pdb('pb', { app: 'b' }, allowB),
          ]);
          const pod = preemptor({ name: 'hi', cpu: String(want.cpu), priority: want.priority });
          const r = run(s, pod);
          if (r.kind !== 'Unschedulable' || r.nomination === undefined) return;
          const chosen = victimsOn(s, pod, r.nomination.node);
          expect(chosen?.victims.map((v) => v.name)).toEqual(
            r.nomination.victims.map((v) => v.name),
          );
          if ((chosen?.budgetViolations ?? 0) === 0) return;
          violating++;
          for (const other of nodes) {
            const c = victimsOn(s, pod, other);
            if (c !== undefined) expect(c.budgetViolations, other).toBeGreaterThan(0);
          }
        },
      ),
      { numRuns: 400 },
    );
    // Some generated clusters must force a violation, or this proves nothing.
    expect(violating).toBeGreaterThan(0);
  });
});
