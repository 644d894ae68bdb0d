// A node's cached freeable resources always equal a sum afresh over the pods the reducer holds for it.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { initialState, reduce } from '../../cluster/reducer.ts';
import type { ClusterState, NodeInfo } from '../../cluster/types.ts';
import type { BerthEvent } from '../../events/types.ts';
import { freeableOf } from './freeable.ts';

type Step =
  | { op: 'pod'; name: string; node: string; priority: number; cpu: number; done: boolean }
  | { op: 'deletePod'; name: string }
  | { op: 'node'; name: string; cpu: number }
  | { op: 'query'; node: string; priority: number };

const nodeName = fc.constantFrom('n0', 'n1');
const priority = fc.constantFrom(0, 5, 10);
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    op: fc.constant('pod' as const),
    name: fc.constantFrom('p0', 'p1', 'p2', 'p3'),
    node: nodeName,
    priority,
    cpu: fc.constantFrom(100, 900, 2000),
    done: fc.constantFrom(false, false, true),
  }),
  fc.record({ op: fc.constant('deletePod' as const), name: fc.constantFrom('p0', 'p1', 'p2') }),
  fc.record({ op: fc.constant('node' as const), name: nodeName, cpu: fc.constantFrom(4, 8) }),
  fc.record({ op: fc.constant('query' as const), node: nodeName, priority }),
);

let seq = 0;
const apply = (state: ClusterState, event: unknown) =>
  reduce(state, { seq: ++seq, time: 0, event: event as BerthEvent } as never);

function run(state: ClusterState, s: Step): void {
  if (s.op === 'node')
    apply(state, {
      type: 'NodeUpserted',
      node: {
        metadata: { name: s.name },
        status: { allocatable: { cpu: String(s.cpu), memory: '8Gi', pods: '10' } },
      },
    });
  else if (s.op === 'pod')
    apply(state, {
      type: 'PodUpserted',
      pod: {
        metadata: { name: s.name, namespace: 'a', uid: `u-${s.name}` },
        spec: {
          nodeName: s.node,
          priority: s.priority,
          containers: [{ name: 'c', resources: { requests: { cpu: `${s.cpu}m` } } }],
        },
        status: { phase: s.done ? 'Succeeded' : 'Running' },
      },
    });
  else if (s.op === 'deletePod')
    apply(state, { type: 'PodDeleted', uid: `u-${s.name}`, key: `a/${s.name}` });
}

/** The oracle: allocatable minus the requests of the pods the records charge to the node, plus those below `priority`. */
function afresh(state: ClusterState, node: NodeInfo, priority: number) {
  let cpu = Number(node.allocatable.milliCPU);
  let slots = node.allocatable.pods;
  for (const { info, charge } of state.pods.values()) {
    if (charge.kind === 'none' || charge.node !== node.name) continue;
    if (info.priority < priority) continue;
    cpu -= Number(info.requests.milliCPU);
    slots--;
  }
  return { cpu, slots };
}

describe('freeableOf', () => {
  it('equals the free resources summed afresh after any sequence of pod and node changes', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        const state = initialState();
        run(state, { op: 'node', name: 'n0', cpu: 4 });
        run(state, { op: 'node', name: 'n1', cpu: 4 });
        for (const s of steps) {
          run(state, s);
          if (s.op !== 'query') continue;
          const node = state.nodes.get(s.node) as NodeInfo;
          const got = freeableOf(node, s.priority);
          expect({ cpu: Number(got.cpu), slots: got.slots }).toEqual(
            afresh(state, node, s.priority),
          );
        }
      }),
      { numRuns: 500 },
    );
  });
});
