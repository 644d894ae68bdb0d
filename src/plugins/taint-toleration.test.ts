// Table tests for TaintToleration, after kube's TestTaintTolerationFilter and TestTaintTolerationScore.
import { describe, expect, it } from 'vitest';
import { makeNode, makePod } from '../../test/support/builders.ts';
import { success } from '../framework/types.ts';
import type { Taint, Toleration } from '../model/objects.ts';
import {
  ErrReasonUntoleratedTaint,
  name,
  taintToleration,
  toleratesTaint,
} from './taint-toleration.ts';

const rejected = {
  code: 'UnschedulableAndUnresolvable',
  reasons: [ErrReasonUntoleratedTaint],
  plugin: name,
};

describe('TaintToleration filter', () => {
  const cases: { name: string; tolerations: Toleration[]; taints: Taint[]; fits: boolean }[] = [
    {
      name: 'A pod having no tolerations can\u2019t be scheduled onto a node with nonempty taints',
      tolerations: [],
      taints: [{ key: 'dedicated', value: 'user1', effect: 'NoSchedule' }],
      fits: false,
    },
    {
      name: 'A pod which can be scheduled on a dedicated node assigned to user1 with effect NoSchedule',
      tolerations: [{ key: 'dedicated', value: 'user1', effect: 'NoSchedule' }],
      taints: [{ key: 'dedicated', value: 'user1', effect: 'NoSchedule' }],
      fits: true,
    },
    {
      name: 'A pod which can\u2019t be scheduled on a dedicated node assigned to user2 with effect NoSchedule',
      tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'user2', effect: 'NoSchedule' }],
      taints: [{ key: 'dedicated', value: 'user1', effect: 'NoSchedule' }],
      fits: false,
    },
    {
      name: 'A pod can be scheduled onto the node, with a toleration uses operator Exists that tolerates the taints on the node',
      tolerations: [{ key: 'foo', operator: 'Exists', effect: 'NoSchedule' }],
      taints: [{ key: 'foo', value: 'bar', effect: 'NoSchedule' }],
      fits: true,
    },
    {
      name: 'A pod has multiple tolerations, node has multiple taints, all the taints are tolerated, pod can be scheduled onto the node',
      tolerations: [
        { key: 'dedicated', operator: 'Equal', value: 'user2', effect: 'NoSchedule' },
        { key: 'foo', operator: 'Exists', effect: 'NoSchedule' },
      ],
      taints: [
        { key: 'dedicated', value: 'user2', effect: 'NoSchedule' },
        { key: 'foo', value: 'bar', effect: 'NoSchedule' },
      ],
      fits: true,
    },
    {
      name: 'A pod has a toleration that keys and values match the taint on the node, but (non-empty) effect doesn\u2019t match, can\u2019t be scheduled onto the node',
      tolerations: [{ key: 'foo', operator: 'Equal', value: 'bar', effect: 'PreferNoSchedule' }],
      taints: [{ key: 'foo', value: 'bar', effect: 'NoSchedule' }],
      fits: false,
    },
    {
      name: 'The pod has a toleration that keys and values match the taint on the node, the effect of toleration is empty, and the effect of taint is NoSchedule. Pod can be scheduled onto the node',
      tolerations: [{ key: 'foo', operator: 'Equal', value: 'bar' }],
      taints: [{ key: 'foo', value: 'bar', effect: 'NoSchedule' }],
      fits: true,
    },
    {
      name: 'The pod has a toleration that key and value don\u2019t match the taint on the node, but the effect of taint on node is PreferNoSchedule. Pod can be scheduled onto the node',
      tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'user2', effect: 'NoSchedule' }],
      taints: [{ key: 'dedicated', value: 'user1', effect: 'PreferNoSchedule' }],
      fits: true,
    },
    {
      name: 'The pod has no toleration, but the effect of taint on node is PreferNoSchedule. Pod can be scheduled onto the node',
      tolerations: [],
      taints: [{ key: 'dedicated', value: 'user1', effect: 'PreferNoSchedule' }],
      fits: true,
    },
    {
      name: 'A NoExecute taint must be tolerated too',
      tolerations: [],
      taints: [{ key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' }],
      fits: false,
    },
    {
      name: 'An Exists toleration with an empty key tolerates every taint',
      tolerations: [{ operator: 'Exists' }],
      taints: [
        { key: 'a', value: '1', effect: 'NoSchedule' },
        { key: 'b', effect: 'NoExecute' },
      ],
      fits: true,
    },
    {
      name: 'An empty operator means Equal: a taint without value is tolerated by a toleration without value',
      tolerations: [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }],
      taints: [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }],
      fits: true,
    },
    {
      name: 'Equal with an empty value does not tolerate a taint with a value',
      tolerations: [{ key: 'gpu', operator: 'Equal', effect: 'NoSchedule' }],
      taints: [{ key: 'gpu', value: 'a100', effect: 'NoSchedule' }],
      fits: false,
    },
    {
      name: 'A toleration with an unknown operator (Lt is feature-gated off) tolerates nothing',
      tolerations: [{ key: 'level', operator: 'Lt', value: '5', effect: 'NoSchedule' }],
      taints: [{ key: 'level', value: '3', effect: 'NoSchedule' }],
      fits: false,
    },
    {
      name: 'One untolerated taint among tolerated ones is enough to reject',
      tolerations: [{ key: 'a', operator: 'Exists' }],
      taints: [
        { key: 'a', value: 'x', effect: 'NoSchedule' },
        { key: 'b', value: 'y', effect: 'NoSchedule' },
      ],
      fits: false,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = taintToleration.filter(
        makePod({ tolerations: c.tolerations }),
        makeNode({ taints: c.taints }),
      );
      if (c.fits) expect(got).toBe(success);
      else expect(got).toEqual(rejected);
    });
  }
});

describe('toleratesTaint', () => {
  const taint: Taint = { key: 'k', value: 'v', effect: 'NoSchedule' };
  const cases: { name: string; t: Toleration; want: boolean }[] = [
    {
      name: 'Equal, same key, value and effect',
      t: { key: 'k', operator: 'Equal', value: 'v', effect: 'NoSchedule' },
      want: true,
    },
    { name: 'Empty operator is Equal', t: { key: 'k', value: 'v' }, want: true },
    { name: 'Equal with another value', t: { key: 'k', value: 'w' }, want: false },
    { name: 'Exists ignores the value', t: { key: 'k', operator: 'Exists' }, want: true },
    { name: 'Exists with another key', t: { key: 'other', operator: 'Exists' }, want: false },
    { name: 'Empty key with Exists matches every key', t: { operator: 'Exists' }, want: true },
    {
      name: 'Empty key with Equal matches by value alone (kube\u2019s function)',
      t: { value: 'v' },
      want: true,
    },
    {
      name: 'Empty effect matches every effect',
      t: { key: 'k', operator: 'Exists', effect: '' },
      want: true,
    },
    {
      name: 'Another effect does not match',
      t: { key: 'k', operator: 'Exists', effect: 'NoExecute' },
      want: false,
    },
    { name: 'Gt is not supported', t: { key: 'k', operator: 'Gt', value: '1' }, want: false },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(toleratesTaint(c.t, taint)).toBe(c.want);
    });
  }
});

describe('TaintToleration score', () => {
  function scores(tolerations: Toleration[], taintsPerNode: Taint[][]): number[] {
    const pod = makePod({ tolerations });
    const s = taintsPerNode.map((taints) => taintToleration.score(pod, makeNode({ taints })));
    taintToleration.normalize(pod, s);
    return s;
  }
  const cases: { name: string; tolerations: Toleration[]; taints: Taint[][]; want: number[] }[] = [
    {
      name: 'node with taints tolerated by the pod, gets a higher score than those node with intolerable taints',
      tolerations: [{ key: 'foo', operator: 'Equal', value: 'bar', effect: 'PreferNoSchedule' }],
      taints: [
        [{ key: 'foo', value: 'bar', effect: 'PreferNoSchedule' }],
        [{ key: 'foo', value: 'blah', effect: 'PreferNoSchedule' }],
      ],
      want: [100, 0],
    },
    {
      name: 'the nodes that all of their taints are tolerated by the pod, get the same score, no matter how many tolerable taints a node has',
      tolerations: [
        { key: 'cpu-type', operator: 'Equal', value: 'arm64', effect: 'PreferNoSchedule' },
        { key: 'disk-type', operator: 'Equal', value: 'ssd', effect: 'PreferNoSchedule' },
      ],
      taints: [
        [],
        [{ key: 'cpu-type', value: 'arm64', effect: 'PreferNoSchedule' }],
        [
          { key: 'cpu-type', value: 'arm64', effect: 'PreferNoSchedule' },
          { key: 'disk-type', value: 'ssd', effect: 'PreferNoSchedule' },
        ],
      ],
      want: [100, 100, 100],
    },
    {
      name: 'the more intolerable taints a node has, the lower score it gets',
      tolerations: [{ key: 'foo', operator: 'Equal', value: 'bar', effect: 'PreferNoSchedule' }],
      taints: [
        [],
        [{ key: 'cpu-type', value: 'arm64', effect: 'PreferNoSchedule' }],
        [
          { key: 'cpu-type', value: 'arm64', effect: 'PreferNoSchedule' },
          { key: 'disk-type', value: 'ssd', effect: 'PreferNoSchedule' },
        ],
      ],
      want: [100, 50, 0],
    },
    {
      name: 'only taints and tolerations that have effect PreferNoSchedule are checked by prioritizeNodes function',
      tolerations: [
        { key: 'cpu-type', operator: 'Equal', value: 'arm64', effect: 'NoSchedule' },
        { key: 'disk-type', operator: 'Equal', value: 'ssd' },
      ],
      taints: [
        [],
        [{ key: 'cpu-type', value: 'arm64', effect: 'NoSchedule' }],
        [
          { key: 'cpu-type', value: 'arm64', effect: 'PreferNoSchedule' },
          { key: 'disk-type', value: 'ssd', effect: 'PreferNoSchedule' },
        ],
      ],
      want: [100, 100, 0],
    },
    {
      name: 'Default behaviour No taints and tolerations results in max score for all nodes',
      tolerations: [],
      taints: [[{ key: 'foo', value: 'bar', effect: 'NoSchedule' }], []],
      want: [100, 100],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(scores(c.tolerations, c.taints)).toEqual(c.want);
    });
  }
});
