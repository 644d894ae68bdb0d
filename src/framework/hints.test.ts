// Table test: every plugin's queueing hint over one corpus of cluster changes (kube's hint events).
import { describe, expect, it } from 'vitest';
import { makeNode, makePod } from '../../test/support/builders.ts';
import type { NamespaceInfo } from '../cluster/cluster-objects.ts';
import type { PodVolume } from '../cluster/pod-volumes.ts';
import type {
  Charge,
  ClusterChange,
  HostPort,
  NodeFacts,
  PodInfo,
  PodRecord,
} from '../cluster/types.ts';
import type {
  CSINodeInfo,
  PersistentVolumeInfo,
  StorageClassInfo,
} from '../cluster/volume-objects.ts';
import { interPodAffinityQueueingHint } from '../plugins/inter-pod-affinity/hints.ts';
import { hostPortsReleased } from '../plugins/node-ports.ts';
import { nodeVolumeLimitsHint } from '../plugins/node-volume-limits.ts';
import { spreadQueueingHint } from '../plugins/pod-topology-spread/hints.ts';
import { volumeBindingHint } from '../plugins/volume-binding.ts';
import { volumeRestrictionsHint } from '../plugins/volume-restrictions.ts';
import { volumeZoneHint } from '../plugins/volume-zone.ts';
import {
  capacityFreed,
  nodeAdded,
  nodeCordonChanged,
  nodeLabelsChanged,
  nodeTaintsChanged,
} from './hints.ts';
import type { QueueingHint } from './types.ts';

/** The hints, in the order of the columns of `table`. */
const hints: [string, QueueingHint][] = [
  ['capacityFreed', capacityFreed],
  ['nodeLabelsChanged', nodeLabelsChanged],
  ['nodeTaintsChanged', nodeTaintsChanged],
  ['nodeCordonChanged', nodeCordonChanged],
  ['nodeAdded', nodeAdded],
  ['hostPortsReleased', hostPortsReleased],
  ['volumeRestrictions', volumeRestrictionsHint],
  ['nodeVolumeLimits', nodeVolumeLimitsHint],
  ['volumeBinding', volumeBindingHint],
  ['volumeZone', volumeZoneHint],
  ['podTopologySpread', spreadQueueingHint],
  ['interPodAffinity', interPodAffinityQueueingHint],
];

const none: Charge = { kind: 'none' };
const onN: Charge = { kind: 'bound', node: 'n' };
const onM: Charge = { kind: 'bound', node: 'm' };
const assumedN: Charge = { kind: 'assumed', node: 'n', attempt: 1 };
const port: HostPort[] = [{ protocol: 'TCP', hostIP: '0.0.0.0', port: 80 }];
const claim: PodVolume[] = [{ name: 'v', type: 'persistentVolumeClaim', claimName: 'c' }];
const plain = makePod({ name: 'plain', labels: { app: 'a' } });
const relabelled = { ...plain, labels: { app: 'b' } };
const withPort = makePod({ name: 'ports', hostPorts: port });
const withClaim = makePod({ name: 'claims', volumes: claim });
const nominee = makePod({
  name: 'nominee',
  hostPorts: port,
  volumes: claim,
  nominatedNodeName: 'n',
});
const unplacedNamed = makePod({ name: 'named', nodeName: 'n' });
const rec = (info: PodInfo, charge: Charge): PodRecord => ({ info, charge });

function pod(before?: PodRecord, after?: PodRecord, replaced?: PodRecord): ClusterChange {
  return { kind: 'pod', uid: 'u', before, after, replaced };
}

const node = makeNode({ name: 'n', labels: { zone: 'a' } });
const facts = (o: Partial<NodeFacts> = {}): NodeFacts => ({
  labels: node.labels,
  taints: node.taints,
  unschedulable: node.unschedulable,
  allocatable: node.allocatable,
  ...o,
});
const nodeChange = (before: NodeFacts | undefined, deleted = false): ClusterChange => ({
  kind: 'node',
  name: 'n',
  before,
  after: deleted ? undefined : node,
});

function object(objectKind: string, before: unknown, after: unknown): ClusterChange {
  return { kind: 'object', objectKind, key: 'k', before, after } as ClusterChange;
}
const ns = (labels: Record<string, string>): NamespaceInfo => ({ name: 'ns', labels });
const sc = (mode: string, topo = ''): StorageClassInfo =>
  ({
    name: 'sc',
    provisioner: 'p',
    volumeBindingMode: mode,
    allowedTopologies: topo,
  }) as StorageClassInfo;
const pv = (zone: string): PersistentVolumeInfo =>
  ({
    name: 'pv',
    storageClassName: 'sc',
    topologyLabels: [['zone', zone]],
  }) as PersistentVolumeInfo;
const csi = (count: number, migrated: string[] = []): CSINodeInfo => ({
  name: 'n',
  drivers: [{ name: 'd', count }],
  migratedPlugins: migrated,
});
const pvc = { namespace: 'default', name: 'c' };

/** Change → one digit per hint (1: requeue), recorded from the per-plugin switches they replaced. */
const table: [string, ClusterChange, string][] = [
  ['nothing changed', { kind: 'none' }, '000000000000'],
  ['a node added', nodeChange(undefined), '111111101111'],
  ['a node deleted', nodeChange(facts(), true), '000000000011'],
  ['a node updated, nothing that matters', nodeChange(facts()), '000000000000'],
  ['a node relabelled', nodeChange(facts({ labels: { zone: 'b' } })), '010000001111'],
  [
    'a node tainted',
    nodeChange(facts({ taints: [{ key: 'k', value: '', effect: 'NoSchedule' }] })),
    '001000000010',
  ],
  ['a node cordoned', nodeChange(facts({ unschedulable: true })), '000100000000'],
  [
    'a node grew',
    nodeChange(facts({ allocatable: { ...node.allocatable, milliCPU: 1 } })),
    '100000000000',
  ],
  ['an unplaced pod added', pod(undefined, rec(plain, none)), '000000000000'],
  ['a bound pod added', pod(undefined, rec(plain, onN)), '000000000011'],
  [
    'a pod with spec.nodeName added, not charged',
    pod(undefined, rec(unplacedNamed, none)),
    '000000000011',
  ],
  ['a bound pod deleted', pod(rec(plain, onN)), '100000000011'],
  ['a bound pod with a host port deleted', pod(rec(withPort, onN)), '100001000011'],
  ['a bound pod with a claim deleted', pod(rec(withClaim, onN)), '100000110011'],
  ['a nominated pod with port and claim deleted', pod(rec(nominee, none)), '000001010000'],
  ['a bound pod relabelled', pod(rec(plain, onN), rec(relabelled, onN)), '000000000011'],
  ['a bound pod moved', pod(rec(withPort, onN), rec(withPort, onM)), '100001000011'],
  [
    'a pod assumed then bound on the same node',
    pod(rec(withClaim, assumedN), rec(withClaim, onN)),
    '000000000000',
  ],
  [
    'a pod with a claim finished (charge released)',
    pod(rec(withClaim, onN), rec(withClaim, none)),
    '100000110011',
  ],
  [
    'a bound pod replaced by a recreation',
    pod(undefined, rec(plain, none), rec(withPort, onN)),
    '100001000011',
  ],
  [
    'a reservation released',
    { kind: 'charge', uid: 'u', before: assumedN, after: none },
    '100001110011',
  ],
  [
    'a reservation made',
    { kind: 'charge', uid: 'u', before: none, after: assumedN },
    '000000000011',
  ],
  [
    'a relist removed nothing',
    { kind: 'resync', removedNodes: [], removedPods: [] },
    '000000000000',
  ],
  [
    'a relist removed a node',
    { kind: 'resync', removedNodes: ['n'], removedPods: [] },
    '000000000011',
  ],
  [
    'a relist removed a plain bound pod',
    { kind: 'resync', removedNodes: [], removedPods: [rec(plain, onN)] },
    '100000000011',
  ],
  [
    'a relist removed a bound pod with port and claim',
    { kind: 'resync', removedNodes: [], removedPods: [rec({ ...withPort, volumes: claim }, onN)] },
    '100001110011',
  ],
  ['a namespace added', object('Namespace', undefined, ns({})), '000000000001'],
  ['a namespace relabelled', object('Namespace', ns({}), ns({ team: 'x' })), '000000000001'],
  [
    'a namespace updated, same labels',
    object('Namespace', ns({ a: '1' }), ns({ a: '1' })),
    '000000000000',
  ],
  ['a namespace deleted', object('Namespace', ns({}), undefined), '000000000001'],
  ['a claim added', object('PersistentVolumeClaim', undefined, pvc), '000000111100'],
  ['a claim updated', object('PersistentVolumeClaim', pvc, pvc), '000000001100'],
  ['a claim deleted', object('PersistentVolumeClaim', pvc, undefined), '000000000000'],
  ['a PV added', object('PersistentVolume', undefined, pv('a')), '000000001100'],
  ['a PV updated, same topology', object('PersistentVolume', pv('a'), pv('a')), '000000001000'],
  ['a PV updated, other topology', object('PersistentVolume', pv('a'), pv('b')), '000000001100'],
  [
    'an immediate StorageClass added',
    object('StorageClass', undefined, sc('Immediate')),
    '000000001000',
  ],
  [
    'a WaitForFirstConsumer StorageClass added',
    object('StorageClass', undefined, sc('WaitForFirstConsumer')),
    '000000001100',
  ],
  [
    'a StorageClass with new topologies',
    object('StorageClass', sc('Immediate'), sc('Immediate', 'z')),
    '000000001000',
  ],
  [
    'a StorageClass updated, same topologies',
    object('StorageClass', sc('Immediate'), sc('Immediate')),
    '000000000000',
  ],
  ['a CSINode added', object('CSINode', undefined, csi(1)), '000000011000'],
  ['a CSINode with a higher limit', object('CSINode', csi(1), csi(2)), '000000010000'],
  ['a CSINode with a lower limit', object('CSINode', csi(2), csi(1)), '000000000000'],
  [
    'a CSINode with other migrated plugins',
    object('CSINode', csi(1), csi(1, ['x'])),
    '000000001000',
  ],
  ['a Service added', object('Service', undefined, { kind: 'Service' }), '000000000000'],
];

describe('queueing hints', () => {
  it.each(table)('%s', (_name, change, expected) => {
    const got = hints.map(([, hint]) => (hint(change) ? '1' : '0')).join('');
    expect(got).toBe(expected);
  });
});
