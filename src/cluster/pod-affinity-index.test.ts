// The pod affinity index's term groups and match memo, step by step through reducer events.
import { describe, expect, it } from 'vitest';
import { nodeObject, podObject } from '../../test/support/objects.ts';
import type { BerthEvent } from '../events/types.ts';
import type { PodObject } from '../model/objects.ts';
import { checkClusterInvariants } from './invariants.ts';
import { currentPodAffinityIndex } from './pod-affinity-index.ts';
import { matchingPairs } from './pod-affinity-matches.ts';
import { podInfoFromObject } from './pod-info.ts';
import { evolve, initialState } from './reducer.ts';
import type { ClusterState, PodInfo } from './types.ts';

const REQ = 'requiredDuringSchedulingIgnoredDuringExecution';

/** A pod `name` labelled app=db, repelling app=db pods per zone, bound to `node` if given. */
function antiPod(name: string, node?: string): PodObject {
  const p = podObject(name, {
    labels: { app: 'db' },
    ...(node === undefined ? {} : { nodeName: node }),
  });
  p.metadata.uid = name;
  p.spec.affinity = {
    podAntiAffinity: {
      [REQ]: [{ labelSelector: { matchLabels: { app: 'db' } }, topologyKey: 'zone' }],
    },
  };
  return p;
}

const node = (name: string, zone?: string): BerthEvent => ({
  type: 'NodeUpserted',
  node: nodeObject(name, zone === undefined ? {} : { labels: { zone } }),
});
const bound = (name: string, on: string): BerthEvent => ({
  type: 'PodUpserted',
  pod: antiPod(name, on),
});

/** The one required anti-affinity group's pair counts, sorted. */
function antiPairs(state: ClusterState): [string, number][] {
  const groups = currentPodAffinityIndex(state)?.groups.requiredAntiAffinityTerms;
  const only = [...(groups?.values() ?? [])];
  if (only.length > 1) throw new Error('one group expected');
  return [...(only[0]?.pairs ?? [])].sort();
}

/** What the memo counts for the pods matching the anti-affinity term of `antiPod`, per zone. */
function memoPairs(state: ClusterState, asker: PodInfo): [string, number][] {
  const index = currentPodAffinityIndex(state);
  if (index === undefined) throw new Error('no current index');
  const terms = asker.podAffinity.requiredAntiAffinityTerms;
  return [...matchingPairs(state, index, terms, 'zone')].sort();
}

describe('the pod affinity index, event by event', () => {
  const asker = podInfoFromObject(antiPod('asker')) as PodInfo;
  const steps: [string, BerthEvent[], [string, number][]][] = [
    [
      'pods with equal terms share a group, counted per zone of their node',
      [node('n1', 'a'), node('n2', 'a'), node('n3', 'b'), bound('p1', 'n1'), bound('p2', 'n2')],
      [['a', 2]],
    ],
    [
      'a node without the zone label counts its pods nowhere',
      [node('n4'), bound('p3', 'n4')],
      [['a', 2]],
    ],
    [
      'a relabelled node moves its pods to the new pair',
      [node('n2', 'b')],
      [
        ['a', 1],
        ['b', 1],
      ],
    ],
    [
      'a node gaining the label brings its pods in',
      [node('n4', 'b')],
      [
        ['a', 1],
        ['b', 2],
      ],
    ],
    [
      'a deleted node’s pods stop counting (they stay charged, absent)',
      [{ type: 'NodeDeleted', name: 'n4' }],
      [
        ['a', 1],
        ['b', 1],
      ],
    ],
    [
      'the node coming back counts them again, under its new labels',
      [node('n4', 'a')],
      [
        ['a', 2],
        ['b', 1],
      ],
    ],
    [
      'a pod bound to a node never seen counts nowhere',
      [bound('p5', 'ghost')],
      [
        ['a', 2],
        ['b', 1],
      ],
    ],
    [
      'a pod that goes takes its count with it',
      [{ type: 'PodDeleted', uid: 'p1', key: 'default/p1' }],
      [
        ['a', 1],
        ['b', 1],
      ],
    ],
  ];
  const state = initialState();
  let seq = 0;
  for (const [name, events, want] of steps) {
    it(name, () => {
      for (const event of events) evolve(state, { seq: ++seq, time: seq, event });
      expect(checkClusterInvariants(state)).toEqual([]);
      expect(antiPairs(state)).toEqual(want);
      // The memo, asked at every step, follows the same pods through the same changes.
      expect(memoPairs(state, asker)).toEqual(want);
    });
  }
});
