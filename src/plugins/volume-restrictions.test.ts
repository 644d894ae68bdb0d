// Table tests for VolumeRestrictions (disk conflicts, ReadWriteOncePod, hints), after kube's volume_restrictions_test.
import { describe, expect, it } from 'vitest';
import { chargePod, makeNode, makePod } from '../../test/support/builders.ts';
import {
  claimObject,
  pvcVolume,
  type TestObjects,
  volumeSnapshot,
} from '../../test/support/volumes.ts';
import type { PodVolume } from '../cluster/pod-volumes.ts';
import type { ClusterChange, NodeInfo, PodInfo, PodRecord } from '../cluster/types.ts';
import type { CycleState, Status } from '../framework/types.ts';
import {
  ErrReasonDiskConflict,
  ErrReasonReadWriteOncePodConflict,
  name,
  volumeRestrictions,
  volumeRestrictionsHint,
} from './volume-restrictions.ts';

type Outcome = 'skip' | Status;

/** PreFilter against `nodes` (and objects), then Filter on the first node unless skipped. */
function run(pod: PodInfo, nodes: NodeInfo[], objects: TestObjects = {}): Outcome {
  const state: CycleState = new Map();
  const pre = volumeRestrictions.preFilter(pod, state, volumeSnapshot(nodes, objects));
  if (pre.code !== 'Success') return pre;
  if (volumeRestrictions.preFilterSkip(pod, state)) return 'skip';
  return volumeRestrictions.filter(pod, nodes[0] as NodeInfo, state);
}

const disk: Status = { code: 'Unschedulable', reasons: [ErrReasonDiskConflict], plugin: name };
const ok: Status = { code: 'Success', reasons: [] };

function nodeWith(...volumes: PodVolume[][]): NodeInfo {
  const node = makeNode({ name: 'node-1' });
  volumes.forEach((v, i) => {
    chargePod(node, makePod({ name: `existing-${i}`, nodeName: 'node-1', volumes: v }));
  });
  return node;
}

const gce = (pdName: string, readOnly = false): PodVolume => ({
  name: 'v',
  type: 'gcePersistentDisk',
  pdName,
  partition: 0,
  readOnly,
});
const ebs = (volumeID: string, readOnly = false): PodVolume => ({
  name: 'v',
  type: 'awsElasticBlockStore',
  volumeID,
  readOnly,
});
const rbd = (monitors: string[], pool = 'foo', image = 'bar', readOnly = false): PodVolume => ({
  name: 'v',
  type: 'rbd',
  monitors,
  pool,
  image,
  readOnly,
});
const iscsi = (iqn: string, readOnly = false): PodVolume => ({
  name: 'v',
  type: 'iscsi',
  iqn,
  readOnly,
});

describe('VolumeRestrictions disk conflicts', () => {
  const iqn1 = 'iqn.2016-12.server:storage.target01';
  const iqn2 = 'iqn.2017-12.server:storage.target01';
  const cases: { name: string; pod: PodVolume[]; node: PodVolume[][]; want: Outcome }[] = [
    { name: 'GCE: nothing', pod: [], node: [], want: 'skip' },
    { name: 'GCE: one state', pod: [], node: [[gce('foo')]], want: 'skip' },
    { name: 'GCE: same state', pod: [gce('foo')], node: [[gce('foo')]], want: disk },
    { name: 'GCE: different state', pod: [gce('bar')], node: [[gce('foo')]], want: ok },
    {
      name: 'GCE: the same disk read-only on both sides is shared',
      pod: [gce('foo', true)],
      node: [[gce('foo', true)]],
      want: ok,
    },
    {
      name: 'GCE: read-only on one side only conflicts',
      pod: [gce('foo', true)],
      node: [[gce('foo')]],
      want: disk,
    },
    { name: 'EBS: same state', pod: [ebs('foo')], node: [[ebs('foo')]], want: disk },
    { name: 'EBS: different state', pod: [ebs('bar')], node: [[ebs('foo')]], want: ok },
    {
      name: 'EBS: read-only does not make sharing allowed',
      pod: [ebs('foo', true)],
      node: [[ebs('foo', true)]],
      want: disk,
    },
    { name: 'RBD: same state', pod: [rbd(['a', 'b'])], node: [[rbd(['a', 'b'])]], want: disk },
    {
      name: 'RBD: different state (no shared monitor)',
      pod: [rbd(['c', 'd'])],
      node: [[rbd(['a', 'b'])]],
      want: ok,
    },
    {
      name: 'RBD: one shared monitor is enough',
      pod: [rbd(['x', 'b'])],
      node: [[rbd(['a', 'b'])]],
      want: disk,
    },
    {
      name: 'RBD: another pool',
      pod: [rbd(['a'], 'other')],
      node: [[rbd(['a'])]],
      want: ok,
    },
    {
      name: 'RBD: both read-only',
      pod: [rbd(['a'], 'foo', 'bar', true)],
      node: [[rbd(['a'], 'foo', 'bar', true)]],
      want: ok,
    },
    { name: 'ISCSI: same state', pod: [iscsi(iqn1)], node: [[iscsi(iqn1)]], want: disk },
    { name: 'ISCSI: different state', pod: [iscsi(iqn2)], node: [[iscsi(iqn1)]], want: ok },
    {
      name: 'ISCSI: both read-only',
      pod: [iscsi(iqn1, true)],
      node: [[iscsi(iqn1, true)]],
      want: ok,
    },
    {
      name: 'a GCE disk and an EBS volume of the same id never conflict',
      pod: [gce('foo')],
      node: [[ebs('foo')]],
      want: ok,
    },
    {
      name: 'the conflicting disk is held by the second of two pods',
      pod: [ebs('x'), gce('foo')],
      node: [[gce('bar')], [gce('foo')]],
      want: disk,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const pod = makePod({ name: 'p', volumes: c.pod });
      expect(run(pod, [nodeWith(...c.node)])).toEqual(c.want);
    });
  }
});

describe('VolumeRestrictions ReadWriteOncePod', () => {
  const rwop1 = claimObject({ name: 'claim-with-rwop-1', accessModes: ['ReadWriteOncePod'] });
  const rwop2 = claimObject({ name: 'claim-with-rwop-2', accessModes: ['ReadWriteOncePod'] });
  const rwx = claimObject({ name: 'claim-with-rwx', accessModes: ['ReadWriteMany'] });
  const objects = { claims: [rwop1, rwop2, rwx] };
  const conflict: Status = {
    code: 'Unschedulable',
    reasons: [ErrReasonReadWriteOncePodConflict],
    plugin: name,
  };
  const podUsing = (podName: string, claims: string[], namespace = 'default'): PodInfo =>
    makePod({ name: podName, namespace, volumes: claims.map((c) => pvcVolume(c)) });
  const onNode = (nodeName: string, ...pods: PodInfo[]): NodeInfo => {
    const node = makeNode({ name: nodeName });
    for (const p of pods) chargePod(node, p);
    return node;
  };

  it('nothing', () => {
    expect(run(makePod(), [onNode('node-1')], objects)).toBe('skip');
  });

  it('failed to get PVC', () => {
    expect(run(podUsing('p', ['claim-with-rwop-1']), [onNode('node-1')])).toEqual({
      code: 'UnschedulableAndUnresolvable',
      reasons: ['persistentvolumeclaim "claim-with-rwop-1" not found'],
      plugin: name,
    });
  });

  it('no access mode conflict', () => {
    const node = onNode('node-1', podUsing('rwx', ['claim-with-rwx']));
    expect(run(podUsing('p', ['claim-with-rwop-1']), [node], objects)).toBe('skip');
  });

  it('access mode conflict, unschedulable', () => {
    const node = onNode('node-1', podUsing('other', ['claim-with-rwop-1']));
    expect(run(podUsing('p', ['claim-with-rwop-1']), [node], objects)).toEqual(conflict);
  });

  it('two conflicts, unschedulable', () => {
    const node = onNode('node-1', podUsing('other', ['claim-with-rwop-1', 'claim-with-rwop-2']));
    const pod = podUsing('p', ['claim-with-rwop-1', 'claim-with-rwop-2']);
    expect(run(pod, [node], objects)).toEqual(conflict);
  });

  it('the claim in use on another node rejects the pod on every node', () => {
    const free = onNode('node-1');
    const busy = onNode('node-2', podUsing('other', ['claim-with-rwop-1']));
    expect(run(podUsing('p', ['claim-with-rwop-1']), [free, busy], objects)).toEqual(conflict);
  });

  it('a claim of the same name in another namespace is another claim', () => {
    const node = onNode('node-1', podUsing('other', ['claim-with-rwop-1'], 'team'));
    expect(run(podUsing('p', ['claim-with-rwop-1']), [node], objects)).toBe('skip');
  });

  it('a pod on a node that left the cluster does not hold the claim (kube lists live nodes)', () => {
    // Absent nodes keep their charges but are not in nodeOrder, the only nodes looked at.
    onNode('node-gone', podUsing('other', ['claim-with-rwop-1']));
    expect(run(podUsing('p', ['claim-with-rwop-1']), [onNode('node-1')], objects)).toBe('skip');
  });

  it('sees a claim freed on a node it has looked at before (the per-node cache follows the generation)', () => {
    const holder = podUsing('other', ['claim-with-rwop-1']);
    const node = onNode('node-1', holder);
    const pod = podUsing('p', ['claim-with-rwop-1']);
    expect(run(pod, [node], objects)).toEqual(conflict);
    // The holder is replaced by a pod without the claim: same pod count, a new generation.
    node.pods.delete(holder.uid);
    chargePod(node, podUsing('unrelated', ['claim-with-rwx']));
    expect(run(pod, [node], objects)).toBe('skip');
    chargePod(node, podUsing('again', ['claim-with-rwop-1']));
    expect(run(pod, [node], objects)).toEqual(conflict);
  });

  it('Filter without PreFilter is an Error', () => {
    const s = volumeRestrictions.filter(makePod(), makeNode(), new Map());
    expect(s.code).toBe('Error');
  });
});

describe('VolumeRestrictions queueing hint', () => {
  const withVolumes = (charge: PodRecord['charge']): PodRecord => ({
    info: makePod({ name: 'holder', volumes: [gce('foo')] }),
    charge,
  });
  const without = (charge: PodRecord['charge']): PodRecord => ({ info: makePod(), charge });
  const bound = { kind: 'bound', node: 'n1' } as const;
  const none = { kind: 'none' } as const;
  const pod = (before?: PodRecord, after?: PodRecord): ClusterChange => ({
    kind: 'pod',
    uid: 'u',
    before,
    after,
    replaced: undefined,
  });
  const claim = claimObject({ name: 'c' });
  const cases: { name: string; change: ClusterChange; want: boolean }[] = [
    { name: 'a pod with volumes deleted from a node', change: pod(withVolumes(bound)), want: true },
    {
      name: 'a pod with volumes finished',
      change: pod(withVolumes(bound), withVolumes(none)),
      want: true,
    },
    { name: 'a pod without volumes deleted', change: pod(without(bound)), want: false },
    { name: 'an unbound pod with volumes deleted', change: pod(withVolumes(none)), want: false },
    { name: 'a pod with volumes added', change: pod(undefined, withVolumes(bound)), want: false },
    {
      name: 'a node added',
      change: { kind: 'node', name: 'n', before: undefined, after: makeNode() },
      want: true,
    },
    {
      name: 'a node updated',
      change: { kind: 'node', name: 'n', before: makeNode(), after: makeNode() },
      want: false,
    },
    {
      name: 'a claim added',
      change: {
        kind: 'object',
        objectKind: 'PersistentVolumeClaim',
        key: 'default/c',
        before: undefined,
        after: volumeSnapshot([], { claims: [claim] }).objects.PersistentVolumeClaim.get(
          'default/c',
        ),
      },
      want: true,
    },
    {
      name: 'a claim deleted',
      change: {
        kind: 'object',
        objectKind: 'PersistentVolumeClaim',
        key: 'default/c',
        before: volumeSnapshot([], { claims: [claim] }).objects.PersistentVolumeClaim.get(
          'default/c',
        ),
        after: undefined,
      },
      want: false,
    },
    {
      name: 'a reservation released',
      change: {
        kind: 'charge',
        uid: 'u',
        before: { kind: 'assumed', node: 'n', attempt: 1 },
        after: none,
      },
      want: true,
    },
    {
      name: 'a relist removed a pod with volumes',
      change: { kind: 'resync', removedNodes: [], removedPods: [withVolumes(bound)] },
      want: true,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(volumeRestrictionsHint(c.change)).toBe(c.want);
    });
  }
});
