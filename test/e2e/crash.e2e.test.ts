// berth killed with SIGKILL mid-run and restarted fills every slot exactly once, without overcommit.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api } from './support/api.ts';
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
import { type PodJson, podScheduledCondition } from './support/kubectl.ts';
import { kwokNode, namespace, pods, toYaml } from './support/manifests.ts';
import { waitFor } from './support/wait.ts';

const ns = 'crash';
// Every pod asks for 100m and cpu is the only tight resource, so each node holds exactly
// cpu/100m pods: 3 × 80 on the big nodes and 20 on c-full, 260 slots in all, for 265 pods.
// c-full is filled to 18 of 20 before the kill (asymmetric on purpose: the restarted berth
// must learn that it has room for exactly 2 more). With more pods than slots the restarted
// berth fills every slot it believes free, so a charge lost across the restart becomes an
// overcommit for sure, and a charge counted twice leaves a slot empty while pods wait.
const bigNodes = ['c-0', 'c-1', 'c-2'];
const fullNode = 'c-full';
const fillCount = 18;
const spreadCount = 247;
const podCount = fillCount + spreadCount;
const slots = 3 * 80 + 20;

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
        ...bigNodes.map((n) => kwokNode(n, { cpu: '8', memory: '32Gi', pods: 110 })),
        kwokNode(fullNode, { cpu: '2', memory: '8Gi', pods: 110, labels: { role: 'full' } }),
      ]),
    );
    await k.create(
      toYaml(
        pods('f', ns, fillCount, { cpu: '100m', memory: '64Mi', nodeSelector: { role: 'full' } }),
      ),
    );
  });

  afterAll(async () => {
    await first?.stop('SIGKILL');
    await second?.stop('SIGKILL');
  });

  it('is killed with SIGKILL while pods are still being bound, c-full nearly full', async () => {
    const k = cluster().kubectl;
    // A low client rate keeps binds in flight long enough to kill berth among them.
    first = await startBerth(cluster(), {
      name: 'berth-1',
      args: ['--record', records.first, '--qps', '20', '--burst', '20'],
    });
    const filled = await waitFor(
      `the ${fillCount} f-* pods bound to ${fullNode}`,
      async () => {
        first.checkAlive();
        const fs = (await k.pods(ns)).filter((p) => p.spec.nodeName === fullNode);
        return { ok: fs.length === fillCount, seen: fs.length };
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    );
    expect(filled).toBe(fillCount);
    // All at once through the API (kubectl create would trickle them in over many seconds).
    const api = new Api(cluster().kubeconfig);
    try {
      await Promise.all(
        pods('p', ns, spreadCount, { cpu: '100m', memory: '64Mi' }).map((p) =>
          api.createPod(ns, p),
        ),
      );
    } finally {
      api.close();
    }
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
    expect(boundAtKill.size).toBeLessThan(slots);
    const onFull = [...boundAtKill.values()].filter((n) => n === fullNode).length;
    expect(onFull).toBeGreaterThanOrEqual(fillCount);
    expect(onFull).toBeLessThan(20);
  });

  it('fills every slot once restarted, and marks the pods left over Unschedulable', async () => {
    const k = cluster().kubectl;
    second = await startBerth(cluster(), {
      name: 'berth-2',
      args: ['--record', records.second],
    });
    const seen = await waitFor(
      `${slots} pods bound and the other ${podCount - slots} marked Unschedulable`,
      async () => {
        second.checkAlive();
        const ps = await k.pods(ns);
        const left = ps.filter((p) => p.spec.nodeName === undefined);
        const undecided = left.filter((p) => podScheduledCondition(p)?.status !== 'False');
        return {
          ok: ps.length === podCount && undecided.length === 0,
          seen: {
            bound: ps.length - left.length,
            undecided: undecided.map((p) => p.metadata.name),
          },
        };
      },
      { timeoutMs: 180_000 },
    );
    expect(seen.bound).toBe(slots);
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
    // The restarted berth bound exactly as many pods as there were slots left.
    expect(recordEvents(secondRecord, 'BindSucceeded')).toHaveLength(slots - boundAtKill.size);
    expect(secondRecord.at(-1)?.kind).toBe('digest');
  });

  it('emitted at most one Scheduled event per pod', async () => {
    expect(repeatedScheduledEvents(await cluster().kubectl.events(ns))).toEqual({});
  });

  it('puts no node over its allocatable cpu, memory or pod count', async () => {
    expect(await clusterOvercommits(cluster().kubectl)).toEqual([]);
  });

  it('used every slot: each node holds exactly cpu / 100m pods', async () => {
    const perNode = new Map<string, number>();
    for (const p of await cluster().kubectl.pods(ns)) {
      if (p.spec.nodeName === undefined) continue;
      const n = p.spec.nodeName;
      perNode.set(n, (perNode.get(n) ?? 0) + 1);
    }
    expect(Object.fromEntries(perNode)).toEqual({
      ...Object.fromEntries(bigNodes.map((n) => [n, 80])),
      [fullNode]: 20,
    });
  });
});
