// Snapshot round trips of the image fields (node and pod images, the image index's sizes), of preemption's pod fields and of unrecorded nominations.
import { describe, expect, it } from 'vitest';
import { nodeObject, podObject } from '../../test/support/objects.ts';
import type { BerthEvent } from '../events/types.ts';
import type { ContainerImage } from '../model/objects.ts';
import { checkClusterInvariants } from './invariants.ts';
import { evolve, initialState } from './reducer.ts';
import {
  type ClusterStateData,
  restoreClusterState,
  SnapshotDataError,
  serializeClusterState,
} from './serialize.ts';
import type { ClusterState } from './types.ts';

const imagesUp = (name: string, images: ContainerImage[]): BerthEvent => {
  const node = nodeObject(name);
  node.status = { ...node.status, images };
  return { type: 'NodeUpserted', node };
};

function fold(...events: BerthEvent[]): ClusterState {
  const state = initialState();
  events.forEach((event, i) => {
    evolve(state, { seq: i + 1, time: i, event });
  });
  return state;
}

const roundTrip = (data: ClusterStateData): ClusterState =>
  restoreClusterState(JSON.parse(JSON.stringify(data)) as ClusterStateData);

const index = (s: ClusterState) => Array.from(s.imageStates, ([n, v]) => [n, v.size, v.numNodes]);

describe('snapshot of the image fields', () => {
  // app:1's size (10) came from n1, which has left: only the stored sizes can tell it.
  const history = (): ClusterState => {
    const pod = podObject('p', {
      nodeName: 'n2',
      containers: [{ name: 'c', image: 'app:1' }],
      initContainers: [{ name: 'i', image: 'init' }],
    });
    pod.metadata.uid = 'p-1';
    return fold(
      imagesUp('n1', [{ names: ['app:1'], sizeBytes: 10 }]),
      imagesUp('n2', [{ names: ['app:1', 'db:2'], sizeBytes: 20 }]),
      imagesUp('n3', [{ names: ['db:2'], sizeBytes: 30 }]),
      { type: 'NodeDeleted', name: 'n1' },
      { type: 'PodUpserted', pod },
    );
  };

  it('restores node images, pod images and the index, sizes and order included', () => {
    const live = history();
    expect(index(live)).toEqual([
      ['app:1', 10, 1],
      ['db:2', 20, 2],
    ]);
    const restored = roundTrip(serializeClusterState(live));
    expect(index(restored)).toEqual(index(live));
    expect([...(restored.nodes.get('n2')?.images ?? [])]).toEqual([
      ['app:1', 20],
      ['db:2', 20],
    ]);
    expect(restored.pods.get('p-1')?.info.images).toEqual(['init:latest', 'app:1']);
    expect(checkClusterInvariants(restored)).toEqual([]);
    expect(serializeClusterState(restored)).toEqual(serializeClusterState(live));
  });

  it('goes on from a restored state exactly as the live one does', () => {
    const next = imagesUp('n4', [{ names: ['app:1', 'web:3'], sizeBytes: 40 }]);
    const live = history();
    const restored = roundTrip(serializeClusterState(live));
    evolve(live, { seq: 9, time: 9, event: next });
    evolve(restored, { seq: 9, time: 9, event: next });
    expect(index(restored)).toEqual(index(live));
  });

  it('takes sizes from the first live node listing a name in a snapshot without them', () => {
    const data = serializeClusterState(history());
    delete data.imageSizes;
    expect(index(roundTrip(data))).toEqual([
      ['app:1', 20, 1],
      ['db:2', 20, 2],
    ]);
  });

  it('refuses malformed image data', () => {
    const bad = serializeClusterState(history());
    bad.imageSizes = [['app:1', 'ten' as unknown as number]];
    expect(() => roundTrip(bad)).toThrow(SnapshotDataError);
    const badNode = serializeClusterState(history());
    (badNode.nodes[0] as { images?: unknown }).images = 'app:1';
    expect(() => roundTrip(badNode)).toThrow(SnapshotDataError);
  });
});

describe('snapshot of preemption’s pod fields', () => {
  const victim = (): BerthEvent => {
    const pod = podObject('v', { nodeName: 'n1', deletionTimestamp: '2025-01-01T00:01:00Z' });
    pod.status = {
      ...pod.status,
      startTime: '2025-01-01T00:00:05Z',
      conditions: [{ type: 'DisruptionTarget', status: 'True', reason: 'PreemptionByScheduler' }],
    };
    return { type: 'PodUpserted', pod };
  };

  it('round-trips startMs and preemptedByScheduler', () => {
    const live = fold({ type: 'NodeUpserted', node: nodeObject('n1') }, victim(), {
      type: 'PodUpserted',
      pod: podObject('w'),
    });
    const restored = roundTrip(serializeClusterState(live));
    const infos = [...restored.pods.values()].map((r) => r.info);
    expect(infos.map((i) => [i.name, i.startMs, i.preemptedByScheduler])).toEqual([
      ['v', Date.UTC(2025, 0, 1, 0, 0, 5), true],
      ['w', undefined, false],
    ]);
    expect(serializeClusterState(restored)).toEqual(serializeClusterState(live));
  });

  it('round-trips a pod’s DRA claims (a restored segment must still allocate them)', () => {
    const pod = podObject('dra');
    (pod.spec as Record<string, unknown>).resourceClaims = [
      { name: 'gpu', resourceClaimTemplateName: 't' },
      { name: 'nic', resourceClaimName: 'shared-nic' },
    ];
    (pod as { status?: unknown }).status = {
      resourceClaimStatuses: [{ name: 'gpu', resourceClaimName: 'dra-gpu-x' }],
    };
    const live = fold({ type: 'PodUpserted', pod }, { type: 'PodUpserted', pod: podObject('w') });
    const restored = roundTrip(serializeClusterState(live));
    const claims = [...restored.pods.values()].map((r) => [r.info.name, r.info.resourceClaims]);
    expect(claims).toEqual([
      [
        'dra',
        [
          { name: 'gpu', templateName: 't', generatedName: 'dra-gpu-x' },
          { name: 'nic', claimName: 'shared-nic' },
        ],
      ],
      ['w', undefined],
    ]);
  });

  it('restores a pod from a snapshot older than the fields as not started and not preempted', () => {
    const old = JSON.parse(
      JSON.stringify(serializeClusterState(fold(victim()))),
    ) as ClusterStateData;
    for (const p of old.pods) {
      delete (p.info as { startMs?: unknown }).startMs;
      delete (p.info as { preemptedByScheduler?: unknown }).preemptedByScheduler;
    }
    const info = [...restoreClusterState(old).pods.values()][0]?.info;
    expect(info).toMatchObject({ startMs: undefined, preemptedByScheduler: false });
  });
});

describe('snapshot of amounts past 2^53', () => {
  const huge = (): ClusterState => {
    const node = nodeObject('big', {
      allocatable: {
        cpu: '1e16',
        memory: '16Ei',
        'ephemeral-storage': '9007199254740995',
        'example.com/dev': '9007199254740995',
        pods: '110',
      },
    });
    const pod = podObject('p', {
      nodeName: 'big',
      requests: { cpu: '9007199254740.993', memory: '9007199254740993', 'example.com/dev': '3' },
    });
    pod.metadata.uid = 'p-1';
    const group = {
      apiVersion: 'scheduling.x-k8s.io/v1alpha1',
      kind: 'PodGroup',
      metadata: { name: 'g', namespace: 'default' },
      spec: { minMember: 2, minResources: { memory: '9007199254740993' } },
    };
    return fold(
      { type: 'NodeUpserted', node },
      { type: 'PodUpserted', pod },
      { type: 'ObjectUpserted', kind: 'PodGroup', object: group },
    );
  };

  it('writes bigints as decimal strings and restores them exactly', () => {
    const live = huge();
    const node = live.nodes.get('big');
    expect(node?.requested.memory).toBe(2n ** 53n + 1n);
    expect(node?.freeMemory).toBe(2n ** 63n - 1n - (2n ** 53n + 1n));
    expect(live.objects.PodGroup.get('default/g')?.minResources?.memory).toBe(2n ** 53n + 1n);
    const text = JSON.stringify(serializeClusterState(live));
    expect(text).toContain('"memory":"9007199254740993"');
    const restored = restoreClusterState(JSON.parse(text) as ClusterStateData);
    expect(checkClusterInvariants(restored)).toEqual([]);
    expect(restored.nodes.get('big')).toEqual(node);
    expect(restored.pods.get('p-1')?.info).toEqual(live.pods.get('p-1')?.info);
    expect(restored.objects.PodGroup.get('default/g')).toEqual(
      live.objects.PodGroup.get('default/g'),
    );
    expect(JSON.stringify(serializeClusterState(restored))).toBe(text);
  });

  it('refuses an amount that is neither a number nor decimal digits', () => {
    const data = JSON.parse(JSON.stringify(serializeClusterState(huge()))) as ClusterStateData;
    (data.nodes[0] as { requested: { memory: unknown } }).requested.memory = '9e3';
    expect(() => restoreClusterState(data)).toThrow(SnapshotDataError);
    expect(() => restoreClusterState(data)).toThrow(
      'snapshot: cluster.nodes[0].requested.memory is not an amount',
    );
  });
});

describe('snapshot of a nomination kube 1.35–1.36 has not recorded', () => {
  it('round-trips nominationUnrecorded: a gated pod added with a nomination stays out of the index', () => {
    const gated = podObject('g');
    gated.spec.schedulingGates = [{ name: 'example.com/wait' }];
    gated.status = { ...gated.status, nominatedNodeName: 'n1' };
    const live = initialState('1.36');
    const events: BerthEvent[] = [
      { type: 'NodeUpserted', node: nodeObject('n1') },
      { type: 'PodUpserted', pod: gated },
    ];
    events.forEach((event, i) => {
      evolve(live, { seq: i + 1, time: i, event });
    });
    expect(live.nominated.size).toBe(0);
    const data = serializeClusterState(live);
    expect(data.pods[0]?.nominationUnrecorded).toBe(true);
    const restored = restoreClusterState(JSON.parse(JSON.stringify(data)), '1.36');
    expect(restored.nominated.size).toBe(0);
    expect(checkClusterInvariants(restored)).toEqual([]);
    expect(serializeClusterState(restored)).toEqual(data);
  });
});

describe("snapshot of Kubernetes' own PodGroups and their members", () => {
  it('restores a core PodGroup and the schedulingGroup of its members', () => {
    const pod = podObject('w0', { schedulerName: 'berth' });
    pod.metadata.uid = 'w0-1';
    pod.spec.schedulingGroup = { podGroupName: 'train' };
    const plain = podObject('p', {});
    plain.metadata.uid = 'p-1';
    const group = {
      apiVersion: 'scheduling.k8s.io/v1beta1',
      kind: 'PodGroup',
      metadata: { name: 'train', namespace: 'default', generation: 2 },
      spec: { schedulingPolicy: { gang: { minCount: 2 } } },
      status: { conditions: [{ type: 'PodGroupInitiallyScheduled', status: 'True' }] },
    };
    const live = fold(
      { type: 'PodUpserted', pod },
      { type: 'PodUpserted', pod: plain },
      { type: 'ObjectUpserted', kind: 'CorePodGroup', object: group },
    );
    const restored = roundTrip(serializeClusterState(live));
    expect(restored.pods.get('w0-1')?.info.schedulingGroup).toBe('train');
    expect(restored.pods.get('w0-1')?.info).toEqual(live.pods.get('w0-1')?.info);
    expect(restored.pods.get('p-1')?.info).toEqual(live.pods.get('p-1')?.info);
    expect('schedulingGroup' in (restored.pods.get('p-1')?.info ?? {})).toBe(false);
    expect(restored.objects.CorePodGroup.get('default/train')).toEqual({
      key: 'default/train',
      namespace: 'default',
      name: 'train',
      policy: 'gang',
      minCount: 2,
      creationMs: 0,
      generation: 2,
      initiallyScheduled: true,
      invalid: undefined,
      topologyKeys: [],
      priority: 0,
      preemptionPolicy: undefined,
      disruptionMode: 'Single',
      unusable: undefined,
    });
  });

  it('restores a core PodGroup of a snapshot older than its placement fields as unset', () => {
    const group = {
      metadata: { name: 'train', namespace: 'default' },
      spec: {
        schedulingPolicy: { gang: { minCount: 2 } },
        schedulingConstraints: { topology: [{ key: 'rack' }] },
        disruptionMode: { all: {} },
      },
    };
    const data = serializeClusterState(
      fold({ type: 'ObjectUpserted', kind: 'CorePodGroup', object: group }),
    );
    const stored = data.objects?.CorePodGroup?.[0]?.[1] as Record<string, unknown>;
    expect(stored.topologyKeys).toEqual(['rack']);
    for (const field of [
      'topologyKeys',
      'priority',
      'preemptionPolicy',
      'disruptionMode',
      'unusable',
    ])
      delete stored[field];
    expect(roundTrip(data).objects.CorePodGroup.get('default/train')).toMatchObject({
      minCount: 2,
      topologyKeys: [],
      priority: 0,
      disruptionMode: 'Single',
    });
  });
});
