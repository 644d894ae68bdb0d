// Pins NodeInfo parsing: allocatable (with capacity fallback), taints, invalid fields, updates.
import { describe, expect, it } from 'vitest';
import { makePod } from '../../test/support/builders.ts';
import { nodeObject } from '../../test/support/objects.ts';
import { nodeInfoFromObject, updateNodeObject } from './node-info.ts';
import type { NodeInfo } from './types.ts';

function info(obj: unknown): NodeInfo {
  const r = nodeInfoFromObject(obj);
  if ('rejected' in r) throw new Error(r.rejected);
  return r;
}

const GI = 1024 ** 3;

describe('nodeInfoFromObject', () => {
  it('reads allocatable into integer units with nothing charged', () => {
    const n = info(
      nodeObject('n1', {
        allocatable: {
          cpu: '3900m',
          memory: '15Gi',
          pods: '110',
          'ephemeral-storage': '100Gi',
          'nvidia.com/gpu': '4',
        },
        labels: { zone: 'a' },
        taints: [{ key: 'gpu', value: 'true', effect: 'NoSchedule' }],
        unschedulable: true,
      }),
    );
    expect(n).toMatchObject({
      name: 'n1',
      labels: { zone: 'a' },
      taints: [{ key: 'gpu', value: 'true', effect: 'NoSchedule' }],
      unschedulable: true,
      allocatable: {
        milliCPU: 3900,
        memory: 15 * GI,
        ephemeralStorage: 100 * GI,
        pods: 110,
        scalar: { 'nvidia.com/gpu': 4 },
      },
      invalid: undefined,
      requested: { milliCPU: 0, memory: 0, ephemeralStorage: 0, scalar: {} },
      nonZeroRequested: { milliCPU: 0, memory: 0 },
      generation: 0,
    });
    expect(n.pods.size).toBe(0);
  });

  it('falls back to capacity only when allocatable is absent', () => {
    const capacity = { cpu: '2', memory: '1Gi', pods: '10' };
    expect(info({ metadata: { name: 'n' }, status: { capacity } }).allocatable.milliCPU).toBe(2000);
    const empty = info({ metadata: { name: 'n' }, status: { allocatable: {}, capacity } });
    expect(empty.allocatable.milliCPU).toBe(0);
  });

  it('allows no pods when allocatable does not name pods (as kube-scheduler)', () => {
    expect(info(nodeObject('n', { allocatable: { cpu: '4' } })).allocatable.pods).toBe(0);
  });

  it('gives a node without status nothing allocatable', () => {
    const n = info({ metadata: { name: 'n' } });
    expect(n.allocatable).toEqual({
      milliCPU: 0,
      memory: 0,
      ephemeralStorage: 0,
      pods: 0,
      scalar: {},
    });
    expect(n.invalid).toBeUndefined();
  });

  it.each([
    [
      'an unparsable quantity',
      { allocatable: { cpu: 'four' } },
      'invalid quantity "four" at status.allocatable.cpu: no digits',
    ],
    [
      'a negative quantity',
      { allocatable: { memory: '-1Gi' } },
      'negative quantity "-1Gi" at status.allocatable.memory',
    ],
    ['an allocatable list', { allocatable: [] }, 'status.allocatable is not an object'],
    [
      'a bad capacity',
      { capacity: { pods: {} } },
      'invalid quantity at status.capacity.pods: expected a string or a number, got an object',
    ],
  ])('marks the node invalid for %s, counting it as 0', (_name, status, reason) => {
    const n = info({ metadata: { name: 'n' }, status });
    expect(n.invalid).toBe(reason);
  });

  it('marks the node invalid for a malformed taint rather than dropping it', () => {
    const n = info({ metadata: { name: 'n' }, spec: { taints: [{ key: 'k' }] } });
    expect(n.invalid).toBe('spec.taints[0].effect is not a string');
  });

  it.each([
    ['null', null],
    ['a string', 'node'],
    ['a node without a name', { metadata: {} }],
    ['a node with a list as metadata', { metadata: ['n'] }],
  ])('rejects %s', (_name, obj) => {
    expect(nodeInfoFromObject(obj)).toHaveProperty('rejected');
  });
});

describe('updateNodeObject', () => {
  it('replaces the object part and keeps the charges', () => {
    const existing = info(nodeObject('n', { labels: { v: '1' } }));
    const held = makePod({ name: 'p', uid: 'uid-p' });
    existing.pods.set(held.uid, held);
    existing.requested.milliCPU = 500;
    existing.generation = 7;
    const parsed = info(
      nodeObject('n', { labels: { v: '2' }, allocatable: { cpu: '8', pods: '5' } }),
    );
    const updated = updateNodeObject(existing, parsed);
    expect(updated).toBe(existing);
    expect(updated.labels).toEqual({ v: '2' });
    expect(updated.allocatable.milliCPU).toBe(8000);
    expect(updated.requested.milliCPU).toBe(500);
    expect([...updated.pods.keys()]).toEqual(['uid-p']);
    expect(updated.pods.get('uid-p')).toBe(held);
    expect(updated.generation).toBe(7);
  });
});
