// The four volume plugins in a whole cycle: events through the reducer, kube's default order, kube's messages.
import { describe, expect, it } from 'vitest';
import { nodeObject, podObject } from '../../test/support/objects.ts';
import {
  claimObject,
  classObject,
  csiNodeObject,
  volumeObject,
  volumeWithAffinity,
} from '../../test/support/volumes.ts';
import { trimObject } from '../adapters/trim.ts';
import type { ObjectKind } from '../cluster/cluster-objects.ts';
import { evolve, initialState, reduce } from '../cluster/reducer.ts';
import type { ClusterState, PodInfo } from '../cluster/types.ts';
import type { BerthEvent } from '../events/types.ts';
import { scheduleOne } from '../framework/cycle.ts';
import { seededRng } from '../framework/rng.ts';
import type { FilterPlugin, PreFilterPlugin, Profile } from '../framework/types.ts';
import { nodeVolumeLimits } from './node-volume-limits.ts';
import { profileFromConfig } from './registry.ts';
import { volumeBinding } from './volume-binding.ts';
import { volumeRestrictions } from './volume-restrictions.ts';
import { volumeZone } from './volume-zone.ts';

const volumePlugins = [volumeRestrictions, nodeVolumeLimits, volumeBinding, volumeZone];

/** The default profile with the volume plugins where kube 1.34 runs them (before PodTopologySpread). */
function profileWithVolumes(): Profile {
  // Without PostFilters: these tests read the filters' part of the message.
  const p = profileFromConfig({ postFilters: [] });
  const insert = <T extends { name: string }>(list: T[], add: T[]): T[] => {
    const at = list.findIndex((x) => x.name === 'PodTopologySpread');
    return [
      ...list.slice(0, at < 0 ? list.length : at),
      ...add,
      ...list.slice(at < 0 ? list.length : at),
    ];
  };
  const hints = new Map(p.queueingHints);
  for (const v of volumePlugins) hints.set(v.name, v.queueingHint);
  return {
    ...p,
    preFilter: insert<PreFilterPlugin>(p.preFilter, volumePlugins),
    filter: insert<FilterPlugin>(p.filter, volumePlugins),
    queueingHints: hints,
  };
}

const up = (kind: ObjectKind, object: Record<string, unknown>): BerthEvent =>
  ({ type: 'ObjectUpserted', kind, object: trimObject(kind, object) }) as BerthEvent;

function cluster(...events: BerthEvent[]): ClusterState {
  const state = initialState();
  events.forEach((event, i) => {
    evolve(state, { seq: i + 1, time: i, event });
  });
  return state;
}

function schedule(state: ClusterState, name: string) {
  const uid = state.podUids.get(`default/${name}`) as string;
  const pod = state.pods.get(uid)?.info as PodInfo;
  return scheduleOne(pod, state, {
    profile: profileWithVolumes(),
    rng: seededRng(1),
    cursor: { next: 0 },
    percentageOfNodesToScore: 0,
  });
}

const hostname = (n: string) => ({ 'kubernetes.io/hostname': n });
const nodes = ['kwok-1', 'kwok-2', 'kwok-3'].map(
  (n): BerthEvent => ({ type: 'NodeUpserted', node: nodeObject(n, { labels: hostname(n) }) }),
);
const withClaims = (name: string, ...claims: string[]): BerthEvent => {
  const pod = podObject(name, {});
  pod.metadata.uid = `uid-${name}`;
  (pod.spec as Record<string, unknown>).volumes = claims.map((c) => ({
    name: c,
    persistentVolumeClaim: { claimName: c },
  }));
  return { type: 'PodUpserted', pod };
};
const hostTerm = (n: string) => ({
  matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [n] }],
});

describe('volume plugins in a cycle', () => {
  it('puts a pod with a pre-bound local PV on the PV’s node', () => {
    const state = cluster(
      ...nodes,
      up('PersistentVolume', volumeObject(volumeWithAffinity('pv-local', [hostTerm('kwok-2')]))),
      up(
        'PersistentVolumeClaim',
        claimObject({ name: 'data', volumeName: 'pv-local', bound: true }),
      ),
      withClaims('web', 'data'),
    );
    expect(schedule(state, 'web')).toMatchObject({ kind: 'Scheduled', node: 'kwok-2' });
  });

  it('keeps a pod with an unbound immediate claim pending with kube’s message', () => {
    const state = cluster(
      ...nodes,
      up('StorageClass', classObject('standard', 'csi.example.com', 'Immediate')),
      up('PersistentVolumeClaim', claimObject({ name: 'data', storageClassName: 'standard' })),
      withClaims('web', 'data'),
    );
    expect(schedule(state, 'web')).toMatchObject({
      kind: 'Unschedulable',
      message: '0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims.',
    });
  });

  it('keeps a pod with an unbound WaitForFirstConsumer claim pending, naming the claim', () => {
    const state = cluster(
      ...nodes,
      up(
        'StorageClass',
        classObject('local', 'kubernetes.io/no-provisioner', 'WaitForFirstConsumer'),
      ),
      up('PersistentVolumeClaim', claimObject({ name: 'data', storageClassName: 'local' })),
      withClaims('web', 'data'),
    );
    const result = schedule(state, 'web');
    expect(result.kind).toBe('Unschedulable');
    expect(result.kind === 'Unschedulable' && result.message).toContain(
      'berth does not bind or provision volumes yet: persistentvolumeclaim "default/data" is not bound',
    );
  });

  it('keeps a pod whose claim does not exist pending (VolumeRestrictions answers first, as in kube)', () => {
    const state = cluster(...nodes, withClaims('web', 'data'));
    const result = schedule(state, 'web');
    expect(result.kind === 'Unschedulable' && result.message).toContain(
      'persistentvolumeclaim "data" not found',
    );
    expect(result.kind === 'Unschedulable' && [...result.diagnosis.unschedulablePlugins]).toEqual([
      'VolumeRestrictions',
    ]);
  });

  const zoned = (n: string, zone: string): BerthEvent => ({
    type: 'NodeUpserted',
    node: nodeObject(n, { labels: { ...hostname(n), 'topology.kubernetes.io/zone': zone } }),
  });
  const zonalVolume = [
    up(
      'PersistentVolume',
      volumeObject({
        name: 'pv',
        labels: { 'topology.kubernetes.io/zone': 'z1' },
        csi: { driver: 'csi.example.com', volumeHandle: 'h1' },
      }),
    ),
    up('PersistentVolumeClaim', claimObject({ name: 'data', volumeName: 'pv', bound: true })),
  ];

  it('counts the attach limit and the volume zone node by node, in kube’s order', () => {
    // a: zone z1 but no attach slot left; b: another zone; c: fits.
    const events = [
      zoned('a', 'z1'),
      zoned('b', 'z2'),
      zoned('c', 'z1'),
      up('CSINode', csiNodeObject('a', { 'csi.example.com': 0 })),
      ...zonalVolume,
      withClaims('web', 'data'),
    ];
    expect(schedule(cluster(...events), 'web')).toMatchObject({ kind: 'Scheduled', node: 'c' });
    const without = cluster(...events.filter((e) => e !== events[2]));
    const result = schedule(without, 'web');
    expect(result.kind === 'Unschedulable' && result.message).toBe(
      '0/2 nodes are available: 1 node(s) exceed max volume count, 1 node(s) had no available volume zone.',
    );
  });

  it('frees an attach slot when the pod holding it is deleted', () => {
    const holder = withClaims('holder', 'data');
    (holder as { pod: { spec: Record<string, unknown> } }).pod.spec.nodeName = 'a';
    const state = cluster(
      zoned('a', 'z1'),
      up('CSINode', csiNodeObject('a', { 'csi.example.com': 1 })),
      ...zonalVolume,
      up(
        'PersistentVolume',
        volumeObject({ name: 'pv2', csi: { driver: 'csi.example.com', volumeHandle: 'h2' } }),
      ),
      up('PersistentVolumeClaim', claimObject({ name: 'other', volumeName: 'pv2', bound: true })),
      holder,
      withClaims('web', 'other'),
    );
    const first = schedule(state, 'web');
    expect(first.kind === 'Unschedulable' && first.message).toContain(
      '1 node(s) exceed max volume count',
    );
    const change = reduce(state, {
      seq: 99,
      time: 99,
      event: { type: 'PodDeleted', uid: 'uid-holder' } as BerthEvent,
    });
    // The parked pod would be requeued by NodeVolumeLimits' hint, and now fits.
    expect(nodeVolumeLimits.queueingHint(change)).toBe(true);
    expect(schedule(state, 'web')).toMatchObject({ kind: 'Scheduled', node: 'a' });
  });

  it('keeps a second pod off a ReadWriteOncePod claim another pod uses', () => {
    const holder = withClaims('holder', 'solo');
    (holder as { pod: { spec: Record<string, unknown> } }).pod.spec.nodeName = 'kwok-1';
    const state = cluster(
      ...nodes,
      up('PersistentVolume', volumeObject({ name: 'pv-solo' })),
      up(
        'PersistentVolumeClaim',
        claimObject({
          name: 'solo',
          volumeName: 'pv-solo',
          bound: true,
          accessModes: ['ReadWriteOncePod'],
        }),
      ),
      holder,
      withClaims('web', 'solo'),
    );
    const result = schedule(state, 'web');
    expect(result.kind === 'Unschedulable' && result.message).toBe(
      '0/3 nodes are available: 3 node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode already in-use by another pod.',
    );
  });
});
