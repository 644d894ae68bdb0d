// Pins PodDisruptionBudgets: the parsed view, the store and its snapshots, and kube's PDB-violation split.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { makePod } from '../../test/support/builders.ts';
import { trimObject } from '../adapters/trim.ts';
import type { BerthEvent } from '../events/types.ts';
import { objectKeyOf, objectParsers } from './cluster-objects.ts';
import {
  budgetsOf,
  type DisruptionBudget,
  parseDisruptionBudget,
  splitByBudgetViolation,
} from './disruption-budgets.ts';
import { evolve, initialState } from './reducer.ts';
import {
  type ClusterStateData,
  restoreClusterState,
  SnapshotDataError,
  serializeClusterState,
} from './serialize.ts';
import type { ClusterState, PodInfo } from './types.ts';

interface PdbInput {
  name: string;
  namespace?: string;
  selector?: unknown;
  allowed?: unknown;
  disrupted?: string[];
}

/** A raw PodDisruptionBudget as the API serves it (with noise trim drops). */
function pdb(o: PdbInput): Record<string, unknown> {
  const status: Record<string, unknown> = {
    currentHealthy: 3,
    desiredHealthy: 2,
    expectedPods: 3,
    observedGeneration: 1,
  };
  if (o.allowed !== undefined) status.disruptionsAllowed = o.allowed;
  if (o.disrupted !== undefined)
    status.disruptedPods = Object.fromEntries(o.disrupted.map((n) => [n, '2025-01-01T00:00:00Z']));
  const spec: Record<string, unknown> = { minAvailable: 2 };
  if (o.selector !== undefined) spec.selector = o.selector;
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: {
      name: o.name,
      namespace: o.namespace ?? 'default',
      uid: `uid-${o.name}`,
      resourceVersion: '7',
      annotations: { a: 'b' },
      managedFields: [],
    },
    spec,
    status,
  };
}

function budget(o: PdbInput): DisruptionBudget {
  const parsed = parseDisruptionBudget(trimObject('PodDisruptionBudget', pdb(o)));
  if ('rejected' in parsed) throw new Error(parsed.rejected);
  return parsed.value;
}

const foo = { matchLabels: { app: 'foo' } };

describe('parseDisruptionBudget', () => {
  it('reads the selector, the allowance and the disrupted pods', () => {
    const b = budget({
      name: 'web',
      namespace: 'shop',
      selector: foo,
      allowed: 2,
      disrupted: ['p1'],
    });
    expect(b).toEqual({
      key: 'shop/web',
      namespace: 'shop',
      name: 'web',
      selector: { nothing: false, requirements: [{ key: 'app', operator: 'In', values: ['foo'] }] },
      selectorEmpty: false,
      disruptionsAllowed: 2,
      disruptedPods: new Set(['p1']),
    });
  });

  it.each<[string, unknown, boolean, boolean]>([
    // [case, spec.selector, selector defined, selectorEmpty]
    ['an absent selector (labels.Nothing)', undefined, false, false],
    ['a null selector', null, false, false],
    ['an invalid selector', { matchExpressions: [{ key: 'a', operator: 'In' }] }, false, false],
    ['a selector that is not an object', 'app=foo', false, false],
    ['an empty selector (labels.Everything)', {}, true, true],
    ['empty matchLabels', { matchLabels: {} }, true, true],
    ['a real selector', foo, true, false],
  ])('reads %s', (_case, selector, defined, empty) => {
    const b = budget({ name: 'x', selector });
    expect(b.selector !== undefined).toBe(defined);
    expect(b.selectorEmpty).toBe(empty);
  });

  it.each<[string, unknown, number]>([
    ['absent', undefined, 0],
    ['a string', '1', 0],
    ['a fraction', 1.5, 0],
    ['an integer', 4, 4],
  ])('reads a disruptionsAllowed that is %s', (_case, allowed, want) => {
    expect(budget({ name: 'x', selector: foo, allowed }).disruptionsAllowed).toBe(want);
  });

  it('defaults the namespace and rejects a nameless budget', () => {
    expect(parseDisruptionBudget({ metadata: { name: 'x' } })).toMatchObject({
      value: { key: 'default/x', namespace: 'default', disruptedPods: new Set() },
    });
    expect(objectParsers.PodDisruptionBudget({ metadata: {} })).toEqual({
      rejected: 'PodDisruptionBudget has no metadata.name',
    });
    expect(objectKeyOf('PodDisruptionBudget', { metadata: { name: 'x', namespace: 'n' } })).toBe(
      'n/x',
    );
  });

  it('never throws on any input', () => {
    fc.assert(
      fc.property(fc.anything(), fc.anything(), fc.anything(), (spec, status, sel) => {
        parseDisruptionBudget(spec);
        parseDisruptionBudget({ metadata: { name: 'x' }, spec, status });
        parseDisruptionBudget({
          metadata: { name: 'x' },
          spec: { selector: sel },
          status: { disruptedPods: status, disruptionsAllowed: spec },
        });
      }),
      { numRuns: 300 },
    );
  });
});

describe('trimObject PodDisruptionBudget', () => {
  it('keeps the metadata, the selector, the allowance and the disrupted pods only', () => {
    expect(
      trimObject(
        'PodDisruptionBudget',
        pdb({ name: 'web', selector: foo, allowed: 1, disrupted: ['p'] }),
      ),
    ).toEqual({
      metadata: { name: 'web', namespace: 'default', uid: 'uid-web', resourceVersion: '7' },
      spec: { selector: foo },
      status: { disruptionsAllowed: 1, disruptedPods: { p: '2025-01-01T00:00:00Z' } },
    });
  });
});

function fold(events: BerthEvent[]): ClusterState {
  const state = initialState();
  events.forEach((event, i) => {
    evolve(state, { seq: i + 1, time: i, event });
  });
  return state;
}

const up = (o: PdbInput): BerthEvent =>
  ({
    type: 'ObjectUpserted',
    kind: 'PodDisruptionBudget',
    object: trimObject('PodDisruptionBudget', pdb(o)),
  }) as BerthEvent;

describe('budgets in the store and the snapshot', () => {
  const events = [
    up({ name: 'b', namespace: 'shop', selector: foo, allowed: 1, disrupted: ['p2', 'p1'] }),
    up({ name: 'a', namespace: 'shop', selector: {}, allowed: 0 }),
    up({ name: 'z', namespace: 'alpha', allowed: 3 }),
  ];

  it('lists every budget by key', () => {
    const state = fold(events);
    expect(budgetsOf(state).map((b) => b.key)).toEqual(['alpha/z', 'shop/a', 'shop/b']);
    expect(budgetsOf(fold([]))).toEqual([]);
  });

  it('updates and deletes a budget', () => {
    const state = fold([
      ...events,
      up({ name: 'b', namespace: 'shop', selector: foo, allowed: 0 }),
      { type: 'ObjectDeleted', kind: 'PodDisruptionBudget', key: 'alpha/z' },
    ]);
    expect(
      budgetsOf(state).map((b) => [b.key, b.disruptionsAllowed, b.disruptedPods.size]),
    ).toEqual([
      ['shop/a', 0, 0],
      ['shop/b', 0, 0],
    ]);
  });

  it('round-trips through a JSON snapshot, the disrupted pods as a list in set order', () => {
    const live = fold(events);
    const data = serializeClusterState(live);
    expect(data.objects?.PodDisruptionBudget?.[0]).toEqual([
      'shop/b',
      expect.objectContaining({ disruptedPods: ['p2', 'p1'] }),
    ]);
    const json = JSON.parse(JSON.stringify(data)) as ClusterStateData;
    const restored = restoreClusterState(json);
    expect([...restored.objects.PodDisruptionBudget]).toEqual([
      ...live.objects.PodDisruptionBudget,
    ]);
    expect(restored.objects.PodDisruptionBudget.get('shop/b')?.disruptedPods).toEqual(
      new Set(['p2', 'p1']),
    );
    expect(serializeClusterState(restored)).toEqual(json);
  });

  it('refuses a stored budget that is not one, naming it', () => {
    const data = JSON.parse(
      JSON.stringify(serializeClusterState(fold(events))),
    ) as ClusterStateData;
    const pairs = data.objects?.PodDisruptionBudget as [string, Record<string, unknown>][];
    (pairs[1] as [string, Record<string, unknown>])[1].disruptedPods = { p: 'x' };
    expect(() => restoreClusterState(data)).toThrow(SnapshotDataError);
    expect(() => restoreClusterState(data)).toThrow(
      'cluster.objects.PodDisruptionBudget[1] is not a PodDisruptionBudget',
    );
  });
});

/** Pods by name, labelled `app=foo` unless labels are given. */
function pods(...specs: (string | [string, Record<string, string>, string?])[]): PodInfo[] {
  return specs.map((s) =>
    typeof s === 'string'
      ? makePod({ name: s, labels: { app: 'foo' } })
      : makePod({ name: s[0], labels: s[1], namespace: s[2] ?? 'default' }),
  );
}

const names = (ps: readonly PodInfo[]) => ps.map((p) => p.name);

describe('splitByBudgetViolation', () => {
  const cases: {
    name: string;
    pods: PodInfo[];
    budgets: PdbInput[];
    violating: string[];
  }[] = [
    {
      name: 'no budgets: nothing violates',
      pods: pods('p1', 'p2'),
      budgets: [],
      violating: [],
    },
    {
      // kube: "preemption with violation of same pdb"
      name: 'one allowed disruption: the second matching pod violates',
      pods: pods('p1.1', 'p1.2'),
      budgets: [{ name: 'b', selector: foo, allowed: 1 }],
      violating: ['p1.2'],
    },
    {
      // kube: "... the victim doesn't belong to DisruptedPods"
      name: 'a disrupted pod of another name changes nothing',
      pods: pods('p1.1', 'p1.2'),
      budgets: [{ name: 'b', selector: foo, allowed: 1, disrupted: ['p2'] }],
      violating: ['p1.2'],
    },
    {
      // kube: "... the victim belongs to DisruptedPods"
      name: 'a pod already in disruptedPods does not spend the allowance',
      pods: pods('p1.1', 'p1.2'),
      budgets: [{ name: 'b', selector: foo, allowed: 1, disrupted: ['p1.2'] }],
      violating: [],
    },
    {
      // kube: "... the victim which belongs to DisruptedPods is treated as 'nonViolating'"
      name: 'a disrupted pod is skipped, the others still spend the allowance',
      pods: pods('p1.1', 'p1.2', 'p1.3'),
      budgets: [{ name: 'b', selector: foo, allowed: 1, disrupted: ['p1.3'] }],
      violating: ['p1.2'],
    },
    {
      // kube: "preemption looks past numCandidates until a non-PDB violating node is found"
      name: 'no allowance: every matching pod violates, the others do not',
      pods: pods('p1', ['p3', { tier: 'db' }], 'p5'),
      budgets: [{ name: 'b', selector: foo, allowed: 0 }],
      violating: ['p1', 'p5'],
    },
    {
      name: 'a pod without labels never violates, even under a selector its labels satisfy',
      pods: pods(['bare', {}]),
      budgets: [
        {
          name: 'b',
          selector: { matchExpressions: [{ key: 'x', operator: 'DoesNotExist' }] },
          allowed: 0,
        },
      ],
      violating: [],
    },
    {
      name: 'a pod with labels matched by a DoesNotExist selector violates',
      pods: pods('p1'),
      budgets: [
        {
          name: 'b',
          selector: { matchExpressions: [{ key: 'x', operator: 'DoesNotExist' }] },
          allowed: 0,
        },
      ],
      violating: ['p1'],
    },
    {
      name: 'only budgets of the pod’s namespace count',
      pods: pods(['a', { app: 'foo' }, 'shop'], ['b', { app: 'foo' }, 'default']),
      budgets: [{ name: 'b', namespace: 'shop', selector: foo, allowed: 0 }],
      violating: ['a'],
    },
    {
      name: 'an empty selector matches nothing here',
      pods: pods('p1'),
      budgets: [{ name: 'b', selector: {}, allowed: 0 }],
      violating: [],
    },
    {
      name: 'an absent selector matches nothing',
      pods: pods('p1'),
      budgets: [{ name: 'b', allowed: 0 }],
      violating: [],
    },
    {
      name: 'an invalid selector is skipped',
      pods: pods('p1'),
      budgets: [
        { name: 'b', selector: { matchExpressions: [{ key: 'app', operator: 'In' }] }, allowed: 0 },
      ],
      violating: [],
    },
    {
      name: 'a selector that does not match is skipped',
      pods: pods('p1'),
      budgets: [{ name: 'b', selector: { matchLabels: { app: 'bar' } }, allowed: 0 }],
      violating: [],
    },
    {
      name: 'one budget out of several is enough to violate; each allowance is its own',
      pods: pods(
        ['p1', { app: 'foo', tier: 'web' }],
        ['p2', { app: 'foo', tier: 'web' }],
        ['p3', { tier: 'web' }],
      ),
      budgets: [
        { name: 'apps', selector: foo, allowed: 5 },
        { name: 'tiers', selector: { matchLabels: { tier: 'web' } }, allowed: 1 },
      ],
      violating: ['p2', 'p3'],
    },
    {
      name: 'a violating pod still spends the allowance of its other budgets',
      pods: pods(['p1', { app: 'foo', tier: 'web' }], ['p2', { app: 'foo' }]),
      budgets: [
        { name: 'apps', selector: foo, allowed: 1 },
        { name: 'tiers', selector: { matchLabels: { tier: 'web' } }, allowed: 0 },
      ],
      violating: ['p1', 'p2'],
    },
    {
      name: 'the pods are walked in the given order',
      pods: pods('z', 'a', 'm'),
      budgets: [{ name: 'b', selector: foo, allowed: 1 }],
      violating: ['a', 'm'],
    },
  ];

  it.each(cases)('$name', (c) => {
    const budgets = c.budgets.map(budget);
    const { violating, nonViolating } = splitByBudgetViolation(c.pods, budgets);
    expect(names(violating)).toEqual(c.violating);
    expect(names(nonViolating)).toEqual(names(c.pods).filter((n) => !c.violating.includes(n)));
    // The budgets' order does not matter.
    const reversed = splitByBudgetViolation(c.pods, [...budgets].reverse());
    expect(names(reversed.violating)).toEqual(c.violating);
  });

  it('keeps the input order in both lists and does not change the budgets', () => {
    const b = budget({ name: 'b', selector: foo, allowed: 1 });
    const ps = pods('p1', ['x', { tier: 'db' }], 'p2', ['y', {}], 'p3');
    const { violating, nonViolating } = splitByBudgetViolation(ps, [b]);
    expect(names(violating)).toEqual(['p2', 'p3']);
    expect(names(nonViolating)).toEqual(['p1', 'x', 'y']);
    expect(b.disruptionsAllowed).toBe(1);
    expect(splitByBudgetViolation([], [b])).toEqual({ violating: [], nonViolating: [] });
  });
});
