// Parser tests for the volume kinds (PVC, PV, StorageClass, CSINode), through trim and the reducer, and their snapshot round trip.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { trimObject } from '../adapters/trim.ts';
import type { BerthEvent } from '../events/types.ts';
import { type ObjectKind, objectKinds, objectParsers } from './cluster-objects.ts';
import { checkClusterInvariants } from './invariants.ts';
import { evolve, initialState } from './reducer.ts';
import { type ClusterStateData, restoreClusterState, serializeClusterState } from './serialize.ts';
import type { ClusterState } from './types.ts';
import {
  parseCSINode,
  parsePersistentVolume,
  parsePersistentVolumeClaim,
  parseStorageClass,
} from './volume-objects.ts';

const claim = {
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: {
    name: 'data-web-0',
    namespace: 'shop',
    uid: 'c-1',
    resourceVersion: '7',
    annotations: {
      'pv.kubernetes.io/bind-completed': 'yes',
      'pv.kubernetes.io/bound-by-controller': 'yes',
      'volume.beta.kubernetes.io/storage-class': 'beta-class',
      'volume.kubernetes.io/selected-node': 'node-1',
    },
    deletionTimestamp: '2025-01-01T00:00:00Z',
    ownerReferences: [
      { apiVersion: 'v1', kind: 'Pod', name: 'web-0', uid: 'pod-1', controller: true },
    ],
    managedFields: [{}],
  },
  spec: {
    accessModes: ['ReadWriteOncePod'],
    storageClassName: 'standard',
    volumeName: 'pv-1',
    resources: { requests: { storage: '1Gi' } },
  },
  status: { phase: 'Bound', capacity: { storage: '1Gi' } },
};

const volume = {
  metadata: {
    name: 'pv-1',
    labels: { 'topology.kubernetes.io/zone': 'us-a', other: 'x' },
    annotations: { 'volume.beta.kubernetes.io/storage-class': 'beta-class', noise: '1' },
  },
  spec: {
    storageClassName: 'standard',
    csi: { driver: 'ebs.csi.aws.com', volumeHandle: 'vol-1', fsType: 'ext4' },
    nodeAffinity: {
      required: {
        nodeSelectorTerms: [
          { matchExpressions: [{ key: 'zone', operator: 'In', values: ['us-a'] }] },
          { matchExpressions: [{ key: 'zone', operator: 'Bogus' }] },
        ],
      },
    },
    capacity: { storage: '1Gi' },
  },
  status: { phase: 'Bound' },
};

const storageClass = {
  metadata: { name: 'fast' },
  provisioner: 'ebs.csi.aws.com',
  volumeBindingMode: 'WaitForFirstConsumer',
  allowedTopologies: [{ matchLabelExpressions: [{ key: 'zone', values: ['us-a'] }] }],
  parameters: { type: 'gp3' },
};

const csiNode = {
  metadata: {
    name: 'node-1',
    annotations: {
      'storage.alpha.kubernetes.io/migrated-plugins': 'kubernetes.io/aws-ebs,kubernetes.io/gce-pd',
    },
  },
  spec: {
    drivers: [
      {
        name: 'ebs.csi.aws.com',
        nodeID: 'i-1',
        allocatable: { count: 25 },
        topologyKeys: ['zone'],
      },
      { name: 'efs.csi.aws.com', nodeID: 'i-1' },
      { name: 'bad', allocatable: { count: 'many' } },
    ],
  },
};

describe('volume object parsers, after trimming', () => {
  it('reads a PersistentVolumeClaim', () => {
    expect(parsePersistentVolumeClaim(trimObject('PersistentVolumeClaim', claim))).toEqual({
      value: {
        namespace: 'shop',
        name: 'data-web-0',
        volumeName: 'pv-1',
        storageClassName: 'beta-class',
        accessModes: ['ReadWriteOncePod'],
        phase: 'Bound',
        bindCompleted: true,
        selectedNode: 'node-1',
        deleting: true,
        controllerUid: 'pod-1',
      },
    });
  });

  it('reads a PersistentVolume, dropping a malformed affinity term', () => {
    expect(parsePersistentVolume(trimObject('PersistentVolume', volume))).toEqual({
      value: {
        name: 'pv-1',
        storageClassName: 'beta-class',
        requiredNodeAffinity: [
          { matchExpressions: [{ key: 'zone', operator: 'In', values: ['us-a'] }] },
        ],
        topologyLabels: [['topology.kubernetes.io/zone', 'us-a']],
        csi: { driver: 'ebs.csi.aws.com', volumeHandle: 'vol-1' },
        phase: 'Bound',
      },
    });
  });

  it('reads an in-tree PersistentVolume source', () => {
    const pv = {
      metadata: { name: 'old' },
      spec: { awsElasticBlockStore: { volumeID: 'aws://a/vol-2' } },
    };
    expect(parsePersistentVolume(trimObject('PersistentVolume', pv))).toEqual({
      value: {
        name: 'old',
        storageClassName: '',
        topologyLabels: [],
        inTree: { type: 'awsElasticBlockStore', volumeID: 'aws://a/vol-2', readOnly: false },
        phase: '',
      },
    });
  });

  it('reads a StorageClass', () => {
    expect(parseStorageClass(trimObject('StorageClass', storageClass))).toEqual({
      value: {
        name: 'fast',
        provisioner: 'ebs.csi.aws.com',
        volumeBindingMode: 'WaitForFirstConsumer',
        allowedTopologies: JSON.stringify(storageClass.allowedTopologies),
      },
    });
  });

  it('reads a CSINode', () => {
    expect(parseCSINode(trimObject('CSINode', csiNode))).toEqual({
      value: {
        name: 'node-1',
        drivers: [
          { name: 'ebs.csi.aws.com', count: 25 },
          { name: 'efs.csi.aws.com' },
          { name: 'bad' },
        ],
        migratedPlugins: ['kubernetes.io/aws-ebs', 'kubernetes.io/gce-pd'],
      },
    });
  });

  it('defaults what is absent', () => {
    expect(parsePersistentVolumeClaim({ metadata: { name: 'c' } })).toEqual({
      value: {
        namespace: 'default',
        name: 'c',
        volumeName: '',
        storageClassName: '',
        accessModes: [],
        phase: '',
        bindCompleted: false,
        selectedNode: '',
        deleting: false,
        controllerUid: '',
      },
    });
    expect(parseStorageClass({ metadata: { name: 's' } })).toEqual({
      value: { name: 's', provisioner: '', volumeBindingMode: '', allowedTopologies: '' },
    });
    expect(parseCSINode({ metadata: { name: 'n' } })).toEqual({
      value: { name: 'n', drivers: [], migratedPlugins: [] },
    });
    // A PV with nodeAffinity but no `required` has no required affinity.
    const pv = parsePersistentVolume({ metadata: { name: 'p' }, spec: { nodeAffinity: {} } });
    expect('value' in pv && pv.value.requiredNodeAffinity).toBeUndefined();
  });

  it('reads manifest keys such as "__proto__" or "constructor" as ordinary keys', () => {
    const raw = JSON.parse(
      '{"metadata":{"name":"c","annotations":{"__proto__":{"x":1},"constructor":"y"}}}',
    );
    expect(parsePersistentVolumeClaim(raw)).toMatchObject({ value: { bindCompleted: false } });
  });

  it('rejects a nameless object and never throws on any input', () => {
    const parsers = [
      parsePersistentVolumeClaim,
      parsePersistentVolume,
      parseStorageClass,
      parseCSINode,
    ];
    for (const parse of parsers) expect(parse({ metadata: {} })).toHaveProperty('rejected');
    fc.assert(
      fc.property(fc.anything(), fc.anything(), fc.anything(), (spec, meta, rest) => {
        for (const parse of parsers) {
          parse(spec);
          parse({ metadata: { name: 'x', ...(meta as object) }, spec, status: rest });
          parse({
            metadata: { name: 'x', annotations: meta, labels: rest },
            spec: { drivers: spec, csi: meta },
          });
          parse({
            metadata: { name: 'x' },
            spec: { nodeAffinity: { required: { nodeSelectorTerms: spec } } },
          });
        }
      }),
      { numRuns: 300 },
    );
  });
});

function fold(events: BerthEvent[]): ClusterState {
  const state = initialState();
  events.forEach((event, i) => {
    evolve(state, { seq: i + 1, time: i, event });
  });
  return state;
}

const up = (kind: ObjectKind, object: unknown): BerthEvent =>
  ({ type: 'ObjectUpserted', kind, object: trimObject(kind, object) }) as BerthEvent;

describe('volume objects in the reducer and the snapshot', () => {
  const pod = {
    metadata: { name: 'web-0', namespace: 'shop', uid: 'pod-1' },
    spec: {
      nodeName: 'node-1',
      containers: [{ name: 'c' }],
      volumes: [
        { name: 'data', persistentVolumeClaim: { claimName: 'data-web-0' } },
        { name: 'pd', gcePersistentDisk: { pdName: 'd-1', readOnly: true } },
      ],
    },
  };
  const events: BerthEvent[] = [
    up('PersistentVolumeClaim', claim),
    up('PersistentVolume', volume),
    up('StorageClass', storageClass),
    up('CSINode', csiNode),
    { type: 'PodUpserted', pod } as BerthEvent,
  ];

  it('stores each kind as its parsed view', () => {
    const state = fold(events);
    expect(state.objects.PersistentVolumeClaim.get('shop/data-web-0')?.volumeName).toBe('pv-1');
    expect(state.objects.PersistentVolume.get('pv-1')?.csi?.driver).toBe('ebs.csi.aws.com');
    expect(state.objects.StorageClass.get('fast')?.volumeBindingMode).toBe('WaitForFirstConsumer');
    expect(state.objects.CSINode.get('node-1')?.drivers[0]?.count).toBe(25);
    expect(state.rejectedTotal).toBe(0);
  });

  it('round-trips the parsed views and the pods’ volumes through a JSON snapshot', () => {
    const live = fold(events);
    const data = JSON.parse(JSON.stringify(serializeClusterState(live))) as ClusterStateData;
    const restored = restoreClusterState(data);
    for (const kind of objectKinds) {
      expect([...restored.objects[kind]]).toEqual([...live.objects[kind]]);
    }
    expect(restored.pods.get('pod-1')?.info.volumes).toEqual([
      { name: 'data', type: 'persistentVolumeClaim', claimName: 'data-web-0' },
      { name: 'pd', type: 'gcePersistentDisk', pdName: 'd-1', partition: 0, readOnly: true },
    ]);
    expect(serializeClusterState(restored)).toEqual(serializeClusterState(live));
    expect(checkClusterInvariants(restored)).toEqual([]);
  });

  it('restores a pod from a snapshot older than the volume field with no volumes', () => {
    const data = serializeClusterState(fold(events));
    const old = JSON.parse(JSON.stringify(data)) as ClusterStateData;
    for (const p of old.pods) delete (p.info as { volumes?: unknown }).volumes;
    expect(restoreClusterState(old).pods.get('pod-1')?.info.volumes).toEqual([]);
  });

  it('has a parser for each volume kind that is not the raw object', () => {
    for (const kind of [
      'PersistentVolumeClaim',
      'PersistentVolume',
      'StorageClass',
      'CSINode',
    ] as const) {
      const parsed = objectParsers[kind](trimObject(kind, { metadata: { name: 'x' } }));
      expect(parsed).toHaveProperty('value.name', 'x');
      expect(parsed).not.toHaveProperty('value.metadata');
    }
  });
});
