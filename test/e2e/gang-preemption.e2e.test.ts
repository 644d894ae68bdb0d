// Gang preemption on a real cluster: a high-priority PodGroup evicts single low-priority pods and a lower-priority group (whole), then is bound whole.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api } from './support/api.ts';
import { type BerthRun, berthCommand, startBerth } from './support/berth.ts';
import { useCluster } from './support/cluster.ts';
import { readRecord, recordEvents } from './support/invariants.ts';
import type { PodJson } from './support/kubectl.ts';
import { type Manifest, namespace, toYaml } from './support/manifests.ts';
import { applyPodGroupCrd } from './support/pod-group-crd.ts';
import {
  groupPods,
  longestPartialMs,
  podGroup,
  poolNodes,
  poolPod,
  sampleUntilBound,
} from './support/scenario-gang.ts';
import { priorityClasses } from './support/scenario-priority.ts';
import { waitFor } from './support/wait.ts';

const ns = 'gang-preempt';
const pool = 'gp';

function log(line: string): void {
  process.stderr.write(`[e2e] gang-preemption: ${line}\n`);
}

/** Pod `name` of PriorityClass `priorityClass` (1500m: one per 2-cpu node), in group `group` or bound to `node`. */
function member(
  name: string,
  priorityClass: string,
  o: { group?: string; node?: string },
): Manifest {
  const m = poolPod(ns, name, {
    pool,
    cpu: '1500m',
    ...(o.group === undefined ? {} : { group: o.group }),
  });
  const spec = m.spec as Record<string, unknown>;
  spec.priorityClassName = priorityClass;
  if (o.node !== undefined) spec.nodeName = o.node;
  return m;
}

const names = (ps: PodJson[]) => ps.map((p) => p.metadata.name).sort();

describe('gang preemption: a high-priority group evicts single pods and a lower-priority group whole', () => {
  const c = useCluster('gang-preempt');
  let api: Api;
  let berth: BerthRun;
  let record: string;

  beforeAll(async () => {
    api = new Api(c().kubeconfig);
    await applyPodGroupCrd(c().kubectl);
    await c().kubectl.apply(
      toYaml([namespace(ns), ...priorityClasses, ...poolNodes(pool, 4, '2')]),
    );
    record = join(c().dir, 'gang-preemption.record.jsonl');
    // Under the chart's rendered RBAC (startBerth's default ServiceAccount).
    berth = await startBerth(c(), { name: 'berth-gang-preempt', args: ['--record', record] });
  });

  afterAll(async () => {
    await berth?.stop('SIGKILL');
    api?.close();
  });

  it('the low-priority pods run on gp-0 and gp-1, the mid-priority group is placed whole on gp-2 and gp-3', async () => {
    const k = c().kubectl;
    await k.create(
      toYaml([member('low-0', 'low', { node: 'gp-0' }), member('low-1', 'low', { node: 'gp-1' })]),
    );
    await k.apply(toYaml([podGroup(ns, 'mid', 2)]));
    await k.create(toYaml([0, 1].map((i) => member(`mid-${i}`, 'mid', { group: 'mid' }))));
    const samples = await sampleUntilBound(api, ns, 'mid', 2, {
      checkAlive: () => berth.checkAlive(),
    });
    expect(samples.at(-1)?.bound).toBe(2);
    const mids = await groupPods(api, ns, 'mid');
    expect(mids.map((p) => p.spec.nodeName).sort()).toEqual(['gp-2', 'gp-3']);
  });

  it('a 3-member high-priority group: evicts the mid group whole and one low pod, then is bound whole on their nodes', async () => {
    const k = c().kubectl;
    await k.apply(toYaml([podGroup(ns, 'high', 3)]));
    await k.create(toYaml([0, 1, 2].map((i) => member(`high-${i}`, 'high', { group: 'high' }))));
    const samples = await sampleUntilBound(api, ns, 'high', 3, {
      timeoutMs: 90_000,
      checkAlive: () => berth.checkAlive(),
    });
    const partial = longestPartialMs(samples, 3);
    log(`high bound after ${samples.length} polls; longest partial placement seen: ${partial} ms`);
    expect(samples.at(-1)?.bound).toBe(3);
    expect(partial).toBeLessThan(1_000);
    // The mid group was taken whole: both members gone, though one node of it would not do.
    const left = await waitFor('the victims gone', async () => {
      const all = (await c().kubectl.pods(ns)).filter(
        (p) => p.metadata.deletionTimestamp === undefined,
      );
      const mids = all.filter((p) => p.metadata.name.startsWith('mid-'));
      return { ok: mids.length === 0, seen: all };
    });
    const lows = left.filter((p) => p.metadata.name.startsWith('low-'));
    // The fewest victims: one low pod is spared, on its node.
    expect(lows).toHaveLength(1);
    const spared = lows[0] as PodJson;
    const highs = await groupPods(api, ns, 'high');
    const nodes = highs.map((p) => p.spec.nodeName).sort();
    expect(nodes).toEqual(
      ['gp-0', 'gp-1', 'gp-2', 'gp-3'].filter((n) => n !== spared.spec.nodeName),
    );
    log(
      `spared ${spared.metadata.name} on ${spared.spec.nodeName}; high on ${nodes.join(', ')}; left: ${names(left)}`,
    );
  });

  it("berth's record: every high member nominated, three victims evicted, and replay reproduces every decision", async () => {
    const lines = readRecord(record);
    const nominated = recordEvents(lines, 'PodNominated').map((l) => String(l.event?.key));
    expect(nominated.filter((k) => k.startsWith(`${ns}/high-`)).sort()).toEqual(
      [0, 1, 2].map((i) => `${ns}/high-${i}`),
    );
    const victims = recordEvents(lines, 'VictimPreempted').map((l) =>
      String((l.event?.victim as { key?: string } | undefined)?.key),
    );
    expect(victims.filter((v) => v.startsWith(`${ns}/mid-`)).sort()).toEqual([
      `${ns}/mid-0`,
      `${ns}/mid-1`,
    ]);
    expect(victims.filter((v) => v.startsWith(`${ns}/low-`))).toHaveLength(1);
    expect(recordEvents(lines, 'PreemptionFailed')).toEqual([]);
    await berth.stop('SIGTERM');
    const r = await berthCommand(['replay', record, '--json', '--allow-unsealed']);
    expect(r.code, r.stderr).toBe(0);
    const summary = JSON.parse(r.stdout) as { decisionDigest: string };
    expect(summary.decisionDigest).toBe(readRecord(record).at(-1)?.digest);
  });
});
