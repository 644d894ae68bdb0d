// berth killed with SIGKILL mid-run and restarted binds every pod exactly once, without overcommit.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BerthRun, startBerth } from './support/berth.ts';
import { useCluster } from './support/cluster.ts';
import {
  clusterOvercommits,
  doubleBindSuccesses,
  type RecordLine,
  readRecord,
  recordEvents,
  repeatedScheduledEvents,
} from './support/invariants.ts';
import type { PodJson } from './support/kubectl.ts';
import { kwokNode, namespace, pods, toYaml } from './support/manifests.ts';
import { waitFor } from './support/wait.ts';

const ns = 'crash';
const podCount = 300;
// 4 nodes × 80 pods × 8 cpu: room for all 300 pods of 100m, but not much more
// (93.75 % of cpu and of pod slots), so a lost or doubled charge shows.
const nodeNames = ['c-0', 'c-1', 'c-2', 'c-3'];

const keyOf = (p: PodJson) => `${p.metadata.namespace}/${p.metadata.name}`;

describe('berth killed with SIGKILL and restarted', () => {
  const cluster = useCluster('crash');
  let first: BerthRun;
  let second: BerthRun;
  const records = { first: '', second: '' };
  /** Pods bound when the first berth was dead (nothing can change them after that). */
  let boundAtKill = new Map<string, string>();

  beforeAll(async () => {
    const k = cluster().kubectl;
    records.first = join(cluster().dir, 'crash-1.record.jsonl');
    records.second = join(cluster().dir, 'crash-2.record.jsonl');
    await k.apply(
      toYaml([
        namespace(ns),
        ...nodeNames.map((n) => kwokNode(n, { cpu: '8', memory: '32Gi', pods: 80 })),
      ]),
    );
    await k.create(toYaml(pods('p', ns, podCount, { cpu: '100m', memory: '64Mi' })));
  });

  afterAll(async () => {
    await first?.stop('SIGKILL');
    await second?.stop('SIGKILL');
  });

  it('is killed with SIGKILL while pods are still being bound', async () => {
    const k = cluster().kubectl;
    // A low client rate keeps binds in flight long enough to kill berth among them.
    first = await startBerth(cluster().kubeconfig, {
      dir: cluster().dir,
      name: 'berth-1',
      args: ['--record', records.first, '--qps', '20', '--burst', '20'],
    });
    const bound = await waitFor(
      'at least 60 pods bound',
      async () => {
        first.checkAlive();
        const n = (await k.pods(ns)).filter((p) => p.spec.nodeName !== undefined).length;
        return { ok: n >= 60, seen: n };
      },
      { timeoutMs: 120_000, intervalMs: 200 },
    );
    const exit = await first.stop('SIGKILL');
    expect(exit.signal).toBe('SIGKILL');
    boundAtKill = new Map(
      (await k.pods(ns)).filter((p) => p.spec.nodeName).map((p) => [keyOf(p), p.spec.nodeName!]),
    );
    process.stderr.write(
      `[e2e] crash: killed berth at ${bound} bound; ${boundAtKill.size} bound once it was dead\n`,
    );
    expect(boundAtKill.size).toBeGreaterThanOrEqual(60);
    expect(boundAtKill.size).toBeLessThan(podCount);
  });

  it('binds every remaining pod once restarted', async () => {
    const k = cluster().kubectl;
    second = await startBerth(cluster().kubeconfig, {
      dir: cluster().dir,
      name: 'berth-2',
      args: ['--record', records.second],
    });
    const unbound = await waitFor(
      `all ${podCount} pods bound`,
      async () => {
        second.checkAlive();
        const ps = await k.pods(ns);
        const left = ps.filter((p) => p.spec.nodeName === undefined).map((p) => p.metadata.name);
        return { ok: ps.length === podCount && left.length === 0, seen: left };
      },
      { timeoutMs: 180_000 },
    );
    expect(unbound).toEqual([]);
    const exit = await second.stop('SIGTERM');
    expect(exit, second.tail()).toEqual({ code: 0, signal: null });
  });

  it('left pods bound before the crash where they were', async () => {
    const now = new Map((await cluster().kubectl.pods(ns)).map((p) => [keyOf(p), p.spec.nodeName]));
    for (const [key, node] of boundAtKill) expect(now.get(key), key).toBe(node);
  });

  it('never reported a second successful bind for any pod', () => {
    const firstRecord = readRecord(records.first);
    const secondRecord = readRecord(records.second);
    expect(doubleBindSuccesses([firstRecord, secondRecord])).toEqual({});
    const rebound = recordEvents(secondRecord, 'BindSucceeded')
      .map((l: RecordLine) => String(l.event?.key))
      .filter((key) => boundAtKill.has(key));
    expect(rebound).toEqual([]);
    // The restarted berth bound exactly the pods that were still unbound.
    expect(recordEvents(secondRecord, 'BindSucceeded')).toHaveLength(podCount - boundAtKill.size);
    expect(secondRecord.at(-1)?.kind).toBe('digest');
  });

  it('emitted at most one Scheduled event per pod', async () => {
    expect(repeatedScheduledEvents(await cluster().kubectl.events(ns))).toEqual({});
  });

  it('puts no node over its allocatable cpu, memory or pod count', async () => {
    expect(await clusterOvercommits(cluster().kubectl)).toEqual([]);
  });
});
