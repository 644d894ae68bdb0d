// Every plugin's batch `scoreNodes` gives exactly the scores of `score` called node by node.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chargePod, Gi, makeNode, makePod } from '../../test/support/builders.ts';
import type { ClusterSnapshot, ImageStateSummary, NodeInfo, PodInfo } from '../cluster/types.ts';
import type { CycleState, ScorePlugin } from '../framework/types.ts';
import type { Taint } from '../model/objects.ts';
import { imageLocality } from './image-locality.ts';
import { nodeResourcesBalancedAllocation } from './node-resources-balanced-allocation.ts';
import { newNodeResourcesFit, nodeResourcesFit } from './node-resources-fit.ts';
import { taintToleration } from './taint-toleration.ts';

const images = ['a:1', 'b:1', 'c:1'];
const gpu = 'example.com/gpu';

const requests = fc.record({
  milliCPU: fc.constantFrom(0, 100, 250, 1000, 5000),
  memory: fc.constantFrom(0, 128 * 2 ** 20, Gi, 20 * Gi),
  ephemeralStorage: fc.constantFrom(0, Gi),
  scalar: fc.constantFrom({}, { [gpu]: 1 }, { [gpu]: 3 }),
});

const taint = fc.record({
  key: fc.constantFrom('k1', 'k2'),
  value: fc.constantFrom(undefined, 'v'),
  effect: fc.constantFrom('PreferNoSchedule', 'NoSchedule'),
}) as fc.Arbitrary<Taint>;

const podInput = fc.record({
  requests,
  images: fc.subarray(images),
  tolerations: fc.array(
    fc.record({
      key: fc.constantFrom('k1', 'k2', undefined),
      operator: fc.constantFrom('Exists', 'Equal', undefined),
      value: fc.constantFrom('v', undefined),
      effect: fc.constantFrom('PreferNoSchedule', undefined),
    }),
    { maxLength: 2 },
  ),
});

const nodeInput = fc.record({
  allocatable: fc.record({
    milliCPU: fc.constantFrom(0, 2000, 4000),
    memory: fc.constantFrom(0, 8 * Gi, 32 * Gi),
    ephemeralStorage: fc.constantFrom(0, 100 * Gi),
    scalar: fc.constantFrom({}, { [gpu]: 4 }),
  }),
  taints: fc.array(taint, { maxLength: 2 }),
  images: fc.subarray(images),
  charged: fc.array(requests, { maxLength: 3 }),
});

/** What `nodeInput` draws. */
type NodeDraft = typeof nodeInput extends fc.Arbitrary<infer T> ? T : never;

/** A node with `charged` pods on it and `images` listed in its status (size 100 MiB). */
function buildNode(input: NodeDraft): NodeInfo {
  const node = makeNode({ allocatable: input.allocatable, taints: input.taints });
  for (const r of input.charged) chargePod(node, makePod({ requests: r }));
  return Object.assign(node, { images: new Map(input.images.map((i) => [i, 100 * 2 ** 20])) });
}

/** The snapshot part ImageLocality's PreScore reads: the live nodes and the image index. */
function snapshotOf(nodes: readonly NodeInfo[]): ClusterSnapshot {
  const imageStates = new Map<string, ImageStateSummary>();
  for (const n of nodes)
    for (const [image, size] of n.images) {
      const held = imageStates.get(image);
      if (held === undefined) imageStates.set(image, { size, numNodes: 1 });
      else held.numNodes++;
    }
  return { nodeOrder: nodes, imageStates } as unknown as ClusterSnapshot;
}

const plugins: ScorePlugin[] = [
  nodeResourcesFit,
  newNodeResourcesFit({ scoringStrategy: { type: 'MostAllocated' } }),
  newNodeResourcesFit({
    scoringStrategy: {
      resources: [
        { name: 'memory', weight: 3 },
        { name: 'cpu', weight: 2 },
      ],
    },
  }),
  newNodeResourcesFit({ scoringStrategy: { resources: [{ name: 'memory', weight: 1 }] } }),
  newNodeResourcesFit({
    scoringStrategy: {
      type: 'RequestedToCapacityRatio',
      resources: [
        { name: 'cpu', weight: 2 },
        { name: 'memory', weight: 1 },
        { name: gpu, weight: 3 },
      ],
      requestedToCapacityRatio: {
        shape: [
          { utilization: 0, score: 0 },
          { utilization: 100, score: 10 },
        ],
      },
    },
  }),
  nodeResourcesBalancedAllocation,
  imageLocality,
  taintToleration,
];

describe('scoreNodes', () => {
  for (const plugin of plugins) {
    it(`${plugin.name}: equals score on each node`, () => {
      expect(plugin.scoreNodes).toBeDefined();
      fc.assert(
        fc.property(podInput, fc.array(nodeInput, { minLength: 1, maxLength: 6 }), (p, ns) => {
          const pod: PodInfo = makePod(p);
          const nodes = ns.map(buildNode);
          const state: CycleState = new Map();
          plugin.preScore?.(pod, state, snapshotOf(nodes), nodes);
          const one = nodes.map((n) => plugin.score(pod, n, state));
          const batch = new Array<number>(nodes.length);
          plugin.scoreNodes?.(pod, nodes, state, batch);
          expect(batch).toEqual(one);
        }),
        { numRuns: 300 },
      );
    });
  }
});
