// `simulate`'s inputs at scale, its --horizon flag, and what the readable summary says about a run.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunSummary } from '../runtime/summary.ts';
import { CliError } from './errors.ts';
import { describeRun, horizonFlag, loadCluster } from './simulate-command.ts';

const work = mkdtempSync(join(tmpdir(), 'berth-sim-'));

function summary(overrides: Partial<RunSummary>): RunSummary {
  return {
    nodes: 1,
    pods: 0,
    scheduled: 0,
    unschedulable: 0,
    backingOff: 0,
    binding: 0,
    gated: 0,
    queued: 0,
    placements: {},
    devices: {},
    pending: {},
    pendingStates: {},
    decisionDigest: '',
    attempts: 0,
    podsPerSecond: 0,
    attemptsPerSecond: 0,
    elapsedMs: 0,
    ...overrides,
  };
}

describe('simulate inputs', () => {
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('loads a generated workload of 200,000 pods (spreading it into push overflowed the stack)', () => {
    const { nodes, pods } = loadCluster({
      files: [],
      generate: { nodes: 5, pods: 200_000 },
      seed: 1,
    });
    expect(nodes).toHaveLength(5);
    expect(pods).toHaveLength(200_000);
    expect(pods[199_999]?.spec.tolerations).toHaveLength(2);
  });

  it('loads a --cluster file of 130,000 pods', () => {
    const file = join(work, 'big.json');
    const items = Array.from({ length: 130_000 }, (_, i) => ({
      kind: 'Pod',
      metadata: { name: `p-${i}`, namespace: 'big' },
      spec: { schedulerName: 'berth', containers: [{ name: 'c' }] },
    }));
    writeFileSync(file, JSON.stringify({ kind: 'List', items }));
    expect(loadCluster({ files: [file], seed: 1 }).pods).toHaveLength(130_000);
  });

  it('reports a pod defined in a file and again in another as one line naming both', () => {
    const a = join(work, 'a.yaml');
    const b = join(work, 'b.yaml');
    writeFileSync(a, 'kind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c}]}\n');
    writeFileSync(b, 'kind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c}]}\n');
    expect(() => loadCluster({ files: [a, b], seed: 1 })).toThrow(CliError);
    expect(() => loadCluster({ files: [a, b], seed: 1 })).toThrow(
      `${b}: document 1: Pod default/p is defined twice (first at ${a}: document 1)`,
    );
  });
});

describe('--horizon', () => {
  it.each([
    [undefined, 900_000],
    ['15m', 900_000],
    ['90s', 90_000],
    ['1h30m', 5_400_000],
    ['250ms', 250],
  ])('reads %s as %d ms', (value, ms) => {
    expect(horizonFlag(value)).toBe(ms);
  });

  it.each(['0s', '10', '-5m', '9000h'])('refuses %s as a usage error', (value) => {
    try {
      horizonFlag(value);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(CliError);
      expect((error as CliError).exitCode).toBe(2);
      expect((error as Error).message).toMatch(/^--horizon must be/);
    }
  });
});

describe('describeRun', () => {
  it('says when the horizon was reached and how many pods were still in flight', () => {
    const text = describeRun(
      summary({
        unschedulable: 3,
        backingOff: 4,
        binding: 2,
        queued: 1,
        attempts: 20,
        horizonMs: 900_000,
        virtualMs: 900_000,
        horizonReached: true,
      }),
    );
    expect(text).toContain('3 unschedulable, 4 backing off, 2 binding, 0 gated, 1 queued');
    expect(text).toContain('reached at 15m of virtual time with 7 pod(s) still in flight');
  });

  it('says a run was quiescent before the horizon', () => {
    const text = describeRun(
      summary({ horizonMs: 90_000, virtualMs: 1_505, horizonReached: false }),
    );
    expect(text).toContain('virtual time   1.505s (quiescent before the 1m30s horizon)');
  });
});
