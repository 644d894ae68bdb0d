// Acceptance: a mixed manifest is placed exactly as kube-scheduler's filters allow, with its reasons.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseManifests } from '../../src/adapters/sim/manifests.ts';
import { defaultConfig } from '../../src/core/config.ts';
import { simulate } from '../../src/runtime/simulate.ts';

const fixture = new URL('../fixtures/kube-filters.yaml', import.meta.url);

function run(seed: number) {
  const { nodes, pods } = parseManifests(readFileSync(fixture, 'utf8'), 'kube-filters.yaml');
  return simulate({
    nodes,
    pods,
    seed,
    config: defaultConfig,
    bindLatencyMs: 5,
    bindFailureRate: 0,
  });
}

// The other six nodes fail earlier filters (NodeUnschedulable, TaintToleration and
// NodeAffinity run before NodeResourcesFit); kube sorts the "count reason" strings.
const otherNodes =
  '1 node(s) were unschedulable, 2 node(s) had untolerated taint(s), ' +
  "3 node(s) didn't match Pod's node affinity/selector.";

describe('placement of the kube-filters fixture', () => {
  const summary = run(1);

  it.each([
    // n-ssd: 4 cpu − 3 (terminating pod still counts) = 1 left; the Succeeded pod does not count.
    ['t/ssd-app', 'n-ssd'],
    // Only n-gpu has nvidia.com/gpu and the pod tolerates its taint.
    ['t/gpu-job', 'n-gpu'],
    // max(init 2cpu/3G, app sum 3cpu/2G) = 3cpu/3G fits n-mid (capacity 3/3G, no allocatable) exactly.
    ['t/kube-example', 'n-mid'],
    // 750m + 250m overhead = 1 cpu on a 1-cpu node.
    ['t/fits-tiny', 'n-tiny'],
    // Tolerates the cordon; n-ssd (zone a) has only 500m left.
    ['t/cordon-tolerant', 'n-cordoned'],
    // Tolerates not-ready; matchFields metadata.name picks the node.
    ['t/notready-tolerant', 'n-notready'],
    // n-small allows 3 pods and holds 2.
    ['t/small-1', 'n-small'],
  ])('places %s on %s', (pod, node) => {
    expect(summary.placements[pod]).toBe(node);
  });

  it.each([
    // 1500m > the 1 cpu left on n-ssd (terminating pod counts).
    ['t/ssd-big', `0/7 nodes are available: 1 Insufficient cpu, ${otherNodes}`],
    // Tolerates every taint (and so the cordon), but n-gpu has 1 of 2 GPUs left after gpu-job.
    ['t/gpu-greedy', '0/7 nodes are available: 7 Insufficient nvidia.com/gpu.'],
    // Sidecar 100m + app 100m on n-mid, which kube-example filled.
    ['t/sidecar', `0/7 nodes are available: 1 Insufficient cpu, ${otherNodes}`],
    // 800m + 250m overhead > 1 cpu.
    ['t/with-overhead', `0/7 nodes are available: 1 Insufficient cpu, ${otherNodes}`],
    // n-small's third pod slot went to small-1.
    ['t/small-2', `0/7 nodes are available: 1 Too many pods, ${otherNodes}`],
  ])("leaves %s pending with kube-scheduler's message", (pod, message) => {
    expect(summary.pending[pod]).toBe(message);
  });

  it('names the field of an unparsable quantity', () => {
    expect(summary.pending['t/bad-quantity']).toContain(
      'invalid quantity "lots" at spec.containers[0].resources.requests.cpu',
    );
  });

  it("accounts for every berth pod and leaves other schedulers' pods alone", () => {
    expect(summary.pods).toBe(13);
    expect(summary.scheduled + summary.unschedulable).toBe(13);
    expect(summary.placements['t/not-ours']).toBeUndefined();
    expect(summary.pending['t/not-ours']).toBeUndefined();
  });

  it('places the same way whatever the seed', () => {
    expect(run(99).placements).toEqual(summary.placements);
  });
});
