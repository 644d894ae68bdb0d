// Properties of whole runs over generated clusters and event scripts: capacity is never
// overcommitted, every placement passes every filter, no pod is lost, priority order holds,
// and replaying the recorded log reproduces every decision.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { NodeObject, PodObject, Taint, Toleration } from '../../src/cluster/objects.ts';
import type { ClusterState, NodeInfo } from '../../src/cluster/types.ts';
import { parseLog } from '../../src/events/reader.ts';
import type { Envelope } from '../../src/events/types.ts';
import { defaultProfile } from '../../src/plugins/registry.ts';
import { defaultConfig } from '../../src/core/config.ts';
import { replay } from '../../src/runtime/replay.ts';
import { type ScriptedChange, simulate } from '../../src/runtime/simulate.ts';

const taint: fc.Arbitrary<Taint> = fc.record({
  key: fc.constantFrom('dedicated', 'gpu'),
  value: fc.constantFrom('a', 'b'),
  effect: fc.constantFrom('NoSchedule', 'NoExecute', 'PreferNoSchedule'),
});

const toleration: fc.Arbitrary<Toleration> = fc.record({
  key: fc.constantFrom('dedicated', 'gpu'),
  operator: fc.constantFrom('Equal', 'Exists'),
  value: fc.constantFrom('a', 'b'),
});

const node = (i: number): fc.Arbitrary<NodeObject> =>
  fc
    .record({
      cpu: fc.integer({ min: 1, max: 8 }),
      memGi: fc.integer({ min: 1, max: 16 }),
      pods: fc.integer({ min: 1, max: 12 }),
      gpus: fc.constantFrom(0, 0, 1, 2),
      zone: fc.constantFrom('a', 'b'),
      taints: fc.array(taint, { maxLength: 1 }),
      cordoned: fc.constantFrom(false, false, false, false, true),
    })
    .map((n) => ({
      metadata: { name: `n${i}`, labels: { zone: n.zone } },
      spec: { taints: n.taints, unschedulable: n.cordoned },
      status: {
        allocatable: {
          cpu: `${n.cpu}`,
          memory: `${n.memGi}Gi`,
          pods: `${n.pods}`,
          ...(n.gpus > 0 ? { 'nvidia.com/gpu': `${n.gpus}` } : {}),
        },
      },
    }));

const pod = (i: number): fc.Arbitrary<PodObject> =>
  fc
    .record({
      milli: fc.integer({ min: 0, max: 3000 }),
      memMi: fc.integer({ min: 0, max: 4096 }),
      gpu: fc.constantFrom(0, 0, 0, 1),
      priority: fc.integer({ min: 0, max: 3 }),
      zone: fc.option(fc.constantFrom('a', 'b'), { freq: 3 }),
      tolerations: fc.array(toleration, { maxLength: 2 }),
      sidecar: fc.boolean(),
    })
    .map((p) => ({
      metadata: {
        name: `p${i}`,
        namespace: 'default',
        creationTimestamp: `2026-01-01T00:00:${String(i % 60).padStart(2, '0')}Z`,
      },
      spec: {
        schedulerName: 'berth',
        priority: p.priority,
        ...(p.zone === null ? {} : { nodeSelector: { zone: p.zone } }),
        tolerations: p.tolerations,
        ...(p.sidecar
          ? {
              initContainers: [
                { name: 's', restartPolicy: 'Always', resources: { requests: { cpu: '100m' } } },
              ],
            }
          : {}),
        containers: [
          {
            name: 'c',
            resources: {
              requests: {
                cpu: `${p.milli}m`,
                memory: `${p.memMi}Mi`,
                ...(p.gpu > 0 ? { 'nvidia.com/gpu': '1' } : {}),
              },
            },
          },
        ],
      },
    }));

const scenario = fc
  .record({ nodeCount: fc.integer({ min: 1, max: 6 }), podCount: fc.integer({ min: 1, max: 24 }) })
  .chain(({ nodeCount, podCount }) =>
    fc.record({
      nodes: fc.tuple(...Array.from({ length: nodeCount }, (_, i) => node(i))),
      pods: fc.tuple(...Array.from({ length: podCount }, (_, i) => pod(i))),
      lateNodes: fc.array(node(100), { maxLength: 1 }),
      deletions: fc.array(fc.integer({ min: 0, max: podCount - 1 }), { maxLength: 3 }),
      seed: fc.integer({ min: 0, max: 1000 }),
      bindFailureRate: fc.constantFrom(0, 0, 0.2, 0.5),
      bindLatencyMs: fc.integer({ min: 0, max: 20 }),
    }),
  );

type Scenario = typeof scenario extends fc.Arbitrary<infer T> ? T : never;

function scriptOf(s: Scenario): ScriptedChange[] {
  return [
    ...s.lateNodes.map((n, i) => ({
      at: 3_000 + i,
      addNode: { ...n, metadata: { ...n.metadata, name: `late${i}` } },
    })),
    ...s.deletions.map((d, i) => ({ at: 2 + i * 7, deletePod: `default/p${d}` })),
  ];
}

function overcommitted(n: NodeInfo): string | undefined {
  const a = n.allocatable;
  const r = n.requested;
  if (r.milliCPU > a.milliCPU) return `cpu ${r.milliCPU} > ${a.milliCPU}`;
  if (r.memory > a.memory) return `memory ${r.memory} > ${a.memory}`;
  if (n.pods.size > a.pods) return `pods ${n.pods.size} > ${a.pods}`;
  for (const [name, v] of Object.entries(r.scalar))
    if (v > (a.scalar[name] ?? 0)) return `${name} ${v} > ${a.scalar[name] ?? 0}`;
  return undefined;
}

function run(
  s: Scenario,
  inspect?: (phase: 'before' | 'after', env: Envelope, state: ClusterState) => void,
) {
  const lines: string[] = [];
  const summary = simulate({
    nodes: s.nodes,
    pods: s.pods,
    seed: s.seed,
    config: defaultConfig,
    bindLatencyMs: s.bindLatencyMs,
    bindFailureRate: s.bindFailureRate,
    script: scriptOf(s),
    record: (l) => lines.push(l),
    ...(inspect === undefined ? {} : { inspect }),
  });
  return { summary, log: `${lines.join('\n')}\n` };
}

const filters = defaultProfile().filter;
const runs = { numRuns: 150 };

describe('scheduling runs over generated clusters', () => {
  it('never overcommits a node and only places pods where every filter passes', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        run(s, (phase, env, state) => {
          if (phase === 'before' && env.event.type === 'PodAssumed') {
            const { key, node: nodeName } = env.event;
            const podInfo = state.pods.get(key)?.info;
            const nodeInfo = state.nodes.get(nodeName);
            expect(podInfo && nodeInfo, `${key} and ${nodeName} exist`).toBeTruthy();
            for (const f of filters) {
              expect(
                f.filter(podInfo!, nodeInfo!, new Map()).code,
                `${f.name} for ${key} on ${nodeName}`,
              ).toBe('Success');
            }
          }
          if (phase === 'after') {
            for (const n of state.nodes.values())
              expect(overcommitted(n), `node ${n.name} after seq ${env.seq}`).toBeUndefined();
          }
        });
      }),
      runs,
    );
  });

  it('accounts for every pod: bound, or pending with a reason', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const { summary } = run(s);
        const deleted = new Set(s.deletions.map((d) => `default/p${d}`));
        for (let i = 0; i < s.pods.length; i++) {
          const key = `default/p${i}`;
          if (deleted.has(key)) {
            expect(
              summary.placements[key] === undefined || summary.pending[key] === undefined,
            ).toBe(true);
            continue;
          }
          const placed = summary.placements[key] !== undefined;
          const reason = summary.pending[key];
          expect(
            placed !== (reason !== undefined),
            `${key} is exactly one of bound or pending`,
          ).toBe(true);
          if (!placed) expect(reason?.length ?? 0).toBeGreaterThan(0);
        }
      }),
      runs,
    );
  });

  it('gives scarce capacity to higher priority first among pods queued together', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const first = new Map<string, number>();
        run({ ...s, deletions: [], lateNodes: [], bindFailureRate: 0 }, (phase, env) => {
          const e = env.event;
          if (
            phase === 'before' &&
            (e.type === 'PodAssumed' || e.type === 'PodUnschedulable') &&
            !first.has(e.key)
          ) {
            first.set(e.key, env.seq);
          }
        });
        const priority = (i: number) => s.pods[i]?.spec.priority ?? 0;
        for (let h = 0; h < s.pods.length; h++) {
          for (let l = 0; l < s.pods.length; l++) {
            if (priority(h) <= priority(l)) continue;
            const hs = first.get(`default/p${h}`);
            const ls = first.get(`default/p${l}`);
            expect(
              hs !== undefined && ls !== undefined && hs < ls,
              `p${h} (prio ${priority(h)}) before p${l}`,
            ).toBe(true);
          }
        }
      }),
      runs,
    );
  });

  it('replays every recorded log to the same decisions and digest', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const { summary, log } = run(s);
        const result = replay(parseLog(log));
        expect(result.divergence).toBeUndefined();
        expect(result.matches).toBe(true);
        expect(result.summary.decisionDigest).toBe(summary.decisionDigest);
        expect(result.summary.placements).toEqual(summary.placements);
        expect(result.summary.pending).toEqual(summary.pending);
      }),
      runs,
    );
  });

  it('reports the first decision that differs from a tampered log', () => {
    const one: Scenario = {
      nodes: [
        {
          metadata: { name: 'n0' },
          status: { allocatable: { cpu: '1', memory: '1Gi', pods: '5' } },
        },
      ],
      pods: [
        {
          metadata: { name: 'p0', namespace: 'default' },
          spec: { schedulerName: 'berth', containers: [{}] },
        },
      ],
      lateNodes: [],
      deletions: [],
      seed: 1,
      bindFailureRate: 0,
      bindLatencyMs: 1,
    };
    const { log } = run(one);
    const tampered = log.replace(
      '"type":"PodAssumed","key":"default/p0","node":"n0"',
      '"type":"PodAssumed","key":"default/p0","node":"n9"',
    );
    expect(tampered).not.toBe(log);
    const result = replay(parseLog(tampered));
    expect(result.matches).toBe(false);
    expect(result.divergence).toMatchObject({
      expected: 'assumed default/p0 n9',
      actual: 'assumed default/p0 n0',
    });
  });
});
