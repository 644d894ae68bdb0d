// Acceptance: a mixed manifest is placed exactly as kube-scheduler's filters allow, with its reasons.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { admit, manifestInput } from '../../src/adapters/sim/admission.ts';
import { parseManifests } from '../../src/adapters/sim/manifests.ts';
import { defaultConfig } from '../../src/core/config.ts';
import { parseLog } from '../../src/events/reader.ts';
import type { PodObject } from '../../src/model/objects.ts';
import { defaultHorizonMs, type SimulationOptions, simulate } from '../../src/runtime/simulate.ts';
import { nodeObject, podObject } from '../support/objects.ts';

const fixture = new URL('../fixtures/kube-filters.yaml', import.meta.url);

function run(seed: number) {
  const { nodes, pods } = admit([
    manifestInput(parseManifests(readFileSync(fixture, 'utf8'), 'kube-filters.yaml')),
  ]);
  return simulate({
    nodes,
    pods,
    seed,
    // Without PostFilters: this fixture pins the filters (its priorities would preempt).
    config: { ...defaultConfig, postFilters: [] },
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

/** One 1-cpu node. */
const node1 = nodeObject('n1', { allocatable: { cpu: '1', memory: '4Gi', pods: '10' } });

/** A pod of berth's requesting `cpu`, with `spec` merged in. */
function berthPod(name: string, spec: Partial<PodObject['spec']> = {}, cpu = '1'): PodObject {
  const p = podObject(name, { schedulerName: 'berth', requests: { cpu } });
  Object.assign(p.spec, spec);
  return p;
}

/** Simulates `pods` on `node1` (seed 1, 5 ms binds that never fail). */
function simOnOneNode(pods: PodObject[], opts: Partial<SimulationOptions> = {}) {
  return simulate({
    nodes: [node1],
    pods,
    seed: 1,
    // Without PostFilters: this fixture pins the filters (its priorities would preempt).
    config: { ...defaultConfig, postFilters: [] },
    bindLatencyMs: 5,
    bindFailureRate: 0,
    ...opts,
  });
}

describe('simulate: what protocol v2 changed', () => {
  const sim = (pods: PodObject[], script?: SimulationOptions['script'], lines?: string[]) =>
    simOnOneNode(pods, {
      ...(script === undefined ? {} : { script }),
      ...(lines === undefined ? {} : { record: (l: string) => void lines.push(l) }),
    });

  it('does not bind a gated pod, and gives its capacity to another pod', () => {
    const summary = sim([berthPod('gated', { schedulingGates: [{ name: 'q' }] }), berthPod('b')]);
    expect(summary.placements).toEqual({ 'default/b': 'n1' });
    expect(summary.pending['default/gated']).toBe(
      'Scheduling is blocked due to non-empty scheduling gates',
    );
  });

  it('binds a gated pod once an update removes its gates', () => {
    const summary = sim(
      [berthPod('gated', { schedulingGates: [{ name: 'q' }] })],
      [{ at: 1_000, updatePod: berthPod('gated') }],
    );
    expect(summary.placements).toEqual({ 'default/gated': 'n1' });
  });

  it('checks required pod affinity and anti-affinity (InterPodAffinity) instead of refusing them', () => {
    const hostname = 'kubernetes.io/hostname';
    const summary = sim([
      // n1 has no hostname label: anti-affinity over it cannot be violated.
      berthPod(
        'db',
        {
          affinity: {
            podAntiAffinity: {
              requiredDuringSchedulingIgnoredDuringExecution: [
                { labelSelector: { matchLabels: { app: 'db' } }, topologyKey: hostname },
              ],
            },
          },
        },
        '0',
      ),
      // Required affinity needs the topology key on the node.
      berthPod(
        'web',
        {
          affinity: {
            podAffinity: {
              requiredDuringSchedulingIgnoredDuringExecution: [
                { labelSelector: { matchLabels: { app: 'cache' } }, topologyKey: hostname },
              ],
            },
          },
        },
        '0',
      ),
    ]);
    expect(summary.placements).toEqual({ 'default/db': 'n1' });
    expect(summary.pending['default/web']).toBe(
      "0/1 nodes are available: 1 node(s) didn't match pod affinity rules.",
    );
  });

  it('charges limits-only pods their limits: one of three 1-cpu pods fits a 1-cpu node', () => {
    const limitsOnly = (name: string) =>
      berthPod(name, { containers: [{ name: 'c', resources: { limits: { cpu: '1' } } }] });
    const summary = sim([limitsOnly('a'), limitsOnly('b'), limitsOnly('c')]);
    expect(Object.keys(summary.placements)).toHaveLength(1);
    expect(Object.keys(summary.pending)).toHaveLength(2);
  });

  it('schedules a pod recreated under its name while its bind is in flight: the stale Binding is refused by uid', () => {
    const lines: string[] = [];
    const summary = sim([berthPod('web')], [{ at: 2, createPod: berthPod('web') }], lines);
    expect(summary.placements).toEqual({ 'default/web': 'n1' });
    expect(summary.pending).toEqual({});
    const results = parseLog(`${lines.join('\n')}\n`)
      .envelopes.map((e) => e.event)
      .filter((e) => e.type === 'BindSucceeded' || e.type === 'BindFailed');
    expect(results).toHaveLength(2);
    const [stale, fresh] = results;
    expect(stale).toMatchObject({ type: 'BindFailed', reason: 'Conflict' });
    expect(fresh).toMatchObject({ type: 'BindSucceeded', attempt: 1 });
    expect(fresh?.type === 'BindSucceeded' && fresh.uid).not.toBe(
      stale?.type === 'BindFailed' && stale.uid,
    );
  });
});

describe('simulate: pods counted by their real state, and the horizon', () => {
  const sized = (name: string, cpu: string, spec: Partial<PodObject['spec']> = {}) =>
    berthPod(name, spec, cpu);
  const sim = simOnOneNode;
  const total = (s: ReturnType<typeof sim>) =>
    s.scheduled + s.unschedulable + s.backingOff + s.binding + s.gated + s.queued;

  it('tells bound, unschedulable and gated pods apart, and runs to quiescence', () => {
    const s = sim([
      sized('fits', '500m'),
      sized('too-big', '2'),
      sized('gated', '100m', { schedulingGates: [{ name: 'q' }] }),
    ]);
    expect(s).toMatchObject({
      scheduled: 1,
      unschedulable: 1,
      gated: 1,
      backingOff: 0,
      binding: 0,
    });
    expect(s.pendingStates).toEqual({
      'default/too-big': 'unschedulable',
      'default/gated': 'gated',
    });
    expect(s.pods).toBe(total(s));
    // The gated pod is never attempted.
    expect(s.attempts).toBe(2);
    expect(s.horizonReached).toBe(false);
    expect(s.horizonMs).toBe(defaultHorizonMs);
    expect(s.virtualMs).toBeLessThan(defaultHorizonMs);
  });

  it('counts a pod whose binds keep failing as backing off, not unschedulable, when the horizon stops the run', () => {
    const s = sim([sized('retrying', '500m')], { bindFailureRate: 1, horizonMs: 60_000 });
    expect(s.horizonReached).toBe(true);
    expect(s.virtualMs).toBeLessThanOrEqual(60_000);
    expect(s.unschedulable).toBe(0);
    expect(s.backingOff + s.binding).toBe(1);
    expect(s.pendingStates['default/retrying']).toMatch(/^(backingOff|binding)$/);
    expect(s.pending['default/retrying']).toBe('binding failed: injected bind failure');
    expect(s.attempts).toBeGreaterThan(3);
    expect(s.pods).toBe(total(s));
  });

  it('counts a pod whose bind is still in flight at the horizon as binding', () => {
    const s = sim([sized('slow', '500m')], { bindLatencyMs: 120_000, horizonMs: 60_000 });
    expect(s).toMatchObject({ horizonReached: true, binding: 1, scheduled: 0, unschedulable: 0 });
    expect(s.pendingStates).toEqual({ 'default/slow': 'binding' });
  });

  it('defines podsPerSecond as bound pods and attemptsPerSecond as attempts, per wall second', () => {
    const s = sim(Array.from({ length: 30 }, (_, i) => sized(`p${i}`, '100m')));
    expect(s.scheduled).toBe(10);
    expect(s.attempts).toBe(30);
    // Both over the same wall time: three attempts for every bound pod.
    expect(s.attemptsPerSecond / s.podsPerSecond).toBeCloseTo(3, 1);
  });
});
