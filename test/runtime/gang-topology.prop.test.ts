// Properties of topology-constrained gangs over generated runs: never split across domains, placed when one domain holds them, replayable.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ManifestObject } from '../../src/adapters/sim/manifests.ts';
import { podGroupKeyOf } from '../../src/cluster/pod-groups.ts';
import type { ClusterState } from '../../src/cluster/types.ts';
import { defaultConfig } from '../../src/core/config.ts';
import { parseLog } from '../../src/events/reader.ts';
import { type Envelope, isDecision } from '../../src/events/types.ts';
import type { NodeObject, PodObject } from '../../src/model/objects.ts';
import { replay } from '../../src/runtime/replay.ts';
import { simulate } from '../../src/runtime/simulate.ts';
import { nodeObject, podObject } from '../support/objects.ts';
import { propertySeed } from '../support/property-seed.ts';

const RUNS = {
  numRuns: Number(process.env.FC_RUNS ?? 150),
  seed: propertySeed(20261129).seed,
};
const rack = 'topology.kubernetes.io/rack';

interface GroupModel {
  minMember: number;
  extra: number;
  cpu: number;
  topology: boolean;
}
interface Scenario {
  nodes: { cpu: number; rack: string | undefined }[];
  groups: GroupModel[];
  seed: number;
}

/**
 * A rack that is tighter by summed capacity but fragmented (four 1-cpu nodes for 2-cpu
 * members) ranks first and fails: the search must go on to the next rack.
 */
const fragmented: [Scenario][] = [
  [
    {
      nodes: [
        ...[1, 1, 1, 1].map((cpu) => ({ cpu, rack: 'r0' })),
        ...[4, 4].map((cpu) => ({ cpu, rack: 'r1' })),
      ],
      groups: [{ minMember: 2, extra: 0, cpu: 2, topology: true }],
      seed: 1,
    },
  ],
];

const scenario: fc.Arbitrary<Scenario> = fc.record({
  nodes: fc.array(
    fc.record({
      cpu: fc.constantFrom(1, 1, 2, 3, 4),
      rack: fc.constantFrom('r0', 'r1', 'r2', undefined),
    }),
    { minLength: 1, maxLength: 7 },
  ),
  groups: fc.array(
    fc.record({
      minMember: fc.integer({ min: 1, max: 4 }),
      extra: fc.integer({ min: 0, max: 2 }),
      cpu: fc.integer({ min: 1, max: 2 }),
      topology: fc.constantFrom(true, true, false),
    }),
    { minLength: 1, maxLength: 4 },
  ),
  seed: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
});

function build(s: Scenario, groups: readonly GroupModel[]) {
  const nodes: NodeObject[] = s.nodes.map((n, i) =>
    nodeObject(`n${i}`, {
      allocatable: { cpu: String(n.cpu), memory: '8Gi', pods: '110' },
      ...(n.rack === undefined ? {} : { labels: { [rack]: n.rack } }),
    }),
  );
  const pods: PodObject[] = [];
  let created = 0;
  const stamp = () => new Date(Date.UTC(2026, 0, 1, 0, 0, created++)).toISOString();
  for (const [g, model] of groups.entries())
    for (let i = 0; i < model.minMember + model.extra; i++)
      pods.push(
        podObject(`g${g}-${i}`, {
          schedulerName: 'berth',
          requests: { cpu: String(model.cpu) },
          labels: { 'scheduling.x-k8s.io/pod-group': `g${g}` },
          creationTimestamp: stamp(),
        }),
      );
  const objects: ManifestObject[] = groups.map((model, g) => ({
    kind: 'PodGroup',
    object: {
      apiVersion: 'scheduling.x-k8s.io/v1alpha1',
      kind: 'PodGroup',
      metadata: {
        name: `g${g}`,
        namespace: 'default',
        ...(model.topology ? { annotations: { 'berth.dev/topology-key': rack } } : {}),
      },
      spec: { minMember: model.minMember },
    },
    origin: 'generated',
  }));
  return { nodes, pods, objects, script: [] };
}

/** The racks (a missing label as `(none)`) the placed members of each group sit on. */
function racksByGroup(state: ClusterState): Map<string, { racks: Set<string>; placed: number }> {
  const out = new Map<string, { racks: Set<string>; placed: number }>();
  for (const { info, charge } of state.pods.values()) {
    const key = podGroupKeyOf(info);
    if (key === undefined || charge.kind === 'none' || info.terminating) continue;
    const entry = out.get(key) ?? { racks: new Set<string>(), placed: 0 };
    entry.racks.add(state.nodes.get(charge.node)?.labels[rack] ?? '(none)');
    entry.placed++;
    out.set(key, entry);
  }
  return out;
}

function run(s: Scenario, groups: readonly GroupModel[]) {
  const problems: string[] = [];
  const lines: string[] = [];
  let final: ClusterState | undefined;
  const check = (state: ClusterState, seq: number) => {
    for (const [key, { racks }] of racksByGroup(state)) {
      const g = Number(key.slice('default/g'.length));
      if (!groups[g]?.topology) continue;
      if (racks.size > 1 || racks.has('(none)'))
        problems.push(`seq ${seq}: ${key} sits on racks ${[...racks].join(', ')}`);
    }
  };
  const inspect = (phase: 'before' | 'after', env: Envelope, state: ClusterState) => {
    final = state;
    if (phase === 'before' && !isDecision(env.event)) check(state, env.seq);
  };
  simulate({
    ...build(s, groups),
    seed: s.seed,
    config: defaultConfig,
    bindLatencyMs: 5,
    bindFailureRate: 0,
    record: (line) => lines.push(line),
    inspect,
  });
  if (final !== undefined) check(final, Number.POSITIVE_INFINITY);
  return { problems, final, log: `${lines.join('\n')}\n` };
}

/**
 * The oracle, independent of the search: identical members of `cpu` each fit a rack of the
 * empty cluster when its nodes' whole-member slots add up to `minMember`.
 */
function someRackHolds(s: Scenario, g: GroupModel): boolean {
  const slots = new Map<string, number>();
  for (const n of s.nodes)
    if (n.rack !== undefined)
      slots.set(n.rack, (slots.get(n.rack) ?? 0) + Math.floor(n.cpu / g.cpu));
  return [...slots.values()].some((v) => v >= g.minMember);
}

describe('topology-constrained gangs over generated runs', () => {
  it('never places a constrained group across racks or on an unlabelled node, and replays', () => {
    let placed = 0;
    fc.assert(
      fc.property(scenario, (s) => {
        const out = run(s, s.groups);
        if (out.final !== undefined) placed += racksByGroup(out.final).size;
        expect(out.problems).toEqual([]);
        expect(replay(parseLog(out.log)).matches).toBe(true);
      }),
      RUNS,
    );
    expect(placed).toBeGreaterThan(50);
  });

  it('places a constrained group alone on the empty cluster whenever some rack holds it', () => {
    let holds = 0;
    fc.assert(
      fc.property(scenario, (s) => {
        const g = { ...(s.groups[0] as GroupModel), topology: true };
        const out = run(s, [g]);
        const placed =
          out.final === undefined ? 0 : (racksByGroup(out.final).get('default/g0')?.placed ?? 0);
        if (someRackHolds(s, g)) {
          holds++;
          expect(placed).toBeGreaterThanOrEqual(g.minMember);
        } else expect(placed).toBe(0);
      }),
      { ...RUNS, examples: fragmented },
    );
    expect(holds).toBeGreaterThan(30);
  });
});
