// ImageLocality and image volumes by release: 1.36 adds their images to the sum, 1.37 also counts them.
import { describe, expect, it } from 'vitest';
import { nodeObject, podObject } from '../../test/support/objects.ts';
import { podInfoFromObject } from '../cluster/pod-info.ts';
import { evolve, initialState } from '../cluster/reducer.ts';
import type { ClusterState, PodInfo } from '../cluster/types.ts';
import type { CycleState } from '../framework/types.ts';
import type { KubeRelease } from '../model/kube-release.ts';
import {
  imageLocality,
  imageLocality136,
  imageLocality137,
  newImageLocality,
} from './image-locality.ts';

const mb = 1024 * 1024;

/** Live nodes `a` (holding app:1, 250 MiB) and `b` (holding model:1, 500 MiB). */
function twoNodes(): ClusterState {
  const state = initialState();
  const images = { a: ['app:1', 250], b: ['model:1', 500] } as const;
  Object.entries(images).forEach(([name, [image, size]], i) => {
    const node = nodeObject(name);
    if (node.status !== undefined) node.status.images = [{ names: [image], sizeBytes: size * mb }];
    evolve(state, { seq: i + 1, time: i, event: { type: 'NodeUpserted', node } });
  });
  return state;
}

/** A pod running app:1 that mounts `volumes` image volumes (references as given). */
function podWithVolumes(...references: unknown[]): PodInfo {
  const obj = podObject('p', { containers: [{ name: 'c', image: 'app:1' }] });
  Object.assign(obj.spec, {
    volumes: [
      { name: 'data', emptyDir: {} },
      ...references.map((reference, i) => ({ name: `v${i}`, image: { reference } })),
    ],
  });
  const info = podInfoFromObject(obj);
  if ('rejected' in info) throw new Error(info.rejected);
  return info;
}

function scoresOf(release: KubeRelease, state: ClusterState, pod: PodInfo): number[] {
  const plugin = newImageLocality(undefined, release);
  const cycle: CycleState = new Map();
  plugin.preScore(pod, cycle, state);
  const out = [0, 0];
  plugin.scoreNodes(pod, state.nodeOrder, cycle, out);
  expect(state.nodeOrder.map((n) => plugin.score(pod, n, cycle))).toEqual(out);
  return out;
}

describe('ImageLocality with image volumes (kube 1.36, 1.37)', () => {
  it('parses volumes[].image.reference, normalized, beside the container images', () => {
    const pod = podWithVolumes('model:1', 'registry:5000/weights');
    expect(pod.images).toEqual(['app:1']);
    expect(pod.imageVolumes).toEqual(['model:1', 'registry:5000/weights:latest']);
  });

  it('a pod whose image volume is on another node than its container image: 1.35, 1.36 and 1.37 disagree', () => {
    const state = twoNodes();
    const pod = podWithVolumes('model:1');
    // Each image is on 1 of 2 nodes: app:1 scales to 125 MiB, model:1 to 250 MiB.
    // 1.35: only app:1, 1 container → a: 100 × (125 − 23) / (1000 − 23) = 10, b: 0.
    expect(scoresOf('1.35', state, pod)).toEqual([10, 0]);
    // 1.36: b sums model:1 but the thresholds stay 1 container: 100 × 227 / 977 = 23.
    expect(scoresOf('1.36', state, pod)).toEqual([10, 23]);
    // 1.37: 2 images → max 2000 MiB: a 100 × 102 / 1977 = 5, b 100 × 227 / 1977 = 11.
    expect(scoresOf('1.37', state, pod)).toEqual([5, 11]);
  });

  it('an image volume on no node still raises 1.37\u2019s count (and lowers every score)', () => {
    const state = twoNodes();
    const pod = podWithVolumes('nowhere:1');
    expect(scoresOf('1.36', state, pod)).toEqual([10, 0]);
    // 100 × 102 / 1977 = 5
    expect(scoresOf('1.37', state, pod)).toEqual([5, 0]);
  });

  it('an image volume without a reference is Go\u2019s "" (":latest") and is counted in 1.37', () => {
    const state = twoNodes();
    const pod = podWithVolumes(undefined);
    expect(pod.imageVolumes).toEqual([':latest']);
    expect(scoresOf('1.37', state, pod)).toEqual([5, 0]);
  });

  it('the factory picks the release\u2019s rules; the latest by default', () => {
    expect(newImageLocality(undefined, '1.34')).toBe(imageLocality);
    expect(newImageLocality(undefined, '1.35')).toBe(imageLocality);
    expect(newImageLocality(undefined, '1.36')).toBe(imageLocality136);
    expect(newImageLocality(undefined, '1.37')).toBe(imageLocality137);
    expect(newImageLocality()).toBe(imageLocality137);
  });
});
