// Table tests for NodeVolumeLimits (CSI attach limits, migration, ephemeral claims, hint), after kube's csi_test.
import { describe, expect, it } from 'vitest';
import { chargePod, makeNode, makePod } from '../../test/support/builders.ts';
import {
  claimObject,
  classObject,
  csiNodeObject,
  objectStore,
  pvcVolume,
  type TestObjects,
  volumeObject,
  volumeSnapshot,
} from '../../test/support/volumes.ts';
import type { PodVolume } from '../cluster/pod-volumes.ts';
import type { ClusterChange, PodInfo, PodRecord } from '../cluster/types.ts';
import type { CycleState, Status } from '../framework/types.ts';
import {
  ErrReasonMaxVolumeCountExceeded,
  name,
  nodeVolumeLimits,
  nodeVolumeLimitsHint,
} from './node-volume-limits.ts';

const ebs = 'ebs.csi.aws.com';
const gce = 'pd.csi.storage.gke.io';

/** Claims `<driver>-<n>` bound to CSI PVs with handle `<driver>-<n>`, and pending claims by class. */
function csiObjects(): Required<TestObjects> {
  const claims = [];
  const volumes = [];
  for (const driver of [ebs, gce]) {
    for (const n of ['a', 'b', 'c', 'd']) {
      const vol = `${driver}-${n}`;
      claims.push(claimObject({ name: vol, volumeName: vol, bound: true }));
      volumes.push(volumeObject({ name: vol, csi: { driver, volumeHandle: vol } }));
    }
  }
  claims.push(
    claimObject({ name: 'pending-1', storageClassName: 'ebs-sc' }),
    claimObject({ name: 'pending-2', storageClassName: 'ebs-sc' }),
    claimObject({ name: 'pv-missing', volumeName: 'no-such-pv', storageClassName: 'ebs-sc' }),
    claimObject({ name: 'sc-missing', storageClassName: 'no-such-sc' }),
    claimObject({ name: 'intree-pending', storageClassName: 'intree-sc' }),
    claimObject({ name: 'intree-ebs', volumeName: 'intree-ebs', bound: true }),
    claimObject({ name: 'p-scratch', controllerUid: 'uid-p' }),
    claimObject({ name: 'p-foreign', controllerUid: 'someone-else' }),
  );
  volumes.push(
    volumeObject({
      name: 'intree-ebs',
      spec: { awsElasticBlockStore: { volumeID: 'aws://us-east-1a/vol-1' } },
    }),
  );
  return {
    claims,
    volumes,
    classes: [classObject('ebs-sc', ebs), classObject('intree-sc', 'kubernetes.io/aws-ebs')],
    csiNodes: [],
  };
}

const claimVols = (...claims: string[]): PodVolume[] => claims.map((c) => pvcVolume(c));
const inlineEBS = (volumeID: string): PodVolume => ({
  name: `inline-${volumeID}`,
  type: 'awsElasticBlockStore',
  volumeID,
  readOnly: false,
});

interface Case {
  name: string;
  pod: PodVolume[];
  existing?: PodVolume[][];
  /** Per-driver limits of the node's CSINode; absent: the node has no CSINode. */
  limits?: Record<string, number | undefined>;
  migrated?: string;
  want: 'skip' | 'fits' | 'exceeds' | Status;
}

function run(c: Case): 'skip' | 'fits' | 'exceeds' | Status {
  const node = makeNode({ name: 'node-1' });
  (c.existing ?? []).forEach((v, i) => {
    chargePod(node, makePod({ name: `existing-${i}`, nodeName: 'node-1', volumes: v }));
  });
  const objects = csiObjects();
  if (c.limits !== undefined) objects.csiNodes.push(csiNodeObject('node-1', c.limits, c.migrated));
  const pod: PodInfo = makePod({ name: 'p', uid: 'uid-p', volumes: c.pod });
  const state: CycleState = new Map();
  const pre = nodeVolumeLimits.preFilter(pod, state, volumeSnapshot([node], objects));
  expect(pre.code).toBe('Success');
  if (nodeVolumeLimits.preFilterSkip(pod)) return 'skip';
  const s = nodeVolumeLimits.filter(pod, node, state);
  if (s.code === 'Success') return 'fits';
  if (s.code === 'Unschedulable' && s.reasons[0] === ErrReasonMaxVolumeCountExceeded) {
    expect(s).toEqual({
      code: 'Unschedulable',
      reasons: [ErrReasonMaxVolumeCountExceeded],
      plugin: name,
    });
    return 'exceeds';
  }
  return s;
}

describe('NodeVolumeLimits', () => {
  const two = [claimVols(`${ebs}-a`, `${ebs}-b`)];
  const cases: Case[] = [
    {
      name: 'fits when node volume limit >= new pods CSI volume',
      pod: claimVols(`${ebs}-c`, `${ebs}-d`),
      existing: two,
      limits: { [ebs]: 4 },
      want: 'fits',
    },
    {
      name: "doesn't when node volume limit <= pods CSI volume",
      pod: claimVols(`${ebs}-c`),
      existing: two,
      limits: { [ebs]: 2 },
      want: 'exceeds',
    },
    {
      name: 'fits when the driver does not report a limit',
      pod: claimVols(`${ebs}-c`),
      existing: two,
      limits: { [ebs]: undefined },
      want: 'fits',
    },
    {
      name: 'fits on a node without a CSINode',
      pod: claimVols(`${ebs}-c`),
      existing: two,
      want: 'fits',
    },
    {
      name: 'counts a pending claim by its class provisioner',
      pod: claimVols('pending-1'),
      existing: two,
      limits: { [ebs]: 2 },
      want: 'exceeds',
    },
    {
      name: 'counts several pending claims, each once',
      pod: claimVols('pending-1', 'pending-2'),
      existing: two,
      limits: { [ebs]: 4 },
      want: 'fits',
    },
    {
      name: 'counts a claim whose PV is missing by its class',
      pod: claimVols('pv-missing'),
      existing: two,
      limits: { [ebs]: 2 },
      want: 'exceeds',
    },
    {
      name: "doesn't count a claim whose class is missing",
      pod: claimVols('sc-missing'),
      existing: two,
      limits: { [ebs]: 2 },
      want: 'fits',
    },
    {
      name: "doesn't count volumes of another driver",
      pod: claimVols(`${gce}-a`),
      existing: two,
      limits: { [ebs]: 2, [gce]: 2 },
      want: 'fits',
    },
    {
      name: 'counts the other driver against its own limit',
      pod: claimVols(`${gce}-c`),
      existing: [claimVols(`${gce}-a`, `${gce}-b`)],
      limits: { [ebs]: 5, [gce]: 2 },
      want: 'exceeds',
    },
    {
      name: 'a volume the node already has counts once',
      pod: claimVols(`${ebs}-a`),
      existing: [claimVols(`${ebs}-a`), claimVols(`${ebs}-a`, `${ebs}-b`)],
      limits: { [ebs]: 2 },
      want: 'fits',
    },
    {
      name: 'counts in-tree inline EBS volumes (migration is on with a CSINode)',
      pod: [inlineEBS('vol-9')],
      existing: two,
      limits: { [ebs]: 2 },
      want: 'exceeds',
    },
    {
      name: 'nil CSI node: in-tree volumes are not migrated, nothing limits',
      pod: [inlineEBS('vol-9')],
      existing: two,
      want: 'fits',
    },
    {
      name: 'counts an in-tree EBS PV as its CSI volume',
      pod: claimVols('intree-ebs'),
      existing: two,
      limits: { [ebs]: 2 },
      want: 'exceeds',
    },
    {
      name: 'an in-tree PV and an inline volume of the same EBS id are one volume',
      pod: [inlineEBS('vol-1')],
      existing: [claimVols('intree-ebs', `${ebs}-a`)],
      limits: { [ebs]: 2 },
      want: 'fits',
    },
    {
      name: 'counts a pending claim of an in-tree class as the migrated driver',
      pod: claimVols('intree-pending'),
      existing: two,
      limits: { [ebs]: 2 },
      want: 'exceeds',
    },
    {
      name: 'should not count non-migratable in-tree volumes',
      pod: [{ name: 'r', type: 'rbd', monitors: ['m'], pool: 'p', image: 'i', readOnly: false }],
      existing: two,
      limits: { [ebs]: 2 },
      want: 'skip',
    },
    {
      name: 'a Portworx volume counts only where the CSINode lists it as migrated',
      pod: [{ name: 'px', type: 'portworxVolume', volumeID: 'px-1' }],
      existing: [],
      limits: { 'pxd.portworx.com': 0 },
      want: 'fits',
    },
    {
      name: 'a Portworx volume on a node with Portworx migrated',
      pod: [{ name: 'px', type: 'portworxVolume', volumeID: 'px-1' }],
      existing: [],
      limits: { 'pxd.portworx.com': 0 },
      migrated: 'kubernetes.io/portworx-volume',
      want: 'exceeds',
    },
    {
      name: 'an inline Azure disk of a kind migration cannot translate is an Error',
      pod: [{ name: 'az', type: 'azureDisk', diskURI: 'uri', kind: 'Shared' }],
      limits: { 'disk.csi.azure.com': 8 },
      want: {
        code: 'Error',
        reasons: [
          'converting volume(az) from inline to csi: kind(Shared) is not supported in csi migration',
        ],
        plugin: name,
      },
    },
    {
      name: 'ephemeral volume missing',
      pod: [{ name: 'xyz', type: 'ephemeral' }],
      limits: { [ebs]: undefined },
      want: {
        code: 'UnschedulableAndUnresolvable',
        reasons: ['looking up PVC default/p-xyz: persistentvolumeclaim "p-xyz" not found'],
        plugin: name,
      },
    },
    {
      name: 'ephemeral volume not owned',
      pod: [{ name: 'foreign', type: 'ephemeral' }],
      limits: { [ebs]: undefined },
      want: {
        code: 'Error',
        reasons: ['PVC default/p-foreign was not created for pod default/p (pod is not owner)'],
        plugin: name,
      },
    },
    {
      name: 'ephemeral volume unbound and owned: counted by its class (none here)',
      pod: [{ name: 'scratch', type: 'ephemeral' }],
      existing: two,
      limits: { [ebs]: 2 },
      want: 'fits',
    },
    {
      name: 'a claim the incoming pod names must exist',
      pod: claimVols('nope'),
      limits: { [ebs]: 2 },
      want: {
        code: 'UnschedulableAndUnresolvable',
        reasons: ['looking up PVC default/nope: persistentvolumeclaim "nope" not found'],
        plugin: name,
      },
    },
    {
      name: "an existing pod's missing claim is not counted",
      pod: claimVols(`${ebs}-c`),
      existing: [claimVols('nope', `${ebs}-a`)],
      limits: { [ebs]: 2 },
      want: 'fits',
    },
    {
      name: 'skip Filter when the pod only uses other volumes',
      pod: [],
      existing: two,
      limits: { [ebs]: 0 },
      want: 'skip',
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(run(c)).toEqual(c.want);
    });
  }

  it('Filter without PreFilter is an Error', () => {
    const pod = makePod({ volumes: claimVols('x') });
    expect(nodeVolumeLimits.filter(pod, makeNode(), new Map()).code).toBe('Error');
  });
});

describe('NodeVolumeLimits queueing hint', () => {
  const store = objectStore({
    csiNodes: [
      csiNodeObject('n', { [ebs]: 2, [gce]: 1 }),
      csiNodeObject('n', { [ebs]: 3, [gce]: 1 }),
      csiNodeObject('n', { [ebs]: 1, [gce]: 1 }),
    ],
  });
  const csi = (limits: Record<string, number>) =>
    objectStore({ csiNodes: [csiNodeObject('n', limits)] }).CSINode.get('n');
  const csiChange = (before: unknown, after: unknown): ClusterChange =>
    ({ kind: 'object', objectKind: 'CSINode', key: 'n', before, after }) as ClusterChange;
  const rec = (
    volumes: PodVolume[],
    charge: PodRecord['charge'],
    nominated?: string,
  ): PodRecord => ({
    info: makePod({ volumes, nominatedNodeName: nominated }),
    charge,
  });
  const deleted = (before: PodRecord): ClusterChange => ({
    kind: 'pod',
    uid: 'u',
    before,
    after: undefined,
    replaced: undefined,
  });
  const bound = { kind: 'bound', node: 'n' } as const;
  const none = { kind: 'none' } as const;
  const claim = objectStore({ claims: [claimObject({ name: 'c' })] }).PersistentVolumeClaim.get(
    'default/c',
  );
  const cases: { name: string; change: ClusterChange; want: boolean }[] = [
    { name: 'a CSINode added', change: csiChange(undefined, store.CSINode.get('n')), want: true },
    {
      name: 'limit raised, queue',
      change: csiChange(csi({ [ebs]: 2 }), csi({ [ebs]: 3 })),
      want: true,
    },
    {
      name: 'limit decreased, skip queueing',
      change: csiChange(csi({ [ebs]: 2 }), csi({ [ebs]: 1 })),
      want: false,
    },
    {
      name: 'limit unchanged, skip queueing',
      change: csiChange(csi({ [ebs]: 2 }), csi({ [ebs]: 2 })),
      want: false,
    },
    {
      name: 'a driver gains a limit',
      change: csiChange(csi({ [ebs]: 2 }), csi({ [ebs]: 2, [gce]: 1 })),
      want: true,
    },
    { name: 'a deleted pod had a claim', change: deleted(rec(claimVols('c'), bound)), want: true },
    {
      name: 'a deleted pod had an inline migratable volume',
      change: deleted(rec([inlineEBS('v')], bound)),
      want: true,
    },
    { name: "a deleted pod didn't have any volume", change: deleted(rec([], bound)), want: false },
    {
      name: 'a deleted pod was not scheduled',
      change: deleted(rec(claimVols('c'), none)),
      want: false,
    },
    {
      name: 'a deleted pod was nominated',
      change: deleted(rec(claimVols('c'), none, 'n')),
      want: true,
    },
    {
      name: 'a PVC added',
      change: {
        kind: 'object',
        objectKind: 'PersistentVolumeClaim',
        key: 'default/c',
        before: undefined,
        after: claim,
      },
      want: true,
    },
    {
      name: 'a PVC updated',
      change: {
        kind: 'object',
        objectKind: 'PersistentVolumeClaim',
        key: 'default/c',
        before: claim,
        after: claim,
      },
      want: false,
    },
    {
      name: 'a node added',
      change: { kind: 'node', name: 'n', before: undefined, after: makeNode() },
      want: false,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(nodeVolumeLimitsHint(c.change)).toBe(c.want);
    });
  }
});
