// Table tests for NodeAffinity and node selector terms, after kube's TestNodeAffinity.
import { describe, expect, it } from 'vitest';
import { makeNode, makePod } from '../../test/support/builders.ts';
import { success } from '../framework/types.ts';
import type { NodeSelectorTerm, PreferredSchedulingTerm } from '../model/objects.ts';
import {
  ErrReasonConflict,
  ErrReasonEnforced,
  ErrReasonPod,
  name,
  newNodeAffinity,
  nodeAffinity,
  requiredNodeNames,
} from './node-affinity.ts';
import { parseInt64 } from './node-selector.ts';

const rejected = { code: 'UnschedulableAndUnresolvable', reasons: [ErrReasonPod], plugin: name };

interface FilterCase {
  name: string;
  nodeSelector?: Record<string, string>;
  terms?: NodeSelectorTerm[];
  labels?: Record<string, string>;
  nodeName?: string;
  fits: boolean;
}

function expr(key: string, operator: string, values?: string[]): NodeSelectorTerm {
  return {
    matchExpressions: [values === undefined ? { key, operator } : { key, operator, values }],
  };
}

describe('NodeAffinity filter', () => {
  const cases: FilterCase[] = [
    { name: 'no selector', labels: { foo: 'bar' }, fits: true },
    { name: 'missing labels', nodeSelector: { foo: 'bar' }, fits: false },
    { name: 'same labels', nodeSelector: { foo: 'bar' }, labels: { foo: 'bar' }, fits: true },
    {
      name: 'node labels are superset',
      nodeSelector: { foo: 'bar' },
      labels: { foo: 'bar', baz: 'blah' },
      fits: true,
    },
    {
      name: 'node labels are subset',
      nodeSelector: { foo: 'bar', baz: 'blah' },
      labels: { foo: 'bar' },
      fits: false,
    },
    {
      name: 'a selector value must match exactly',
      nodeSelector: { foo: 'bar' },
      labels: { foo: 'baz' },
      fits: false,
    },
    {
      name: 'an empty selector value needs the label present and empty',
      nodeSelector: { foo: '' },
      labels: {},
      fits: false,
    },
    {
      name: 'an empty selector value matches an empty label',
      nodeSelector: { foo: '' },
      labels: { foo: '' },
      fits: true,
    },
    {
      name: 'a selector key that is an Object prototype name is not found on the node',
      nodeSelector: { constructor: 'x' },
      fits: false,
    },
    {
      name: 'Pod with matchExpressions using In operator that matches the existing node',
      terms: [expr('foo', 'In', ['bar', 'value2'])],
      labels: { foo: 'bar' },
      fits: true,
    },
    {
      name: 'Pod with matchExpressions using In operator that does not match the existing node',
      terms: [expr('foo', 'In', ['value1', 'value2'])],
      labels: { foo: 'bar' },
      fits: false,
    },
    {
      name: 'In on a missing label does not match',
      terms: [expr('foo', 'In', ['bar'])],
      fits: false,
    },
    {
      name: 'Pod with matchExpressions using NotIn operator that matches the existing node',
      terms: [expr('foo', 'NotIn', ['value1', 'value2'])],
      labels: { foo: 'bar' },
      fits: true,
    },
    {
      name: 'NotIn matches a node without the label',
      terms: [expr('foo', 'NotIn', ['bar'])],
      fits: true,
    },
    {
      name: 'NotIn rejects a listed value',
      terms: [expr('foo', 'NotIn', ['bar'])],
      labels: { foo: 'bar' },
      fits: false,
    },
    {
      name: 'Pod with matchExpressions using Exists operator that matches the existing node',
      terms: [expr('foo', 'Exists')],
      labels: { foo: 'bar' },
      fits: true,
    },
    {
      name: 'Exists on a missing label does not match',
      terms: [expr('foo', 'Exists')],
      fits: false,
    },
    {
      name: 'Pod with affinity that don\u2019t match node\u2019s labels won\u2019t schedule onto the node (DoesNotExist)',
      terms: [expr('foo', 'DoesNotExist')],
      labels: { foo: 'bar' },
      fits: false,
    },
    {
      name: 'DoesNotExist matches a node without the label',
      terms: [expr('foo', 'DoesNotExist')],
      fits: true,
    },
    {
      name: 'Pod with matchExpressions using Gt operator that matches the existing node',
      terms: [expr('kernel-version', 'Gt', ['0204'])],
      labels: { 'kernel-version': '0206' },
      fits: true,
    },
    { name: 'Gt is strict', terms: [expr('n', 'Gt', ['5'])], labels: { n: '5' }, fits: false },
    {
      name: 'Lt matches a smaller value',
      terms: [expr('n', 'Lt', ['5'])],
      labels: { n: '4' },
      fits: true,
    },
    { name: 'Lt is strict', terms: [expr('n', 'Lt', ['5'])], labels: { n: '5' }, fits: false },
    {
      name: 'Gt compares signed integers',
      terms: [expr('n', 'Gt', ['-3'])],
      labels: { n: '+2' },
      fits: true,
    },
    {
      name: 'Gt compares 64-bit integers exactly',
      terms: [expr('n', 'Gt', ['9007199254740992'])],
      labels: { n: '9007199254740993' },
      fits: true,
    },
    {
      name: 'Gt on a label that is not an integer does not match',
      terms: [expr('n', 'Gt', ['1'])],
      labels: { n: '2.5' },
      fits: false,
    },
    { name: 'Gt on a missing label does not match', terms: [expr('n', 'Gt', ['1'])], fits: false },
    {
      name: 'Pod with matchExpressions using Gt operator with an invalid value never matches (parse error)',
      terms: [expr('n', 'Gt', ['abc'])],
      labels: { n: '7' },
      fits: false,
    },
    {
      name: 'Gt with two values is a parse error',
      terms: [expr('n', 'Gt', ['1', '2'])],
      labels: { n: '7' },
      fits: false,
    },
    {
      name: 'In without values is a parse error',
      terms: [expr('foo', 'In', [])],
      labels: { foo: 'bar' },
      fits: false,
    },
    { name: 'NotIn without values is a parse error', terms: [expr('foo', 'NotIn')], fits: false },
    {
      name: 'Exists with values is a parse error',
      terms: [expr('foo', 'Exists', ['bar'])],
      labels: { foo: 'bar' },
      fits: false,
    },
    {
      name: 'DoesNotExist with values is a parse error',
      terms: [expr('foo', 'DoesNotExist', ['bar'])],
      fits: false,
    },
    {
      name: 'An unknown operator is a parse error',
      terms: [expr('foo', 'Equals', ['bar'])],
      labels: { foo: 'bar' },
      fits: false,
    },
    {
      name: 'Pod with multiple matchExpressions ANDed that matches the existing node',
      terms: [
        {
          matchExpressions: [
            { key: 'GPU', operator: 'Exists' },
            { key: 'GPU', operator: 'NotIn', values: ['AMD', 'INTER'] },
          ],
        },
      ],
      labels: { GPU: 'NVIDIA-GRID-K1' },
      fits: true,
    },
    {
      name: 'Pod with multiple matchExpressions ANDed that doesn\u2019t match the existing node',
      terms: [
        {
          matchExpressions: [
            { key: 'GPU', operator: 'Exists' },
            { key: 'GPU', operator: 'In', values: ['AMD', 'INTER'] },
          ],
        },
      ],
      labels: { GPU: 'NVIDIA-GRID-K1' },
      fits: false,
    },
    {
      name: 'A malformed requirement fails its whole term even when the other requirements match',
      terms: [
        {
          matchExpressions: [
            { key: 'foo', operator: 'In', values: ['bar'] },
            { key: 'foo', operator: 'Bogus', values: ['bar'] },
          ],
        },
      ],
      labels: { foo: 'bar' },
      fits: false,
    },
    {
      name: 'Pod with multiple NodeSelectorTerms ORed in affinity, matches the node\u2019s labels and will schedule onto the node',
      terms: [expr('foo', 'In', ['bar', 'value2']), expr('diffkey', 'In', ['wrong', 'value2'])],
      labels: { foo: 'bar' },
      fits: true,
    },
    {
      name: 'A malformed term does not stop a later term from matching',
      terms: [expr('foo', 'Gt', ['x']), expr('foo', 'Exists')],
      labels: { foo: 'bar' },
      fits: true,
    },
    {
      name: 'Pod with affinity with an empty list of NodeSelectorTerms won\u2019t schedule onto any node',
      terms: [],
      labels: { foo: 'bar' },
      fits: false,
    },
    {
      name: 'Pod with affinity with one empty NodeSelectorTerm won\u2019t schedule onto the node',
      terms: [{}],
      labels: { foo: 'bar' },
      fits: false,
    },
    {
      name: 'Pod with affinity with empty matchExpressions won\u2019t schedule onto the node',
      terms: [{ matchExpressions: [] }],
      labels: { foo: 'bar' },
      fits: false,
    },
    {
      name: 'An empty term next to a matching term is ignored',
      terms: [{}, expr('foo', 'Exists')],
      labels: { foo: 'bar' },
      fits: true,
    },
    {
      name: 'Pod with both nodeSelector and affinity, both match: schedules',
      nodeSelector: { foo: 'bar' },
      terms: [expr('foo', 'Exists')],
      labels: { foo: 'bar' },
      fits: true,
    },
    {
      name: 'Pod with both nodeSelector and affinity: the nodeSelector does not match, won\u2019t schedule',
      nodeSelector: { foo: 'bar' },
      terms: [expr('foo', 'Exists')],
      labels: { foo: 'baz' },
      fits: false,
    },
    {
      name: 'Pod with both nodeSelector and affinity: the affinity does not match, won\u2019t schedule',
      nodeSelector: { foo: 'bar' },
      terms: [expr('foo', 'DoesNotExist')],
      labels: { foo: 'bar' },
      fits: false,
    },
    {
      name: 'Pod with matchFields using In operator that matches the existing node',
      terms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node1'] }] }],
      nodeName: 'node1',
      fits: true,
    },
    {
      name: 'Pod with matchFields using In operator that does not match the existing node',
      terms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node1'] }] }],
      nodeName: 'node2',
      fits: false,
    },
    {
      name: 'Pod with matchFields using NotIn operator excludes only the named node',
      terms: [{ matchFields: [{ key: 'metadata.name', operator: 'NotIn', values: ['node1'] }] }],
      nodeName: 'node2',
      fits: true,
    },
    {
      name: 'matchFields In with two values is a parse error',
      terms: [
        { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node1', 'node2'] }] },
      ],
      nodeName: 'node1',
      fits: false,
    },
    {
      name: 'matchFields supports only In and NotIn',
      terms: [{ matchFields: [{ key: 'metadata.name', operator: 'Exists' }] }],
      nodeName: 'node1',
      fits: false,
    },
    {
      name: 'matchFields on another field reads it as empty',
      terms: [{ matchFields: [{ key: 'metadata.uid', operator: 'In', values: ['node1'] }] }],
      nodeName: 'node1',
      fits: false,
    },
    {
      name: 'Pod with two terms: matchFields does not match, but matchExpressions matches',
      terms: [
        { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node1'] }] },
        expr('foo', 'In', ['bar']),
      ],
      nodeName: 'node2',
      labels: { foo: 'bar' },
      fits: true,
    },
    {
      name: 'Pod with one term: matchFields does not match, but matchExpressions matches',
      terms: [
        {
          matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node1'] }],
          matchExpressions: [{ key: 'foo', operator: 'In', values: ['bar'] }],
        },
      ],
      nodeName: 'node2',
      labels: { foo: 'bar' },
      fits: false,
    },
    {
      name: 'Pod with one term: both matchFields and matchExpressions match',
      terms: [
        {
          matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node1'] }],
          matchExpressions: [{ key: 'foo', operator: 'In', values: ['bar'] }],
        },
      ],
      nodeName: 'node1',
      labels: { foo: 'bar' },
      fits: true,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const pod = makePod({ nodeSelector: c.nodeSelector, requiredNodeAffinity: c.terms });
      const node = makeNode({ name: c.nodeName, labels: c.labels });
      const got = nodeAffinity.filter(pod, node);
      if (c.fits) expect(got).toBe(success);
      else expect(got).toEqual(rejected);
    });
  }
});

describe('NodeAffinity PreFilter narrowing (kube TestNodeAffinityPreFilter cases)', () => {
  const byName = (op: string, ...values: string[]): NodeSelectorTerm => ({
    matchFields: [{ key: 'metadata.name', operator: op, values }],
  });
  const pre = (terms: NodeSelectorTerm[] | undefined) =>
    nodeAffinity.preFilter(makePod({ requiredNodeAffinity: terms }));

  it('leaves every node when there is no required affinity, or a term pins no name', () => {
    expect(pre(undefined)).toBe(success);
    expect(pre([])).toBe(success);
    expect(pre([expr('zone', 'In', ['a'])])).toBe(success);
    expect(pre([byName('In', 'n1'), expr('zone', 'In', ['a'])])).toBe(success);
    expect(pre([byName('NotIn', 'n1')])).toBe(success);
  });

  it('narrows to the union over terms of the names each term pins', () => {
    expect([...(requiredNodeNames([byName('In', 'n1', 'n2'), byName('In', 'n3')]) ?? [])]).toEqual([
      'n1',
      'n2',
      'n3',
    ]);
    const r = pre([byName('In', 'n1', 'n2'), byName('In', 'n2')]);
    expect(r.code).toBe('Success');
    expect([...(r.nodeNames ?? [])].sort()).toEqual(['n1', 'n2']);
  });

  it('intersects the name requirements within one term', () => {
    const term: NodeSelectorTerm = {
      matchFields: [
        { key: 'metadata.name', operator: 'In', values: ['n1', 'n2'] },
        { key: 'metadata.name', operator: 'In', values: ['n2', 'n3'] },
      ],
    };
    expect([...(pre([term]).nodeNames ?? [])]).toEqual(['n2']);
  });

  it('rejects conflicting name terms, unresolvably, with kube\u2019s reason', () => {
    const term: NodeSelectorTerm = {
      matchFields: [
        { key: 'metadata.name', operator: 'In', values: ['n1'] },
        { key: 'metadata.name', operator: 'In', values: ['n2'] },
      ],
    };
    expect(pre([term])).toEqual({
      code: 'UnschedulableAndUnresolvable',
      reasons: [ErrReasonConflict],
      plugin: name,
    });
  });
});

describe('parseInt64', () => {
  const cases: { s: string; want: number | bigint | undefined }[] = [
    { s: '0', want: 0 },
    { s: '0204', want: 204 },
    { s: '+7', want: 7 },
    { s: '-7', want: -7 },
    { s: '9223372036854775807', want: 9223372036854775807n },
    { s: '-9223372036854775808', want: -9223372036854775808n },
    { s: '9223372036854775808', want: undefined },
    { s: '', want: undefined },
    { s: ' 1', want: undefined },
    { s: '1_000', want: undefined },
    { s: '1e3', want: undefined },
    { s: '0x10', want: undefined },
    { s: '-', want: undefined },
  ];
  for (const c of cases) {
    it(`parses "${c.s}" as Go's ParseInt does`, () => {
      expect(parseInt64(c.s)).toBe(c.want);
    });
  }
});

describe('NodeAffinity score', () => {
  const labelsA = { foo: 'bar' };
  const labelsB = { key: 'value' };
  const labelsAB = { foo: 'bar', key: 'value', az: 'az1' };
  const preferred: PreferredSchedulingTerm[] = [
    { weight: 2, preference: expr('foo', 'In', ['bar']) },
    { weight: 4, preference: expr('key', 'In', ['value']) },
    { weight: 5, preference: expr('az', 'In', ['az1']) },
  ];
  function scores(terms: PreferredSchedulingTerm[], labels: Record<string, string>[]): number[] {
    const pod = makePod({ preferredNodeAffinity: terms });
    const s = labels.map((l) => nodeAffinity.score(pod, makeNode({ labels: l })));
    nodeAffinity.normalize(pod, s);
    return s;
  }
  const cases: {
    name: string;
    terms: PreferredSchedulingTerm[];
    labels: Record<string, string>[];
    want: number[];
  }[] = [
    {
      name: 'all nodes are same priority as NodeAffinity is nil',
      terms: [],
      labels: [labelsA, labelsB, labelsAB],
      want: [0, 0, 0],
    },
    {
      name: 'no node matches preferred scheduling requirements in NodeAffinity of pod so all nodes\u2019 priority is zero',
      terms: [{ weight: 2, preference: expr('foo', 'In', ['nope']) }],
      labels: [labelsA, labelsB, labelsAB],
      want: [0, 0, 0],
    },
    {
      name: 'only node1 matches the preferred scheduling requirements of pod',
      terms: [preferred[0] as PreferredSchedulingTerm],
      labels: [labelsA, labelsB, { other: 'x' }],
      want: [100, 0, 0],
    },
    {
      name: 'all nodes matches the preferred scheduling requirements of pod but with different priorities',
      terms: preferred,
      labels: [labelsA, labelsB, labelsAB],
      want: [18, 36, 100],
    },
    {
      name: 'a term with weight 0 is ignored',
      terms: [
        { weight: 0, preference: expr('foo', 'Exists') },
        { weight: 1, preference: expr('key', 'Exists') },
      ],
      labels: [labelsA, labelsB],
      want: [0, 100],
    },
    {
      name: 'a preference without requirements is ignored',
      terms: [
        { weight: 7, preference: {} },
        { weight: 1, preference: expr('key', 'Exists') },
      ],
      labels: [labelsA, labelsB],
      want: [0, 100],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(scores(c.terms, c.labels)).toEqual(c.want);
    });
  }

  it('preferences can match on the node name field', () => {
    const pod = makePod({
      preferredNodeAffinity: [
        {
          weight: 3,
          preference: { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n2'] }] },
        },
      ],
    });
    const s = ['n1', 'n2'].map((n) => nodeAffinity.score(pod, makeNode({ name: n })));
    nodeAffinity.normalize(pod, s);
    expect(s).toEqual([0, 100]);
  });

  it('sums the weights of the matching terms before normalising', () => {
    const pod = makePod({ preferredNodeAffinity: preferred });
    expect(nodeAffinity.score(pod, makeNode({ labels: labelsAB }))).toBe(11);
    expect(nodeAffinity.score(pod, makeNode({ labels: labelsB }))).toBe(4);
  });
});

describe('NodeAffinity with addedAffinity (kube’s NodeAffinityArgs)', () => {
  const enforced = {
    code: 'UnschedulableAndUnresolvable',
    reasons: [ErrReasonEnforced],
    plugin: name,
  };
  const pinnedTo = (node: string) =>
    newNodeAffinity({
      addedAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [
            { matchFields: [{ key: 'metadata.name', operator: 'In', values: [node] }] },
          ],
        },
      },
    });
  const zoneBar = newNodeAffinity({
    addedAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [expr('zone', 'In', ['bar'])],
      },
    },
  });

  const cases: {
    name: string;
    plugin: ReturnType<typeof newNodeAffinity>;
    terms?: NodeSelectorTerm[];
    node: string;
    labels: Record<string, string>;
    want: 'fits' | 'pod' | 'enforced';
  }[] = [
    {
      name: 'matches the added affinity and the pod’s own',
      plugin: pinnedTo('node2'),
      terms: [expr('zone', 'In', ['foo'])],
      node: 'node2',
      labels: { zone: 'foo' },
      want: 'fits',
    },
    {
      name: 'matches the added affinity but not the pod’s own',
      plugin: pinnedTo('node2'),
      terms: [expr('zone', 'In', ['bar'])],
      node: 'node2',
      labels: { zone: 'foo' },
      want: 'pod',
    },
    {
      name: 'a pod without affinity that fails the added affinity',
      plugin: zoneBar,
      node: 'node2',
      labels: { zone: 'foo' },
      want: 'enforced',
    },
    {
      name: 'the added affinity is checked first when both fail',
      plugin: zoneBar,
      terms: [expr('zone', 'In', ['baz'])],
      node: 'node2',
      labels: { zone: 'foo' },
      want: 'enforced',
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const pod = makePod(c.terms === undefined ? {} : { requiredNodeAffinity: c.terms });
      const got = c.plugin.filter(pod, makeNode({ name: c.node, labels: c.labels }));
      const want = { fits: success, pod: rejected, enforced }[c.want];
      expect(got).toEqual(want);
    });
  }

  it('no longer skips the filter for pods without affinity when affinity is required', () => {
    const pod = makePod();
    expect(nodeAffinity.preFilterSkip(pod)).toBe(true);
    expect(zoneBar.preFilterSkip(pod)).toBe(false);
  });

  it('narrows nodes by the pod’s own terms only, as kube’s PreFilter does', () => {
    const pod = makePod();
    expect(pinnedTo('node2').preFilter(pod)).toBe(success);
  });

  it('adds the added preferred weights to the pod’s own before normalising', () => {
    const plugin = newNodeAffinity({
      addedAffinity: {
        preferredDuringSchedulingIgnoredDuringExecution: [
          { weight: 3, preference: expr('key', 'In', ['value']) },
          { weight: 0, preference: expr('key', 'In', ['value']) },
          { weight: 9, preference: {} },
        ],
      },
    });
    const pod = makePod({
      preferredNodeAffinity: [{ weight: 2, preference: expr('foo', 'In', ['bar']) }],
    });
    const nodes: Record<string, string>[] = [
      { foo: 'bar' },
      { key: 'value' },
      { foo: 'bar', key: 'value' },
    ];
    const s = nodes.map((labels) => plugin.score(pod, makeNode({ labels })));
    expect(s).toEqual([2, 3, 5]);
    plugin.normalize(pod, s);
    expect(s).toEqual([40, 60, 100]);
    expect(plugin.preScoreSkip(makePod())).toBe(false);
    expect(nodeAffinity.preScoreSkip(makePod())).toBe(true);
  });

  it('returns the shared plugin without args or with an empty added affinity', () => {
    expect(newNodeAffinity()).toBe(nodeAffinity);
    expect(newNodeAffinity({ addedAffinity: {} })).toBe(nodeAffinity);
  });

  it('refuses args of the wrong shape', () => {
    expect(() => newNodeAffinity('zone=bar')).toThrow(/args must be an object/);
    expect(() =>
      newNodeAffinity({ addedAffinity: { requiredDuringSchedulingIgnoredDuringExecution: {} } }),
    ).toThrow(/nodeSelectorTerms/);
  });
});
