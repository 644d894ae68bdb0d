// Pods whose fields the old log dropped or the old core ignored stay pending with a reason.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

function simulate(fixture: string) {
  const r = spawnSync(
    process.execPath,
    [
      join(root, 'bin/berth.js'),
      'simulate',
      '--cluster',
      join(root, 'test/fixtures', fixture),
      '--json',
    ],
    { encoding: 'utf8' },
  );
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as {
    placements: Record<string, string>;
    pending: Record<string, string>;
  };
}

// kube's PostFilter part of the message: equal-priority pods have no victims to preempt, and
// a pod beyond a node's whole allocatable (or a missing topology key) cannot be helped.
const NV = ' preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.';
const NH = ' preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.';

describe('berth simulate on pods with fields the core must not drop', () => {
  const out = simulate('protocol-regressions.yaml');

  it('charges limits-only pods their limits: two of three 1-cpu pods fit two 1-cpu nodes', () => {
    const placed = Object.keys(out.placements).filter((k) => k.startsWith('lim/'));
    expect(placed).toHaveLength(2);
    expect(new Set(placed.map((k) => out.placements[k])).size).toBe(2);
    const waiting = Object.entries(out.pending).filter(([k]) => k.startsWith('lim/'));
    expect(waiting).toEqual([
      [expect.any(String), `0/2 nodes are available: 2 Insufficient cpu.${NV}`],
    ]);
  });

  it('keeps a gated pod out of scheduling', () => {
    expect(out.placements['gates/gated']).toBeUndefined();
    expect(out.pending['gates/gated']).toBe(
      'Scheduling is blocked due to non-empty scheduling gates',
    );
  });

  it('charges pod-level requests', () => {
    expect(out.pending['plr/pod-level']).toBe(`0/2 nodes are available: 2 Insufficient cpu.${NH}`);
  });

  it('gives each of two nodes one of three pods that want host port 8080 (NodePorts)', () => {
    const placed = Object.keys(out.placements).filter((k) => k.startsWith('ports/'));
    expect(placed).toHaveLength(2);
    expect(new Set(placed.map((k) => out.placements[k])).size).toBe(2);
    const waiting = Object.entries(out.pending).filter(([k]) => k.startsWith('ports/'));
    expect(waiting).toEqual([
      [
        expect.any(String),
        `0/2 nodes are available: 2 node(s) didn't have free ports for the requested pod ports.${NV}`,
      ],
    ]);
  });

  it('spreads two DoNotSchedule pods over the two hostnames; a missing key is unresolvable', () => {
    expect(out.placements['spread/spread-1']).toBeDefined();
    expect(out.placements['spread/spread-2']).toBeDefined();
    expect(out.placements['spread/spread-1']).not.toBe(out.placements['spread/spread-2']);
    expect(out.pending['spread/spread-rack']).toBe(
      `0/2 nodes are available: 2 node(s) didn't match pod topology spread constraints (missing required label).${NH}`,
    );
  });

  it('places at most one of three pods that repel each other per hostname (InterPodAffinity)', () => {
    const placed = Object.keys(out.placements).filter((k) => k.startsWith('anti/'));
    expect(placed).toHaveLength(2);
    expect(new Set(placed.map((k) => out.placements[k])).size).toBe(2);
    const waiting = Object.entries(out.pending).filter(([k]) => k.startsWith('anti/'));
    expect(waiting).toEqual([
      [
        expect.any(String),
        `0/2 nodes are available: 2 node(s) didn't match pod anti-affinity rules.${NV}`,
      ],
    ]);
  });
});
