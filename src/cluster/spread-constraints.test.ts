// Table tests for the topology spread constraint parser and its pod label selectors.
import { describe, expect, it } from 'vitest';
import {
  noSpreadConstraints,
  nothingSelector,
  parseLabelSelector,
  parseSpreadConstraints,
  type SpreadConstraint,
  selectorIsEmpty,
  selectorMatches,
} from './spread-constraints.ts';

function parsed(v: unknown, labels: Record<string, string> = {}) {
  const r = parseSpreadConstraints(v, labels);
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

function only(v: unknown, labels: Record<string, string> = {}): SpreadConstraint {
  const { hard, soft } = parsed([v], labels);
  return (hard[0] ?? soft[0]) as SpreadConstraint;
}

describe('parseSpreadConstraints', () => {
  it('absent, null and empty lists have no constraints', () => {
    expect(parsed(undefined)).toBe(noSpreadConstraints);
    expect(parsed(null)).toBe(noSpreadConstraints);
    expect(parsed([])).toBe(noSpreadConstraints);
  });

  it('applies kube defaults: DoNotSchedule, minDomains 1, affinity Honor, taints Ignore', () => {
    const { hard, soft } = parsed([
      { maxSkew: 2, topologyKey: 'zone', labelSelector: { matchLabels: { app: 'a' } } },
    ]);
    expect(soft).toEqual([]);
    expect(hard).toEqual([
      {
        maxSkew: 2,
        topologyKey: 'zone',
        selector: {
          nothing: false,
          requirements: [{ key: 'app', operator: 'In', values: ['a'] }],
        },
        minDomains: 1,
        nodeAffinityPolicy: 'Honor',
        nodeTaintsPolicy: 'Ignore',
      },
    ]);
  });

  it('splits constraints by whenUnsatisfiable, keeping spec order in each', () => {
    const { hard, soft } = parsed([
      { maxSkew: 1, topologyKey: 'a', whenUnsatisfiable: 'ScheduleAnyway' },
      { maxSkew: 1, topologyKey: 'b', whenUnsatisfiable: 'DoNotSchedule' },
      { maxSkew: 1, topologyKey: 'c', whenUnsatisfiable: 'ScheduleAnyway' },
      { maxSkew: 1, topologyKey: 'd' },
    ]);
    expect(hard.map((c) => c.topologyKey)).toEqual(['b', 'd']);
    expect(soft.map((c) => c.topologyKey)).toEqual(['a', 'c']);
  });

  it('keeps explicit minDomains and policies', () => {
    const c = only({
      maxSkew: 1,
      topologyKey: 'zone',
      minDomains: 3,
      nodeAffinityPolicy: 'Ignore',
      nodeTaintsPolicy: 'Honor',
    });
    expect([c.minDomains, c.nodeAffinityPolicy, c.nodeTaintsPolicy]).toEqual([
      3,
      'Ignore',
      'Honor',
    ]);
  });

  it('a constraint without labelSelector selects nothing', () => {
    expect(only({ maxSkew: 1, topologyKey: 'zone' }).selector).toBe(nothingSelector);
  });

  it('merges matchLabelKeys the pod has into the selector, skipping the ones it lacks', () => {
    const c = only(
      {
        maxSkew: 1,
        topologyKey: 'zone',
        labelSelector: { matchLabels: { app: 'a' } },
        matchLabelKeys: ['pod-template-hash', 'missing'],
      },
      { app: 'a', 'pod-template-hash': 'h1' },
    );
    expect(selectorMatches(c.selector, { app: 'a', 'pod-template-hash': 'h1' })).toBe(true);
    expect(selectorMatches(c.selector, { app: 'a', 'pod-template-hash': 'h2' })).toBe(false);
    expect(selectorMatches(c.selector, { app: 'a' })).toBe(false);
  });

  it('matchLabelKeys make an empty selector non-empty, and leave an absent one matching nothing', () => {
    const labels = { 'pod-template-hash': 'h1' };
    const empty = only(
      { maxSkew: 1, topologyKey: 'z', labelSelector: {}, matchLabelKeys: ['pod-template-hash'] },
      labels,
    );
    expect(selectorIsEmpty(empty.selector)).toBe(false);
    expect(selectorMatches(empty.selector, labels)).toBe(true);
    const none = only(
      { maxSkew: 1, topologyKey: 'z', matchLabelKeys: ['pod-template-hash'] },
      labels,
    );
    expect(selectorMatches(none.selector, labels)).toBe(false);
  });

  it.each([
    ['not a list', { maxSkew: 1 }, 'spec.topologySpreadConstraints is not a list'],
    ['entry not an object', ['x'], 'spec.topologySpreadConstraints[0] is not an object'],
    [
      'maxSkew zero',
      [{ maxSkew: 0, topologyKey: 'z' }],
      'spec.topologySpreadConstraints[0].maxSkew is not an integer greater than zero',
    ],
    [
      'maxSkew fractional',
      [{ maxSkew: 1.5, topologyKey: 'z' }],
      'spec.topologySpreadConstraints[0].maxSkew is not an integer greater than zero',
    ],
    [
      'maxSkew missing',
      [{ topologyKey: 'z' }],
      'spec.topologySpreadConstraints[0].maxSkew is not an integer greater than zero',
    ],
    [
      'topologyKey empty',
      [{ maxSkew: 1, topologyKey: '' }],
      'spec.topologySpreadConstraints[0].topologyKey is not a non-empty string',
    ],
    [
      'unknown whenUnsatisfiable',
      [{ maxSkew: 1, topologyKey: 'z', whenUnsatisfiable: 'Sometimes' }],
      'spec.topologySpreadConstraints[0].whenUnsatisfiable is not DoNotSchedule or ScheduleAnyway',
    ],
    [
      'minDomains zero',
      [{ maxSkew: 1, topologyKey: 'z', minDomains: 0 }],
      'spec.topologySpreadConstraints[0].minDomains is not an integer greater than zero',
    ],
    [
      'minDomains with ScheduleAnyway',
      [{ maxSkew: 1, topologyKey: 'z', whenUnsatisfiable: 'ScheduleAnyway', minDomains: 2 }],
      'spec.topologySpreadConstraints[0].minDomains requires whenUnsatisfiable DoNotSchedule',
    ],
    [
      'unknown policy',
      [{ maxSkew: 1, topologyKey: 'z', nodeTaintsPolicy: 'Maybe' }],
      'spec.topologySpreadConstraints[0].nodeTaintsPolicy is not Honor or Ignore',
    ],
    [
      'matchLabelKeys not strings',
      [{ maxSkew: 1, topologyKey: 'z', matchLabelKeys: [1] }],
      'spec.topologySpreadConstraints[0].matchLabelKeys is not a list of strings',
    ],
    [
      'second entry bad selector operator',
      [
        { maxSkew: 1, topologyKey: 'z' },
        {
          maxSkew: 1,
          topologyKey: 'z',
          labelSelector: { matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] },
        },
      ],
      'spec.topologySpreadConstraints[1].labelSelector.matchExpressions[0].operator is not a valid label selector operator',
    ],
  ])('refuses %s, naming the field', (_name, v, error) => {
    expect(parseSpreadConstraints(v, {})).toEqual({ ok: false, error });
  });
});

describe('parseLabelSelector', () => {
  const sel = (v: unknown) => {
    const r = parseLabelSelector(v, 's');
    if (!r.ok) throw new Error(r.error);
    return r.value;
  };

  it.each([
    [
      'In matches a listed value',
      { key: 'a', operator: 'In', values: ['1', '2'] },
      { a: '2' },
      true,
    ],
    ['In needs the label', { key: 'a', operator: 'In', values: ['1'] }, {}, false],
    ['NotIn matches an absent label', { key: 'a', operator: 'NotIn', values: ['1'] }, {}, true],
    [
      'NotIn rejects a listed value',
      { key: 'a', operator: 'NotIn', values: ['1'] },
      { a: '1' },
      false,
    ],
    ['Exists matches an empty value', { key: 'a', operator: 'Exists' }, { a: '' }, true],
    ['Exists needs the label', { key: 'a', operator: 'Exists' }, { b: '' }, false],
    ['DoesNotExist matches without the label', { key: 'a', operator: 'DoesNotExist' }, {}, true],
    ['DoesNotExist rejects the label', { key: 'a', operator: 'DoesNotExist' }, { a: 'x' }, false],
  ])('%s', (_name, expr, labels, want) => {
    expect(selectorMatches(sel({ matchExpressions: [expr] }), labels)).toBe(want);
  });

  it('ANDs matchLabels and matchExpressions', () => {
    const s = sel({
      matchLabels: { app: 'a' },
      matchExpressions: [{ key: 'tier', operator: 'Exists' }],
    });
    expect(selectorMatches(s, { app: 'a', tier: 'x' })).toBe(true);
    expect(selectorMatches(s, { app: 'a' })).toBe(false);
    expect(selectorMatches(s, { app: 'b', tier: 'x' })).toBe(false);
  });

  it('an empty selector matches every pod but is empty; an absent one matches none', () => {
    const empty = sel({});
    expect([selectorMatches(empty, { x: '1' }), selectorIsEmpty(empty)]).toEqual([true, true]);
    const none = sel(null);
    expect([selectorMatches(none, { x: '1' }), selectorIsEmpty(none)]).toEqual([false, false]);
  });

  it('does not read inherited properties as labels', () => {
    expect(
      selectorMatches(sel({ matchExpressions: [{ key: 'toString', operator: 'Exists' }] }), {}),
    ).toBe(false);
  });

  it.each([
    [
      { matchExpressions: [{ key: 'a', operator: 'In', values: [] }] },
      's.matchExpressions[0].values must be non-empty for In',
    ],
    [
      { matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] },
      's.matchExpressions[0].values must be empty for Exists',
    ],
    [{ matchLabels: { a: 1 } }, 's.matchLabels["a"] is not a string'],
    [{ matchExpressions: {} }, 's.matchExpressions is not a list'],
    ['x', 's is not an object'],
  ])('refuses %j', (v, error) => {
    expect(parseLabelSelector(v, 's')).toEqual({ ok: false, error });
  });
});
