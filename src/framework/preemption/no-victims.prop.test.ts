// Property: when no pod anywhere has lower priority, the counted answer equals the node-by-node walk's (message, nomination, generator draws).
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { nodeObject, podObject } from '../../../test/support/objects.ts';
import { podInfoFromObject } from '../../cluster/pod-info.ts';
import { initialState, reduce } from '../../cluster/reducer.ts';
import type { BerthEvent } from '../../events/types.ts';
import { defaultProfile } from '../../plugins/registry.ts';
import { scheduleOne } from '../cycle.ts';
import { seededRng } from '../rng.ts';

const walk = vi.hoisted(() => ({ forced: false, counted: 0 }));
vi.mock('./lowest-priority.ts', async (original) => {
  const m = await original<typeof import('./lowest-priority.ts')>();
  return {
    ...m,
    noLowerPriorityPod: (...args: Parameters<typeof m.noLowerPriorityPod>) => {
      if (walk.forced) return false;
      const none = m.noLowerPriorityPod(...args);
      if (none) walk.counted++;
      return none;
    },
  };
});

interface NodeSpec {
  cpu: number;
  cordoned: boolean;
  tainted: boolean;
  pods: { cpu: number; priority: number }[];
}

const nodeSpec = fc.record({
  cpu: fc.integer({ min: 1, max: 4 }),
  cordoned: fc.boolean(),
  tainted: fc.boolean(),
  pods: fc.array(
    fc.record({ cpu: fc.integer({ min: 1, max: 2 }), priority: fc.integer({ min: 0, max: 3 }) }),
    { maxLength: 3 },
  ),
});

function clusterOf(nodes: NodeSpec[]) {
  const state = initialState();
  let seq = 0;
  const apply = (event: BerthEvent) => reduce(state, { seq: ++seq, time: 0, event });
  nodes.forEach((n, i) => {
    const taints = n.tainted ? [{ key: 'k', value: 'v', effect: 'NoSchedule' }] : undefined;
    apply({
      type: 'NodeUpserted',
      node: nodeObject(`n${i}`, {
        allocatable: { cpu: String(n.cpu), memory: '8Gi', pods: '110' },
        unschedulable: n.cordoned,
        ...(taints === undefined ? {} : { taints }),
      }),
    });
    n.pods.forEach((p, j) => {
      const o = podObject(`p${i}-${j}`, {
        requests: { cpu: String(p.cpu) },
        priority: p.priority,
        nodeName: `n${i}`,
      });
      o.metadata.uid = `uid-${i}-${j}`;
      o.status = { phase: 'Running' };
      apply({ type: 'PodUpserted', pod: o });
    });
  });
  return state;
}

function decide(
  state: ReturnType<typeof initialState>,
  cpu: number,
  priority: number,
  seed: number,
) {
  const o = podObject('preemptor', {
    requests: { cpu: String(cpu) },
    priority,
    schedulerName: 'berth',
  });
  o.metadata.uid = 'uid-preemptor';
  const info = podInfoFromObject(o);
  if ('rejected' in info) throw new Error(info.rejected);
  const rng = seededRng(seed);
  const r = scheduleOne(info, state, {
    profile: defaultProfile(),
    rng,
    cursor: { next: 0 },
    percentageOfNodesToScore: 0,
    now: 0,
  });
  return { r: JSON.stringify(r), next: rng.nextInt(1_000_000) };
}

describe('preemption with no lower-priority pod anywhere', () => {
  it('answers as the walk over every node does', () => {
    walk.counted = 0;
    fc.assert(
      fc.property(
        fc.array(nodeSpec, { minLength: 1, maxLength: 12 }),
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 0, max: 3 }),
        fc.integer({ min: 0, max: 1000 }),
        (nodes, cpu, priority, seed) => {
          const state = clusterOf(nodes);
          walk.forced = false;
          const counted = decide(state, cpu, priority, seed);
          walk.forced = true;
          const walked = decide(state, cpu, priority, seed);
          walk.forced = false;
          expect(counted).toEqual(walked);
        },
      ),
      { numRuns: 1000 },
    );
    // The shortcut was taken often enough for the property to mean something.
    expect(walk.counted).toBeGreaterThan(100);
  });
});
