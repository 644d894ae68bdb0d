// Table tests for ImageLocality, after kube's TestImageLocalityPriority, plus a brute-force oracle.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nodeObject, podObject } from '../../test/support/objects.ts';
import { podInfoFromObject } from '../cluster/pod-info.ts';
import { evolve, initialState } from '../cluster/reducer.ts';
import type { ClusterState, NodeInfo, PodInfo } from '../cluster/types.ts';
import { scheduleOne } from '../framework/cycle.ts';
import { seededRng } from '../framework/rng.ts';
import type { CycleState, Profile } from '../framework/types.ts';
import type { ContainerImage } from '../model/objects.ts';
import {
  calculatePriority,
  imageLocality,
  imageLocalityScore,
  newImageLocality,
} from './image-locality.ts';

const mb = 1024 * 1024;

type NodeSpec = { name: string; images?: ContainerImage[] };
type Step = { up: NodeSpec } | { down: string };

const img = (sizeMB: number, ...names: string[]): ContainerImage => ({
  names,
  sizeBytes: sizeMB * mb,
});

/** Folds node upserts and deletes into a fresh state, in order. */
function cluster(...steps: (NodeSpec | Step)[]): ClusterState {
  const state = initialState();
  steps.forEach((s, i) => {
    const step: Step = 'up' in s || 'down' in s ? s : { up: s };
    if ('down' in step) {
      evolve(state, { seq: i + 1, time: i, event: { type: 'NodeDeleted', name: step.down } });
      return;
    }
    const node = nodeObject(step.up.name);
    if (step.up.images !== undefined && node.status !== undefined)
      node.status.images = step.up.images;
    evolve(state, { seq: i + 1, time: i, event: { type: 'NodeUpserted', node } });
  });
  return state;
}

/** A parsed pod whose containers (and init containers) run the given images. */
function pod(images: string[], initImages: string[] = []): PodInfo {
  const obj = podObject('p', {
    containers: images.map((image, i) => ({ name: `c${i}`, image })),
    initContainers: initImages.map((image, i) => ({ name: `i${i}`, image })),
  });
  const info = podInfoFromObject(obj);
  if ('rejected' in info) throw new Error(info.rejected);
  return info;
}

/** Runs PreScore then Score on every live node, in node order, as a cycle does. */
function scores(state: ClusterState, p: PodInfo): number[] {
  const cycle: CycleState = new Map();
  imageLocality.preScore(p, cycle, state);
  return state.nodeOrder.map((n) => imageLocality.score(p, n, cycle));
}

// kube's TestImageLocalityPriority fixtures.
const node403002000: ContainerImage[] = [
  img(40, 'gcr.io/40:latest', 'gcr.io/40:v1', 'gcr.io/40:v1'),
  img(300, 'gcr.io/300:latest', 'gcr.io/300:v1'),
  img(2000, 'gcr.io/2000:latest'),
];
const node25010 = [img(250, 'gcr.io/250:latest'), img(10, 'gcr.io/10:latest', 'gcr.io/10:v1')];
const node60040900 = [
  img(600, 'gcr.io/600:latest'),
  img(40, 'gcr.io/40:latest'),
  img(900, 'gcr.io/900:latest'),
];
const node300600900 = [
  img(300, 'gcr.io/300:latest'),
  img(600, 'gcr.io/600:latest'),
  img(900, 'gcr.io/900:latest'),
];
const node400030 = [img(4000, 'gcr.io/4000:latest'), img(30, 'gcr.io/30:latest')];
const node203040 = [
  img(20, 'gcr.io/20:latest'),
  img(30, 'gcr.io/30:latest'),
  img(40, 'gcr.io/40:latest'),
];

describe('ImageLocality', () => {
  const cases: { name: string; pod: PodInfo; nodes: NodeSpec[]; want: number[] }[] = [
    {
      // 40M/2 < 23M → 0; 100 × (250M/2 − 23M) / (2 × 1000M − 23M) = 5
      name: 'two images spread on two nodes, prefer the larger image one',
      pod: pod(['gcr.io/40', 'gcr.io/250']),
      nodes: [
        { name: 'node1', images: node403002000 },
        { name: 'node2', images: node25010 },
      ],
      want: [0, 5],
    },
    {
      // 100 × ((40M + 300M)/2 − 23M) / (2000M − 23M) = 7
      name: 'two images on one node, prefer this node',
      pod: pod(['gcr.io/40', 'gcr.io/300']),
      nodes: [
        { name: 'node1', images: node403002000 },
        { name: 'node2', images: node25010 },
      ],
      want: [7, 0],
    },
    {
      // 4000M/2 ≥ 2 × 1000M → 100; 10M/2 < 23M → 0
      name: 'if exceed limit, use limit',
      pod: pod(['gcr.io/10', 'gcr.io/4000']),
      nodes: [
        { name: 'node1', images: node400030 },
        { name: 'node2', images: node25010 },
      ],
      want: [100, 0],
    },
    {
      // 100 × (4000M/3 − 23M) / (2000M − 23M) = 66
      name: 'if exceed limit, use limit (with node which has no images present)',
      pod: pod(['gcr.io/10', 'gcr.io/4000']),
      nodes: [
        { name: 'node1', images: node400030 },
        { name: 'node2', images: node25010 },
        { name: 'node3' },
      ],
      want: [66, 0, 0],
    },
    {
      // node1: 600M·2/3 + 900M·2/3 = 1000M → 32; node2: + 300M/3 → 36
      name: 'pod with multiple large images, node2 is preferred',
      pod: pod(['gcr.io/300', 'gcr.io/600', 'gcr.io/900']),
      nodes: [
        { name: 'node1', images: node60040900 },
        { name: 'node2', images: node300600900 },
        { name: 'node3' },
      ],
      want: [32, 36, 0],
    },
    {
      // node1: 30M + 40M/2 = 50M → 1; node2: 30M → 0
      name: 'pod with multiple small images',
      pod: pod(['gcr.io/30', 'gcr.io/40']),
      nodes: [
        { name: 'node1', images: node203040 },
        { name: 'node2', images: node400030 },
      ],
      want: [1, 0],
    },
    {
      // Two containers: A 300M/2 + 600M = 750M → 36; B 600M → 29. (Without the init
      // container A would be 100 × (600M − 23M) / (1000M − 23M) = 59.)
      name: 'init containers count, both their images and towards the container number',
      pod: pod(['gcr.io/600'], ['gcr.io/300']),
      nodes: [
        { name: 'a', images: [img(300, 'gcr.io/300:latest'), img(600, 'gcr.io/600:latest')] },
        { name: 'b', images: [img(600, 'gcr.io/600:latest')] },
      ],
      want: [36, 29],
    },
    {
      // 2 × 300M over two containers: 100 × (600M − 23M) / (2000M − 23M) = 29
      name: 'two containers with the same image count it twice',
      pod: pod(['gcr.io/300', 'gcr.io/300']),
      nodes: [{ name: 'a', images: [img(300, 'gcr.io/300:latest')] }],
      want: [29],
    },
    {
      name: 'an image is matched by its exact reported name: a digest, a tag, a registry port',
      pod: pod(['gcr.io/app@sha256:abc', 'localhost:5000/tool', 'gcr.io/db:1.2']),
      nodes: [
        {
          name: 'a',
          images: [
            img(400, 'gcr.io/app@sha256:abc'),
            img(400, 'localhost:5000/tool:latest'),
            img(400, 'gcr.io/db:1.2'),
          ],
        },
        { name: 'b', images: [img(400, 'gcr.io/app:latest'), img(400, 'localhost:5000/tool')] },
      ],
      // a: 3 × 400M/2 = 600M → 100 × 577M / 2977M = 19; b matches nothing
      want: [19, 0],
    },
    {
      name: 'docker.io/library/ is not added: "nginx" does not match docker.io/library/nginx:latest',
      pod: pod(['nginx']),
      nodes: [
        { name: 'a', images: [img(500, 'docker.io/library/nginx:latest')] },
        { name: 'b', images: [img(500, 'nginx:latest')] },
      ],
      // b: 500M/2 = 250M → 100 × 227M / 977M = 23
      want: [0, 23],
    },
    {
      name: 'a pod without containers scores 0 everywhere',
      pod: pod([]),
      nodes: [{ name: 'a', images: [img(500, ':latest')] }],
      want: [0],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const state = cluster(...c.nodes);
      expect(scores(state, c.pod)).toEqual(c.want);
      // The one-shot form agrees with PreScore + Score.
      const direct = state.nodeOrder.map((n) =>
        imageLocalityScore(c.pod, n, state.imageStates, state.nodeOrder.length),
      );
      expect(direct).toEqual(c.want);
    });
  }

  it('uses the size of the node that first reported a name, even after that node left (kube\u2019s cache)', () => {
    const p = pod(['gcr.io/x']);
    const a = { name: 'a', images: [img(500, 'gcr.io/x:latest')] };
    const b = { name: 'b', images: [img(100, 'gcr.io/x:latest')] };
    // Both hold it: spread 1, size 500M → 100 × 477M / 977M = 48 (b's own 100M would give 7).
    expect(scores(cluster(a, b), p)).toEqual([48, 48]);
    // a leaves; b still scores with 500M.
    expect(scores(cluster(a, b, { down: 'a' }), p)).toEqual([48]);
    // b re-reports while it alone holds the name: out and back in, it now brings its 100M.
    expect(scores(cluster(a, b, { down: 'a' }, { up: b }), p)).toEqual([7]);
  });

  it('counts the spread over live nodes only: a deleted node neither holds nor counts', () => {
    const p = pod(['gcr.io/x']);
    const x = [img(1000, 'gcr.io/x:latest')];
    // 1000M × 1/3 = 333.3M → 100 × 310.3M / 977M = 31.8 → 31
    expect(scores(cluster({ name: 'a', images: x }, { name: 'b' }, { name: 'c' }), p)).toEqual([
      31, 0, 0,
    ]);
    const afterDelete = cluster(
      { name: 'a', images: x },
      { name: 'b' },
      { name: 'c' },
      {
        down: 'c',
      },
    );
    // 1000M × 1/2 = 500M → 100 × 477M / 977M = 48
    expect(scores(afterDelete, p)).toEqual([48, 0]);
  });

  it('has no normalize and no PreScore skip, as kube', () => {
    const plugin = newImageLocality();
    expect(plugin.name).toBe('ImageLocality');
    expect('normalize' in plugin).toBe(false);
    expect('preScoreSkip' in plugin).toBe(false);
  });

  it('refuses to score without its PreScore data', () => {
    const state = cluster({ name: 'a' });
    expect(() =>
      imageLocality.score(pod(['x']), state.nodeOrder[0] as NodeInfo, new Map()),
    ).toThrow('reading "PreScoreImageLocality" from cycle state: not found');
  });

  it('is run by the cycle: PreScore before Score, the pod lands where its image is', () => {
    const state = cluster(
      { name: 'a' },
      { name: 'b', images: [img(800, 'gcr.io/big:latest')] },
      { name: 'c' },
    );
    const profile: Profile = {
      preFilter: [],
      filter: [],
      score: [{ plugin: imageLocality, weight: 1 }],
      queueingHints: new Map(),
    };
    for (let seed = 1; seed <= 5; seed++) {
      const r = scheduleOne(pod(['gcr.io/big']), state, {
        profile,
        rng: seededRng(seed),
        cursor: { next: 0 },
        percentageOfNodesToScore: 0,
      });
      expect(r).toMatchObject({ kind: 'Scheduled', node: 'b' });
    }
  });
});

describe('calculatePriority', () => {
  it('maps [23M, 1000M × containers] linearly onto 0–100, clamping, truncating', () => {
    expect(calculatePriority(0, 1)).toBe(0);
    expect(calculatePriority(23 * mb, 1)).toBe(0);
    expect(calculatePriority(1000 * mb, 1)).toBe(100);
    expect(calculatePriority(5000 * mb, 1)).toBe(100);
    expect(calculatePriority(1000 * mb, 2)).toBe(49); // 100 × 977 / 1977 = 49.4
    // One byte short of the next point: 100 × (sum − min) = 977M × k − 100 → k − 1.
    const k = 37;
    const justBelow = 23 * mb + Math.ceil((977 * mb * k) / 100) - 1;
    expect(calculatePriority(justBelow, 1)).toBe(k - 1);
    expect(calculatePriority(justBelow + 1, 1)).toBe(k);
  });
});

/** kube's cache, independently: name → size and node set, per the Go code's add/remove. */
function kubeCacheModel(steps: Step[]): Map<string, { size: number; nodes: Set<string> }> {
  const states = new Map<string, { size: number; nodes: Set<string> }>();
  const live = new Map<string, ContainerImage[]>();
  const remove = (node: string) => {
    for (const image of live.get(node) ?? []) {
      for (const n of image.names ?? []) {
        const s = states.get(n);
        if (s === undefined) continue;
        s.nodes.delete(node);
        if (s.nodes.size === 0) states.delete(n);
      }
    }
  };
  for (const step of steps) {
    if ('down' in step) {
      remove(step.down);
      live.delete(step.down);
      continue;
    }
    remove(step.up.name);
    const images = step.up.images ?? [];
    live.set(step.up.name, images);
    for (const image of images) {
      for (const n of image.names ?? []) {
        const s = states.get(n);
        if (s === undefined)
          states.set(n, { size: image.sizeBytes ?? 0, nodes: new Set([step.up.name]) });
        else s.nodes.add(step.up.name);
      }
    }
  }
  return states;
}

describe('ImageLocality against a brute-force oracle', () => {
  const names = ['r/a', 'r/b', 'r/c:v1', 'r/d@sha256:1'];
  const nodeNames = ['n0', 'n1', 'n2', 'n3'];
  // Sizes around the thresholds, so that clamping and truncation are exercised.
  const size = fc.constantFrom(
    0,
    1,
    23 * mb - 1,
    23 * mb,
    46 * mb + 1,
    300 * mb,
    999 * mb,
    3000 * mb,
  );
  const image = fc.record({
    names: fc.subarray(
      names.map((n) => (n.includes(':') ? n : `${n}:latest`)),
      { minLength: 1 },
    ),
    sizeBytes: size,
  });
  const step: fc.Arbitrary<Step> = fc.oneof(
    {
      weight: 3,
      arbitrary: fc.record({
        up: fc.record({
          name: fc.constantFrom(...nodeNames),
          images: fc.array(image, { maxLength: 3 }),
        }),
      }),
    },
    { weight: 1, arbitrary: fc.record({ down: fc.constantFrom(...nodeNames) }) },
  );
  const podImages = fc.array(fc.constantFrom(...names, 'r/none'), { minLength: 0, maxLength: 4 });

  it('scores every live node as kube\u2019s formula over kube\u2019s cache does', () => {
    fc.assert(
      fc.property(
        fc.array(step, { minLength: 1, maxLength: 12 }),
        podImages,
        podImages,
        (steps, apps, inits) => {
          const state = cluster(...steps);
          const total = state.nodeOrder.length;
          fc.pre(total > 0);
          const model = kubeCacheModel(steps);
          const p = pod(apps, inits);
          const requested = [...inits, ...apps].map((n) => (n.includes(':') ? n : `${n}:latest`));
          const want = state.nodeOrder.map((node) => {
            let sum = 0n;
            for (const n of requested) {
              const s = model.get(n);
              if (s === undefined || !s.nodes.has(node.name)) continue;
              sum += BigInt(Math.trunc(s.size * (s.nodes.size / total))); // Go: int64(float64 × float64)
            }
            const min = 23n * 1048576n;
            const max = 1000n * 1048576n * BigInt(requested.length);
            const clamped = sum < min ? min : sum > max ? max : sum;
            return Number((100n * (clamped - min)) / (max - min)); // BigInt division truncates, as Go
          });
          expect(scores(state, p)).toEqual(want);
        },
      ),
      { numRuns: 400, seed: 20250917 },
    );
  });
});
