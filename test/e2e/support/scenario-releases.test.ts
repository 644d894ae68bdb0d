// The release scenarios' premises, worked out from kube's formulas, and the comparison's extra checks.
import { describe, expect, it } from 'vitest';
import { Cluster } from './control-plane.ts';
import { milli } from './invariants.ts';
import { kubeSchedulerBinary } from './kube-scheduler.ts';
import { atLeast, type OracleRelease, releaseScenarios } from './scenario-releases.ts';
import {
  asScenario,
  compareRelease,
  type ReleaseOutcomes,
  withKubeBinaries,
} from './scenario-releases-run.ts';

const scenario = (name: string) => {
  const s = releaseScenarios.find((r) => r.name === name);
  if (s === undefined) throw new Error(`no scenario ${name}`);
  return s;
};

/** kube's LeastAllocated (cpu and memory, weight 1 each) and BalancedAllocation, as of `release`. */
function kubeScores(
  alloc: [number, number],
  used: [number, number],
  pod: [number, number],
  release: OracleRelease,
): number {
  const req = [used[0] + pod[0], used[1] + pod[1]] as const;
  const least = (r: number, c: number) => Math.trunc(((c - r) * 100) / c);
  const balance = (r: readonly [number, number]) =>
    Math.trunc((1 - Math.abs(r[0] / alloc[0] - r[1] / alloc[1]) / 2) * 100);
  const l = Math.trunc((least(req[0], alloc[0]) + least(req[1], alloc[1])) / 2);
  const withPod = balance(req);
  const b = !atLeast(release, '1.36')
    ? withPod
    : 50 + Math.trunc((50 + withPod - balance(used)) / 2);
  return l + b;
}

describe('release scenarios', () => {
  it('balanced allocation: the old formula prefers ba-a, the new one ba-b, by more than a rounding', () => {
    const s = scenario('balanced allocation');
    const amounts = (q: Record<string, string>) =>
      [milli(q.cpu ?? '0'), milli(q.memory ?? '0')] as [number, number];
    const node = (n: string) =>
      amounts(s.nodes.find((x) => x.metadata.name === n)?.status.allocatable ?? {});
    const used = (n: string) =>
      amounts(
        s.residents.find((p) => p.spec.nodeName === n)?.spec.containers[0]?.resources.requests ??
          {},
      );
    const pod = amounts(s.pending[0]?.spec.containers[0]?.resources.requests ?? {});
    const margin = (r: OracleRelease) =>
      kubeScores(node('ba-a'), used('ba-a'), pod, r) -
      kubeScores(node('ba-b'), used('ba-b'), pod, r);
    expect(margin('1.35')).toBe(12);
    expect(margin('1.37')).toBe(-7);
    expect(s.expect('1.35')['ba-pod']?.node).toBe('ba-a');
    expect(s.expect('1.37')['ba-pod']?.node).toBe('ba-b');
  });

  it('every scenario expects something of every pending pod, and says how 1.35 and 1.37 differ where they do', () => {
    const differing: string[] = [];
    for (const s of releaseScenarios) {
      const [old, now] = [s.expect('1.35'), s.expect('1.37')];
      expect(Object.keys(old).sort(), s.name).toEqual(s.pending.map((p) => p.metadata.name).sort());
      // 1.35 changed none of these behaviours from 1.34 (the sources agree): the same answers.
      expect(s.expect('1.34'), s.name).toEqual(old);
      if (JSON.stringify(old) !== JSON.stringify(now)) differing.push(s.name);
    }
    expect(differing).toEqual([
      'balanced allocation',
      'image volume locality',
      'declared features',
      'nominated gated pod',
      'in-place resize',
      'preemption message',
    ]);
  });

  it('compareRelease reports a different first message, a kept nomination and a kube answer off the model', () => {
    const s = scenario('preemption message');
    const kube: ReleaseOutcomes = {
      'pm-preemptor': {
        node: 'pm-node',
        firstMessage: '0/1 nodes are available: 1 Insufficient cpu.',
        nominated: '',
      },
    };
    const berth: ReleaseOutcomes = {
      'pm-preemptor': { node: 'pm-node', firstMessage: 'other', nominated: 'pm-node' },
    };
    const kinds = compareRelease(asScenario(s, '1.37', 1), s.expect('1.37'), kube, berth).map(
      (m) => m.kind,
    );
    expect(kinds.sort()).toEqual(['message', 'model', 'nomination']);
    expect(compareRelease(asScenario(s, '1.35', 1), s.expect('1.35'), kube, kube)).toEqual([]);
  });
});

describe('the oracle binary of an older release', () => {
  it("starts that release's kube-scheduler, not the control plane's", () => {
    // A cluster that is up, as its env says: the main set's binaries and its kube release's.
    const env = { BERTH_E2E_BIN: '/cache/main/bin', BERTH_E2E_KUBE_BIN: '/cache/k8s-v1.37.2/bin' };
    const controlPlane = Object.create(Cluster.prototype, { env: { value: env } }) as Cluster;
    expect(kubeSchedulerBinary(controlPlane)).toBe('/cache/k8s-v1.37.2/bin/kube-scheduler');
    const older = withKubeBinaries(controlPlane, '/cache/k8s-v1.35.4/bin');
    expect(kubeSchedulerBinary(older)).toBe('/cache/k8s-v1.35.4/bin/kube-scheduler');
  });
});
