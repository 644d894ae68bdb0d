// Tests for the Diagnosis and kube's FitError message format.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  compareGoStrings,
  diagnoseFailedNodes,
  fitErrorMessage,
  newDiagnosis,
  recordNodeStatus,
  recordPreFilterStatus,
  sortedReasonHistogram,
} from './explain.ts';
import { type Status, status } from './types.ts';

const affinity = "node(s) didn't match Pod's node affinity/selector";

describe('fitErrorMessage', () => {
  it('formats the histogram as kube does: "<count> <reason>" sorted as strings', () => {
    const d = newDiagnosis();
    for (let i = 0; i < 3; i++)
      recordNodeStatus(
        d,
        `cpu-${i}`,
        status('Unschedulable', 'NodeResourcesFit', 'Insufficient cpu'),
      );
    recordNodeStatus(
      d,
      'cordoned',
      status('UnschedulableAndUnresolvable', 'NodeUnschedulable', 'node(s) were unschedulable'),
    );
    for (let i = 0; i < 9; i++)
      recordNodeStatus(
        d,
        `other-${i}`,
        status('UnschedulableAndUnresolvable', 'NodeAffinity', affinity),
      );
    expect(fitErrorMessage(13, d)).toBe(
      "0/13 nodes are available: 1 node(s) were unschedulable, 3 Insufficient cpu, 9 node(s) didn't match Pod's node affinity/selector.",
    );
  });

  it('sorts counts as text, not numbers ("10 …" before "9 …"), as Go\u2019s sort.Strings does', () => {
    const d = newDiagnosis();
    for (let i = 0; i < 10; i++)
      recordNodeStatus(
        d,
        `a-${i}`,
        status('Unschedulable', 'NodeResourcesFit', 'Insufficient memory'),
      );
    for (let i = 0; i < 9; i++)
      recordNodeStatus(
        d,
        `b-${i}`,
        status('Unschedulable', 'NodeResourcesFit', 'Insufficient cpu'),
      );
    expect(fitErrorMessage(19, d)).toBe(
      '0/19 nodes are available: 10 Insufficient memory, 9 Insufficient cpu.',
    );
  });

  it('counts each reason of a multi-reason status once per node', () => {
    const d = newDiagnosis();
    recordNodeStatus(
      d,
      'a',
      status('Unschedulable', 'NodeResourcesFit', 'Insufficient cpu', 'Insufficient memory'),
    );
    recordNodeStatus(d, 'b', status('Unschedulable', 'NodeResourcesFit', 'Insufficient memory'));
    expect(fitErrorMessage(2, d)).toBe(
      '0/2 nodes are available: 1 Insufficient cpu, 2 Insufficient memory.',
    );
  });

  it('uses the PreFilter message alone when a PreFilter rejected', () => {
    const d = newDiagnosis();
    recordPreFilterStatus(
      d,
      5,
      status('UnschedulableAndUnresolvable', 'PodValidity', 'bad cpu', 'bad memory'),
    );
    expect(fitErrorMessage(5, d)).toBe('0/5 nodes are available: bad cpu, bad memory.');
    expect(d.unresolvableNodes).toBe(5);
    expect(d.unschedulablePlugins).toEqual(new Set(['PodValidity']));
  });

  it('ends with a bare colon when there is nothing to report', () => {
    expect(fitErrorMessage(3, newDiagnosis())).toBe('0/3 nodes are available:');
  });
});

describe('recordNodeStatus', () => {
  it('keeps the status per node, the unresolvable count and the rejecting plugins', () => {
    const d = newDiagnosis();
    const s1 = status('Unschedulable', 'NodeResourcesFit', 'Insufficient cpu');
    const s2 = status(
      'UnschedulableAndUnresolvable',
      'TaintToleration',
      'node(s) had untolerated taint(s)',
    );
    recordNodeStatus(d, 'a', s1);
    recordNodeStatus(d, 'b', s2);
    expect(d.nodeToStatus.get('a')).toBe(s1);
    expect(d.nodeToStatus.get('b')).toBe(s2);
    expect(d.unresolvableNodes).toBe(1);
    expect(d.unschedulablePlugins).toEqual(new Set(['NodeResourcesFit', 'TaintToleration']));
    expect(d.preFilterMsg).toBeUndefined();
  });
});

describe('diagnoseFailedNodes', () => {
  const statuses = [
    status('Unschedulable', 'NodeResourcesFit', 'Insufficient cpu'),
    status('Unschedulable', 'NodeResourcesFit', 'Insufficient cpu', 'Insufficient memory'),
    status('UnschedulableAndUnresolvable', 'TaintToleration', 'node(s) had untolerated taint(s)'),
    status('UnschedulableAndUnresolvable', 'NodeUnschedulable', 'node(s) were unschedulable'),
    status('Error', 'Broken', 'boom'),
  ];

  it('equals recording each node in turn: reasons, nodes, unresolvable, plugins in order', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(statuses.length - 1), { maxLength: 60 }), (picks) => {
        const names = picks.map((_, i) => `n${i}`);
        const picked = picks.map((p) => statuses[p] as Status);
        const one = newDiagnosis();
        picked.forEach((s, i) => {
          recordNodeStatus(one, names[i] as string, s);
        });
        const counted = diagnoseFailedNodes(names, picked);
        expect(counted.reasons).toEqual(one.reasons);
        expect([...counted.reasons.keys()]).toEqual([...one.reasons.keys()]);
        expect(counted.unresolvableNodes).toBe(one.unresolvableNodes);
        expect([...counted.unschedulablePlugins]).toEqual([...one.unschedulablePlugins]);
        expect([...counted.nodeToStatus]).toEqual([...one.nodeToStatus]);
        expect(fitErrorMessage(picks.length, counted)).toBe(fitErrorMessage(picks.length, one));
      }),
      { numRuns: 200, seed: 3 },
    );
  });
});

describe('compareGoStrings', () => {
  it('orders by code point, like Go comparing UTF-8 bytes', () => {
    // U+FF5E (fullwidth tilde) is below U+1F600 (an emoji) in code points, but its UTF-16
    // unit 0xFF5E is above the emoji's high surrogate 0xD83D.
    const bmp = '\uFF5E';
    const astral = '\u{1F600}';
    expect([astral, bmp].sort()).toEqual([astral, bmp]);
    expect([astral, bmp].sort(compareGoStrings)).toEqual([bmp, astral]);
  });

  it('puts a prefix first and equal strings together', () => {
    expect(compareGoStrings('ab', 'abc')).toBeLessThan(0);
    expect(compareGoStrings('abc', 'ab')).toBeGreaterThan(0);
    expect(compareGoStrings('x', 'x')).toBe(0);
    expect(
      sortedReasonHistogram(
        new Map([
          ['b', 1],
          ['a', 1],
        ]),
      ),
    ).toEqual(['1 a', '1 b']);
  });
});
