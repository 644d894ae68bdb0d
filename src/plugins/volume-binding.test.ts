// Table tests for VolumeBinding (claim states, PV node affinity, berth's refusals, hint), after kube's volume_binding_test.
import { describe, expect, it } from 'vitest';
import { makeNode, makePod } from '../../test/support/builders.ts';
import {
  claimObject,
  classObject,
  csiNodeObject,
  objectStore,
  pvcVolume,
  type TestObjects,
  volumeObject,
  volumeSnapshot,
  volumeWithAffinity,
} from '../../test/support/volumes.ts';
import type { PodVolume } from '../cluster/pod-volumes.ts';
import type { ClusterChange, NodeInfo, PodInfo } from '../cluster/types.ts';
import type { CycleState, Status } from '../framework/types.ts';
import {
  ErrReasonNodeConflict,
  ErrReasonPVNotExist,
  ErrReasonUnboundImmediate,
  name,
  volumeBinding,
  volumeBindingHint,
} from './volume-binding.ts';

const wait = classObject('wait-sc', 'csi.example.com', 'WaitForFirstConsumer');
const immediate = classObject('immediate-sc', 'csi.example.com', 'Immediate');
const noMode = classObject('no-mode-sc', 'csi.example.com');
const hostTerm = (host: string) => ({
  matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [host] }],
});

const objects: TestObjects = {
  classes: [wait, immediate, noMode],
  claims: [
    claimObject({ name: 'pvc-a', storageClassName: 'wait-sc', volumeName: 'pv-a', bound: true }),
    claimObject({ name: 'pvc-local', volumeName: 'pv-local', bound: true }),
    claimObject({ name: 'pvc-foo', volumeName: 'pv-foo', bound: true }),
    claimObject({ name: 'pvc-fields', volumeName: 'pv-fields', bound: true }),
    claimObject({ name: 'pvc-empty', volumeName: 'pv-empty-terms', bound: true }),
    claimObject({
      name: 'pvc-ghost',
      storageClassName: 'wait-sc',
      volumeName: 'pv-gone',
      bound: true,
    }),
    claimObject({
      name: 'pvc-lost',
      storageClassName: 'wait-sc',
      volumeName: 'pv-a',
      bound: true,
      phase: 'Lost',
    }),
    claimObject({ name: 'pvc-deleting', volumeName: 'pv-a', bound: true, deleting: true }),
    claimObject({ name: 'pvc-immediate', storageClassName: 'immediate-sc' }),
    claimObject({ name: 'pvc-no-class' }),
    claimObject({ name: 'pvc-unknown-class', storageClassName: 'gone-sc' }),
    claimObject({ name: 'pvc-wait', storageClassName: 'wait-sc' }),
    claimObject({ name: 'pvc-no-mode', storageClassName: 'no-mode-sc' }),
    // Pre-bound by a user (volumeName set) but the PV controller has not finished.
    claimObject({ name: 'pvc-prebound', storageClassName: 'wait-sc', volumeName: 'pv-a' }),
    claimObject({
      name: 'pod-a-scratch',
      storageClassName: 'wait-sc',
      volumeName: 'pv-a',
      bound: true,
      controllerUid: 'uid-pod-a',
    }),
    claimObject({ name: 'pod-a-other', volumeName: 'pv-a', bound: true, controllerUid: 'uid-x' }),
  ],
  volumes: [
    volumeObject({ name: 'pv-a', spec: { storageClassName: 'wait-sc' } }),
    volumeObject(volumeWithAffinity('pv-local', [hostTerm('node-a')])),
    volumeObject(
      volumeWithAffinity('pv-foo', [
        { matchExpressions: [{ key: 'foo', operator: 'In', values: ['bar'] }] },
      ]),
    ),
    volumeObject(
      volumeWithAffinity('pv-fields', [
        { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['some-other-node'] }] },
      ]),
    ),
    volumeObject(volumeWithAffinity('pv-empty-terms', [])),
  ],
};

/** PreFilter, then (unless rejected or skipped) Filter on each node: one Status per node. */
function run(pod: PodInfo, nodes: NodeInfo[]): Status | 'skip' | Status[] {
  const state: CycleState = new Map();
  const pre = volumeBinding.preFilter(pod, state, volumeSnapshot(nodes, objects));
  if (pre.code !== 'Success') return pre;
  if (volumeBinding.preFilterSkip(pod, state)) return 'skip';
  return nodes.map((n) => volumeBinding.filter(pod, n, state));
}

const podWith = (...volumes: PodVolume[]): PodInfo =>
  makePod({ name: 'pod-a', uid: 'uid-pod-a', volumes });
const claims = (...names: string[]) => podWith(...names.map((n) => pvcVolume(n)));
const nodeA = makeNode({
  name: 'node-a',
  labels: { 'kubernetes.io/hostname': 'node-a', foo: 'bar' },
});
const nodeB = makeNode({
  name: 'node-b',
  labels: { 'kubernetes.io/hostname': 'node-b', foo: 'barbar' },
});
const ok: Status = { code: 'Success', reasons: [] };
const unresolvable = (reason: string): Status => ({
  code: 'UnschedulableAndUnresolvable',
  reasons: [reason],
  plugin: name,
});

describe('VolumeBinding', () => {
  const cases: { name: string; pod: PodInfo; want: Status | 'skip' | Status[] }[] = [
    { name: 'pod has no pvcs', pod: makePod(), want: 'skip' },
    {
      name: 'an emptyDir-only pod (volumes the plugins do not read) has no pvcs',
      pod: makePod({ volumes: [] }),
      want: 'skip',
    },
    { name: 'all bound', pod: claims('pvc-a'), want: [ok, ok] },
    {
      name: 'PVC does not exist',
      pod: claims('pvc-x'),
      want: unresolvable('persistentvolumeclaim "pvc-x" not found'),
    },
    {
      name: 'Part of PVCs do not exist',
      pod: claims('pvc-a', 'pvc-b'),
      want: unresolvable('persistentvolumeclaim "pvc-b" not found'),
    },
    {
      name: 'immediate claims not bound',
      pod: claims('pvc-immediate'),
      want: unresolvable(ErrReasonUnboundImmediate),
    },
    {
      name: 'an unbound claim without a class is immediate',
      pod: claims('pvc-no-class'),
      want: unresolvable(ErrReasonUnboundImmediate),
    },
    {
      name: 'an unbound claim of a class that does not exist is immediate',
      pod: claims('pvc-unknown-class'),
      want: unresolvable(ErrReasonUnboundImmediate),
    },
    {
      name: 'a pre-bound claim not yet completed is immediate',
      pod: claims('pvc-prebound'),
      want: unresolvable(ErrReasonUnboundImmediate),
    },
    {
      name: 'unbound WaitForFirstConsumer claim: berth does not bind or provision, and says which',
      pod: claims('pvc-a', 'pvc-wait'),
      want: unresolvable(
        'berth does not bind or provision volumes yet: persistentvolumeclaim "default/pvc-wait" is not bound',
      ),
    },
    {
      name: 'an unbound immediate claim wins over a delayed one, as in kube',
      pod: claims('pvc-wait', 'pvc-immediate'),
      want: unresolvable(ErrReasonUnboundImmediate),
    },
    {
      name: 'a class without a binding mode is an Error',
      pod: claims('pvc-no-mode'),
      want: {
        code: 'Error',
        reasons: ['VolumeBindingMode not set for StorageClass "no-mode-sc"'],
        plugin: name,
      },
    },
    {
      name: 'pv not found',
      pod: claims('pvc-ghost'),
      want: [unresolvable(ErrReasonPVNotExist), unresolvable(ErrReasonPVNotExist)],
    },
    {
      name: 'pv not found claim lost',
      pod: claims('pvc-lost'),
      want: unresolvable(
        'persistentvolumeclaim "pvc-lost" bound to non-existent persistentvolume "pv-a"',
      ),
    },
    {
      name: 'a claim being deleted',
      pod: claims('pvc-deleting'),
      want: unresolvable('persistentvolumeclaim "pvc-deleting" is being deleted'),
    },
    {
      name: "a local PV's node affinity picks its node",
      pod: claims('pvc-local'),
      want: [ok, unresolvable(ErrReasonNodeConflict)],
    },
    {
      name: 'a label affinity is checked against node labels',
      pod: claims('pvc-foo'),
      want: [ok, unresolvable(ErrReasonNodeConflict)],
    },
    {
      name: 'every bound PV must allow the node',
      pod: claims('pvc-local', 'pvc-foo'),
      want: [ok, unresolvable(ErrReasonNodeConflict)],
    },
    {
      name: 'the first problem decides: a missing PV before a conflicting one',
      pod: claims('pvc-ghost', 'pvc-local'),
      want: [unresolvable(ErrReasonPVNotExist), unresolvable(ErrReasonPVNotExist)],
    },
    {
      name: 'matchFields are not checked (kube matches a PV against the node labels only)',
      pod: claims('pvc-fields'),
      want: [ok, ok],
    },
    {
      name: 'required affinity with no terms matches no node',
      pod: claims('pvc-empty'),
      want: [unresolvable(ErrReasonNodeConflict), unresolvable(ErrReasonNodeConflict)],
    },
    {
      name: 'generic ephemeral volume, claim not created yet',
      pod: podWith({ name: 'missing', type: 'ephemeral' }),
      want: unresolvable(
        'waiting for ephemeral volume controller to create the persistentvolumeclaim "pod-a-missing"',
      ),
    },
    {
      name: 'generic ephemeral volume owned by the pod, bound',
      pod: podWith({ name: 'scratch', type: 'ephemeral' }),
      want: [ok, ok],
    },
    {
      name: 'generic ephemeral volume owned by another pod',
      pod: podWith({ name: 'other', type: 'ephemeral' }),
      want: unresolvable(
        'PVC default/pod-a-other was not created for pod default/pod-a (pod is not owner)',
      ),
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(run(c.pod, [nodeA, nodeB])).toEqual(c.want);
    });
  }

  it('Filter without PreFilter is an Error', () => {
    expect(volumeBinding.filter(claims('pvc-a'), nodeA, new Map()).code).toBe('Error');
  });
});

describe('VolumeBinding queueing hint', () => {
  const store = objectStore({
    ...objects,
    csiNodes: [csiNodeObject('n', {}, 'kubernetes.io/aws-ebs')],
  });
  const csiPlain = objectStore({ csiNodes: [csiNodeObject('n', {})] }).CSINode.get('n');
  const csiMigrated = store.CSINode.get('n');
  const obj = (objectKind: string, before: unknown, after: unknown): ClusterChange =>
    ({ kind: 'object', objectKind, key: 'k', before, after }) as ClusterChange;
  const topo = classObject('topo', 'p', 'WaitForFirstConsumer');
  topo.allowedTopologies = [{ matchLabelExpressions: [{ key: 'zone', values: ['a'] }] }];
  const topoSC = objectStore({ classes: [topo] }).StorageClass.get('topo');
  const waitSC = store.StorageClass.get('wait-sc');
  const cases: { name: string; change: ClusterChange; want: boolean }[] = [
    { name: 'CSINode is newly created', change: obj('CSINode', undefined, csiPlain), want: true },
    {
      name: "CSINode's migrated-plugins annotation is added",
      change: obj('CSINode', csiPlain, csiMigrated),
      want: true,
    },
    {
      name: 'CSINode is updated but migrated-plugins annotation gets unchanged',
      change: obj('CSINode', csiMigrated, csiMigrated),
      want: false,
    },
    {
      name: 'the pvc is modified',
      change: obj(
        'PersistentVolumeClaim',
        undefined,
        store.PersistentVolumeClaim.get('default/pvc-a'),
      ),
      want: true,
    },
    {
      name: 'a pvc deleted',
      change: obj(
        'PersistentVolumeClaim',
        store.PersistentVolumeClaim.get('default/pvc-a'),
        undefined,
      ),
      want: false,
    },
    {
      name: 'a PV added',
      change: obj('PersistentVolume', undefined, store.PersistentVolume.get('pv-a')),
      want: true,
    },
    { name: 'a StorageClass added', change: obj('StorageClass', undefined, waitSC), want: true },
    {
      name: 'When the AllowedTopologies are changed, it returns Queue',
      change: obj('StorageClass', waitSC, { ...topoSC, name: 'wait-sc' }),
      want: true,
    },
    {
      name: 'When there are no changes to the StorageClass, it returns QueueSkip',
      change: obj('StorageClass', waitSC, waitSC),
      want: false,
    },
    {
      name: 'a node relabelled',
      change: {
        kind: 'node',
        name: 'n',
        before: makeNode({ labels: { a: '1' } }),
        after: makeNode(),
      },
      want: true,
    },
    {
      name: 'a pod deleted frees no claim binding',
      change: { kind: 'pod', uid: 'u', before: undefined, after: undefined, replaced: undefined },
      want: false,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(volumeBindingHint(c.change)).toBe(c.want);
    });
  }
});
