// Table tests for VolumeZone (PreFilter rejections and skips, Filter, hint), after kube's volume_zone_test.
import { describe, expect, it } from 'vitest';
import { makeNode, makePod } from '../../test/support/builders.ts';
import {
  claimObject,
  classObject,
  objectStore,
  pvcVolume,
  type TestObjects,
  volumeObject,
  volumeSnapshot,
} from '../../test/support/volumes.ts';
import type { ClusterChange, NodeInfo, PodInfo } from '../cluster/types.ts';
import type { CycleState, Status } from '../framework/types.ts';
import {
  ErrReasonConflict,
  name,
  pvTopologies,
  volumeZone,
  volumeZoneHint,
} from './volume-zone.ts';

const betaZone = 'failure-domain.beta.kubernetes.io/zone';
const betaRegion = 'failure-domain.beta.kubernetes.io/region';
const zone = 'topology.kubernetes.io/zone';
const region = 'topology.kubernetes.io/region';

const objects: TestObjects = {
  volumes: [
    volumeObject({ name: 'Vol_1', labels: { [betaZone]: 'us-west1-a' } }),
    volumeObject({ name: 'Vol_2', labels: { [betaRegion]: 'us-west1', uselessLabel: 'none' } }),
    volumeObject({ name: 'Vol_Stable_1', labels: { [zone]: 'us-west1-a' } }),
    volumeObject({ name: 'Vol_Stable_2', labels: { [region]: 'us-west1', uselessLabel: 'none' } }),
    volumeObject({
      name: 'Vol_Stable_3',
      labels: { [zone]: 'us-west1-a', [region]: 'us-west1-a' },
    }),
    volumeObject({ name: 'Vol_Multi', labels: { [betaZone]: 'us-west1-c__us-west1-a' } }),
    volumeObject({ name: 'Vol_Bad', labels: { [zone]: 'us-west1-a__' } }),
    volumeObject({ name: 'Vol_None', labels: { uselessLabel: 'none' } }),
  ],
  claims: [
    claimObject({ name: 'PVC_1', volumeName: 'Vol_1', bound: true }),
    claimObject({ name: 'PVC_2', volumeName: 'Vol_2', bound: true }),
    claimObject({ name: 'PVC_4', volumeName: 'Vol_not_exist', bound: true }),
    claimObject({ name: 'PVC_Stable_1', volumeName: 'Vol_Stable_1', bound: true }),
    claimObject({ name: 'PVC_Stable_2', volumeName: 'Vol_Stable_2', bound: true }),
    claimObject({ name: 'PVC_Stable_3', volumeName: 'Vol_Stable_3', bound: true }),
    claimObject({ name: 'PVC_Multi', volumeName: 'Vol_Multi', bound: true }),
    claimObject({ name: 'PVC_Bad', volumeName: 'Vol_Bad', bound: true }),
    claimObject({ name: 'PVC_None', volumeName: 'Vol_None', bound: true }),
    claimObject({ name: 'PVC_NoClass' }),
    claimObject({ name: 'PVC_WFFC', storageClassName: 'wffc' }),
    claimObject({ name: 'PVC_Immediate', storageClassName: 'immediate' }),
    claimObject({ name: 'PVC_NoMode', storageClassName: 'no-mode' }),
    claimObject({ name: 'PVC_MissingClass', storageClassName: 'nope' }),
    // The beta annotation names the class even when spec.storageClassName says otherwise.
    claimObject({
      name: 'PVC_BetaClass',
      storageClassName: 'immediate',
      annotations: { 'volume.beta.kubernetes.io/storage-class': 'wffc' },
    }),
  ],
  classes: [
    classObject('wffc', 'csi.example.com', 'WaitForFirstConsumer'),
    classObject('immediate', 'csi.example.com', 'Immediate'),
    classObject('no-mode', 'csi.example.com'),
  ],
};

/** PreFilter then (unless rejected or skipped) Filter on one node with `labels`. */
function run(pod: PodInfo, labels: Record<string, string>): 'skip' | Status {
  const state: CycleState = new Map();
  const node: NodeInfo = makeNode({ name: 'host1', labels });
  const pre = volumeZone.preFilter(pod, state, volumeSnapshot([node], objects));
  if (pre.code !== 'Success') return pre;
  if (volumeZone.preFilterSkip(pod, state)) return 'skip';
  return volumeZone.filter(pod, node, state);
}

const podWith = (...claims: string[]): PodInfo =>
  makePod({ name: 'pod_1', volumes: claims.map((c) => pvcVolume(c)) });
const ok: Status = { code: 'Success', reasons: [] };
const conflict: Status = {
  code: 'UnschedulableAndUnresolvable',
  reasons: [ErrReasonConflict],
  plugin: name,
};
const unresolvable = (reason: string): Status => ({
  code: 'UnschedulableAndUnresolvable',
  reasons: [reason],
  plugin: name,
});

describe('VolumeZone', () => {
  const cases: {
    name: string;
    pod: PodInfo;
    node: Record<string, string>;
    want: 'skip' | Status;
  }[] = [
    {
      name: 'pod without volume',
      pod: makePod(),
      node: { [betaZone]: 'us-west1-a' },
      want: 'skip',
    },
    { name: 'node without labels', pod: podWith('PVC_1'), node: {}, want: ok },
    {
      name: 'beta zone label matched',
      pod: podWith('PVC_1'),
      node: { [betaZone]: 'us-west1-a', uselessLabel: 'none' },
      want: ok,
    },
    {
      name: 'beta region label matched',
      pod: podWith('PVC_2'),
      node: { [betaRegion]: 'us-west1', uselessLabel: 'none' },
      want: ok,
    },
    {
      name: "beta region label doesn't match",
      pod: podWith('PVC_2'),
      node: { [betaRegion]: 'no_us-west1', uselessLabel: 'none' },
      want: conflict,
    },
    {
      name: "beta zone label doesn't match",
      pod: podWith('PVC_1'),
      node: { [betaZone]: 'no_us-west1-a', uselessLabel: 'none' },
      want: conflict,
    },
    {
      name: 'zone label matched',
      pod: podWith('PVC_Stable_1'),
      node: { [zone]: 'us-west1-a' },
      want: ok,
    },
    {
      name: 'region label matched',
      pod: podWith('PVC_Stable_2'),
      node: { [region]: 'us-west1' },
      want: ok,
    },
    {
      name: "region label doesn't match",
      pod: podWith('PVC_Stable_2'),
      node: { [region]: 'no_us-west1' },
      want: conflict,
    },
    {
      name: "zone label doesn't match",
      pod: podWith('PVC_Stable_1'),
      node: { [zone]: 'no_us-west1-a' },
      want: conflict,
    },
    {
      name: 'pv with zone and region, node with only zone',
      pod: podWith('PVC_Stable_3'),
      node: { [zone]: 'us-west1-a' },
      want: conflict,
    },
    {
      name: 'pv with zone, node with beta zone',
      pod: podWith('PVC_Stable_1'),
      node: { [betaZone]: 'us-west1-a' },
      want: conflict,
    },
    {
      name: 'pv with beta label, node with ga label, matched',
      pod: podWith('PVC_1'),
      node: { [zone]: 'us-west1-a' },
      want: ok,
    },
    {
      name: "pv with beta label, node with ga label, don't match",
      pod: podWith('PVC_1'),
      node: { [zone]: 'us-west1-b' },
      want: conflict,
    },
    {
      name: 'multi-zone pv: any of its zones matches',
      pod: podWith('PVC_Multi'),
      node: { [betaZone]: 'us-west1-a' },
      want: ok,
    },
    {
      name: 'multi-zone pv: none of its zones',
      pod: podWith('PVC_Multi'),
      node: { [betaZone]: 'us-west1-b' },
      want: conflict,
    },
    {
      name: 'a pv label with an empty zone is ignored',
      pod: podWith('PVC_Bad'),
      node: { [zone]: 'elsewhere' },
      want: 'skip',
    },
    {
      name: 'a pv without topology labels',
      pod: podWith('PVC_None'),
      node: { [zone]: 'a' },
      want: 'skip',
    },
    {
      name: 'every volume must fit: the second does not',
      pod: podWith('PVC_1', 'PVC_2'),
      node: { [betaZone]: 'us-west1-a', [betaRegion]: 'us-east1' },
      want: conflict,
    },
    {
      name: 'a claim that does not exist',
      pod: podWith('PVC_nope'),
      node: {},
      want: unresolvable('persistentvolumeclaim "PVC_nope" not found'),
    },
    {
      name: 'a claim bound to a PV that does not exist',
      pod: podWith('PVC_4'),
      node: {},
      want: unresolvable('persistentvolume "Vol_not_exist" not found'),
    },
    {
      name: 'an unnamed claim',
      pod: podWith(''),
      node: {},
      want: unresolvable('PersistentVolumeClaim had no name'),
    },
    {
      name: 'an unbound claim without a class',
      pod: podWith('PVC_NoClass'),
      node: {},
      want: unresolvable('PersistentVolumeClaim had no pv name and storageClass name'),
    },
    {
      name: 'an unbound WaitForFirstConsumer claim is skipped',
      pod: podWith('PVC_WFFC'),
      node: { [zone]: 'x' },
      want: 'skip',
    },
    {
      name: 'an unbound WaitForFirstConsumer claim (by the beta annotation) is skipped',
      pod: podWith('PVC_BetaClass'),
      node: { [zone]: 'x' },
      want: 'skip',
    },
    {
      name: 'an unbound Immediate claim',
      pod: podWith('PVC_Immediate'),
      node: {},
      want: unresolvable('PersistentVolume had no name'),
    },
    {
      name: 'an unbound claim whose class has no binding mode',
      pod: podWith('PVC_NoMode'),
      node: {},
      want: unresolvable('VolumeBindingMode not set for StorageClass "no-mode"'),
    },
    {
      name: 'an unbound claim whose class does not exist',
      pod: podWith('PVC_MissingClass'),
      node: {},
      want: unresolvable('storageclass.storage.k8s.io "nope" not found'),
    },
    {
      name: 'generic ephemeral volumes are not VolumeZone’s',
      pod: makePod({ name: 'p', volumes: [{ name: 'scratch', type: 'ephemeral' }] }),
      node: { [zone]: 'x' },
      want: 'skip',
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(run(c.pod, c.node)).toEqual(c.want);
    });
  }
});

describe('VolumeZone queueing hint', () => {
  const store = objectStore(objects);
  const pv = (n: string) => store.PersistentVolume.get(n);
  const obj = (
    objectKind: 'PersistentVolume' | 'PersistentVolumeClaim' | 'StorageClass' | 'CSINode',
    before: unknown,
    after: unknown,
  ): ClusterChange => ({ kind: 'object', objectKind, key: 'k', before, after }) as ClusterChange;
  const relabelled = { ...pv('Vol_1'), topologyLabels: [[zone, 'us-west1-b']] };
  const cases: { name: string; change: ClusterChange; want: boolean }[] = [
    { name: 'a PV added', change: obj('PersistentVolume', undefined, pv('Vol_1')), want: true },
    {
      name: 'a PV updated with the same topology',
      change: obj('PersistentVolume', pv('Vol_1'), { ...pv('Vol_1'), phase: 'Bound' }),
      want: false,
    },
    {
      name: 'a PV relabelled',
      change: obj('PersistentVolume', pv('Vol_1'), relabelled),
      want: true,
    },
    {
      name: 'a claim updated',
      change: obj(
        'PersistentVolumeClaim',
        store.PersistentVolumeClaim.get('default/PVC_1'),
        store.PersistentVolumeClaim.get('default/PVC_1'),
      ),
      want: true,
    },
    {
      name: 'a WaitForFirstConsumer class added',
      change: obj('StorageClass', undefined, store.StorageClass.get('wffc')),
      want: true,
    },
    {
      name: 'an Immediate class added',
      change: obj('StorageClass', undefined, store.StorageClass.get('immediate')),
      want: false,
    },
    {
      name: 'a node relabelled',
      change: {
        kind: 'node',
        name: 'n',
        before: makeNode({ labels: { [zone]: 'a' } }),
        after: makeNode({ labels: { [zone]: 'b' } }),
      },
      want: true,
    },
    {
      name: 'a node updated, labels unchanged',
      change: { kind: 'node', name: 'n', before: makeNode(), after: makeNode() },
      want: false,
    },
    {
      name: 'a pod deleted',
      change: { kind: 'pod', uid: 'u', before: undefined, after: undefined, replaced: undefined },
      want: false,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(volumeZoneHint(c.change)).toBe(c.want);
    });
  }

  it('reads a multi-zone label as a set of trimmed zones', () => {
    expect(
      pvTopologies({ ...pv('Vol_1'), topologyLabels: [[zone, ' a __b__a']] } as never),
    ).toEqual([{ pvName: 'Vol_1', key: zone, values: ['a', 'b'] }]);
  });
});
