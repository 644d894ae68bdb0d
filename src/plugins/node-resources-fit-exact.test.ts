// NodeResourcesFit on amounts past 2^53 and at kube's int64 caps: the reducer's sums and the filter stay exact.
import { describe, expect, it } from 'vitest';
import { nodeObject, podObject } from '../../test/support/objects.ts';
import { podInfoFromObject } from '../cluster/pod-info.ts';
import { evolve, initialState } from '../cluster/reducer.ts';
import type { NodeInfo, PodInfo } from '../cluster/types.ts';
import type { BerthEvent } from '../events/types.ts';
import { type Status, success } from '../framework/types.ts';
import type { RawResourceList } from '../model/objects.ts';
import { nodeResourcesBalancedAllocation } from './node-resources-balanced-allocation.ts';
import { fitsRequest, insufficientReason, name, nodeResourcesFit } from './node-resources-fit.ts';

/** A node with `allocatable` (110 pods added), after the reducer has charged `bound` to it. */
function nodeWith(allocatable: RawResourceList, bound: RawResourceList[]): NodeInfo {
  const state = initialState();
  const events: BerthEvent[] = [
    {
      type: 'NodeUpserted',
      node: nodeObject('n', { allocatable: { pods: '110', ...allocatable } }),
    },
  ];
  bound.forEach((requests, i) => {
    const pod = podObject(`bound-${i}`, { requests, nodeName: 'n' });
    pod.metadata.uid = `uid-bound-${i}`;
    events.push({ type: 'PodUpserted', pod });
  });
  events.forEach((event, i) => {
    evolve(state, { seq: i + 1, time: i, event });
  });
  const node = state.nodes.get('n');
  if (node === undefined) throw new Error('node n missing');
  return node;
}

/** The pod the cycle would place, requesting `requests`. */
function incoming(requests: RawResourceList): PodInfo {
  const pod = podObject('incoming', { requests });
  pod.metadata.uid = 'uid-incoming';
  const info = podInfoFromObject(pod);
  if ('rejected' in info) throw new Error(info.rejected);
  return info;
}

const insufficient = (...reasons: string[]): Status => ({
  code: 'Unschedulable',
  reasons,
  plugin: name,
});

interface Case {
  name: string;
  allocatable: RawResourceList;
  bound: RawResourceList[];
  pod: RawResourceList;
  want: Status;
}

describe('NodeResourcesFit with amounts past 2^53', () => {
  const cases: Case[] = [
    {
      // 2^53 + 1 bytes as a float is 2^53, which left 2 bytes free instead of 1.
      name: 'a node filled to one byte short of 2^53 + 2 has one byte left, not two',
      allocatable: { memory: '9007199254740994' },
      bound: [{ memory: '9007199254740993' }],
      pod: { memory: '2' },
      want: insufficient('Insufficient memory'),
    },
    {
      name: 'and that one byte is there',
      allocatable: { memory: '9007199254740994' },
      bound: [{ memory: '9007199254740993' }],
      pod: { memory: '1' },
      want: success,
    },
    {
      // 2^52 + 1 plus 2^52 + 2 is 2^53 + 3, which a float sum rounds up to 2^53 + 4.
      name: 'two pods whose float sum rounds up still leave the byte they leave',
      allocatable: { memory: '9007199254740996' },
      bound: [{ memory: '4503599627370497' }, { memory: '4503599627370498' }],
      pod: { memory: '1' },
      want: success,
    },
    {
      // 16Ei is capped at 2^63 − 1 bytes; 2^63 − 2 of them leave 1, which floats lost.
      name: 'a 16Ei ephemeral-storage node (capped at 2^63 − 1) keeps its last byte',
      allocatable: { 'ephemeral-storage': '16Ei' },
      bound: [{ 'ephemeral-storage': '9223372036854775806' }],
      pod: { 'ephemeral-storage': '1' },
      want: success,
    },
    {
      name: 'and has no second one',
      allocatable: { 'ephemeral-storage': '16Ei' },
      bound: [{ 'ephemeral-storage': '9223372036854775806' }],
      pod: { 'ephemeral-storage': '2' },
      want: insufficient('Insufficient ephemeral-storage'),
    },
    {
      // 10^16 cores is 10^19 millicores, past int64: MilliValue() saturates at 2^63 − 1.
      name: 'cpu saturates at int64 millicores, so a node of 10^16 cores is nearly full',
      allocatable: { cpu: '1e16' },
      bound: [{ cpu: '9223372036854775' }],
      pod: { cpu: '1' },
      want: insufficient('Insufficient cpu'),
    },
    {
      name: 'an extended resource past 2^53 is exact as well',
      allocatable: { 'example.com/dev': '9007199254740995' },
      bound: [{ 'example.com/dev': '9007199254740993' }],
      pod: { 'example.com/dev': '3' },
      want: insufficient(insufficientReason('example.com/dev')),
    },
    {
      name: 'a request of 10^30 bytes saturates at 2^63 − 1, which an empty 16Ei node holds',
      allocatable: { memory: '16Ei' },
      bound: [],
      pod: { memory: '1e30' },
      want: success,
    },
  ];
  it.each(cases)('$name', (c) => {
    expect(fitsRequest(incoming(c.pod), nodeWith(c.allocatable, c.bound))).toEqual(c.want);
  });

  it('a request of 10^30 bytes does not fit a 16Ei node with one byte used', () => {
    const used = nodeWith({ memory: '16Ei' }, [{ memory: '1' }]);
    expect(fitsRequest(incoming({ memory: '1e30' }), used)).toEqual(
      insufficient('Insufficient memory'),
    );
  });
});

describe('NodeResourcesFit scores with amounts past 2^53', () => {
  it('LeastAllocated divides exactly, as kube int64 arithmetic does', () => {
    // kube: (31060324504283000 − 25158862848469230) × 100 / 31060324504283000 = 19.0000…;
    // the float quotient fell just below 19.
    const node = nodeWith({ cpu: '0', memory: '31060324504283000' }, []);
    const pod = incoming({ memory: '25158862848469230' });
    expect(nodeResourcesFit.score(pod, node)).toBe(19);
  });

  it('BalancedAllocation reads the exact sum, as kube reads float64(requested)', () => {
    // cpu is exactly half used; memory's float64(576460895636843966) / float64(A) is one ulp
    // above half, too little to move the score: kube gives 100. Summing the amounts as
    // floats, rounded, moved the fraction farther and gave 99.
    const node = nodeWith({ cpu: '2', memory: '1152921791273687538' }, [
      { memory: '576460895636843638' },
    ]);
    const pod = incoming({ cpu: '1', memory: '328' });
    expect(nodeResourcesBalancedAllocation.score(pod, node)).toBe(100);
  });
});
