// Pins the no-victim shortcut: nodes without a lower-priority pod fail with kube's reason, and the cached lowest priority follows pod changes.
import { describe, expect, it } from 'vitest';
import { nodeObject, podObject } from '../../../test/support/objects.ts';
import { podInfoFromObject } from '../../cluster/pod-info.ts';
import { initialState, reduce } from '../../cluster/reducer.ts';
import type { NodeInfo } from '../../cluster/types.ts';
import type { BerthEvent } from '../../events/types.ts';
import type { PodObject } from '../../model/objects.ts';
import { defaultProfile } from '../../plugins/registry.ts';
import { scheduleOne } from '../cycle.ts';
import { seededRng } from '../rng.ts';
import { lowestPodPriority } from './lowest-priority.ts';

function pod(name: string, cpu: string, priority: number, node?: string): PodObject {
  const o = podObject(name, {
    requests: { cpu },
    priority,
    ...(node === undefined ? {} : { nodeName: node }),
    schedulerName: 'berth',
  });
  o.metadata.uid = `uid-${name}`;
  o.status = { phase: node === undefined ? 'Pending' : 'Running' };
  return o;
}

/** n1: only a pod of the preemptor's priority; n2: a low pod too small to make room; n3: cordoned. */
function mixedCluster() {
  const state = initialState();
  let seq = 0;
  const apply = (event: BerthEvent) => reduce(state, { seq: ++seq, time: 0, event });
  apply({ type: 'NodeUpserted', node: nodeObject('n1') });
  apply({ type: 'NodeUpserted', node: nodeObject('n2') });
  apply({ type: 'NodeUpserted', node: nodeObject('n3', { unschedulable: true }) });
  apply({ type: 'PodUpserted', pod: pod('same', '4', 5, 'n1') });
  apply({ type: 'PodUpserted', pod: pod('low', '1', 1, 'n2') });
  apply({ type: 'PodUpserted', pod: pod('high', '3', 9, 'n2') });
  return { state, apply };
}

function messageFor(state: ReturnType<typeof initialState>, cpu: string) {
  const info = podInfoFromObject(pod('p', cpu, 5));
  if ('rejected' in info) throw new Error(info.rejected);
  const r = scheduleOne(info, state, {
    profile: defaultProfile(),
    rng: seededRng(3),
    cursor: { next: 0 },
    percentageOfNodesToScore: 0,
    now: 0,
  });
  return r.kind === 'Unschedulable' ? r.message : r.kind;
}

describe('preemption without victims', () => {
  it('counts nodes without a lower-priority pod, ruled-out nodes and unhelpful nodes as the full search did', () => {
    const { state } = mixedCluster();
    // The same message the search gave before the shortcut (checked against 992c832).
    expect(messageFor(state, '2')).toBe(
      '0/3 nodes are available: 1 node(s) were unschedulable, 2 Insufficient cpu. preemption: 0/3 nodes are available: 1 Insufficient cpu, 1 No preemption victims found for incoming pod, 1 Preemption is not helpful for scheduling.',
    );
  });

  it('sees a node lose its only lower-priority pod, and a node gain one', () => {
    const { state, apply } = mixedCluster();
    const n2 = state.nodes.get('n2') as NodeInfo;
    expect(lowestPodPriority(n2)).toBe(1);
    apply({ type: 'PodDeleted', uid: 'uid-low' } as BerthEvent);
    expect(lowestPodPriority(n2)).toBe(9);
    expect(messageFor(state, '2')).toBe(
      '0/3 nodes are available: 1 node(s) were unschedulable, 2 Insufficient cpu. preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod.',
    );
    apply({ type: 'PodDeleted', uid: 'uid-same' } as BerthEvent);
    apply({ type: 'PodUpserted', pod: pod('lower', '4', 0, 'n1') });
    expect(lowestPodPriority(state.nodes.get('n1') as NodeInfo)).toBe(0);
    expect(messageFor(state, '2')).toMatch(
      /^0\/3 nodes are available: .*preemption: found a potential placement for pod on node n1, preempting 1 victims$/,
    );
  });
});
