// A pod that fits nowhere gets kube-scheduler's condition and one event, then binds when a node appears.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BerthRun, startBerth } from './support/berth.ts';
import { useCluster } from './support/cluster.ts';
import { readRecord, recordEvents } from './support/invariants.ts';
import { eventsAbout, podScheduledCondition } from './support/kubectl.ts';
import { kwokNode, namespace, pod, toYaml } from './support/manifests.ts';
import { delay, waitFor } from './support/wait.ts';

const ns = 'unsched';
// 3 cpu fits none of the three 2-cpu nodes; memory and pod count are plentiful, so the only
// reason is cpu, counted once per node.
// 3 cpu exceeds each 2-cpu node's whole allocatable: kube's PostFilter part says preemption
// cannot help (checked against kube-scheduler 1.34 in priority.e2e's msg-too-big).
const expectedMessage =
  '0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.';

describe('an unschedulable pod on a real cluster', () => {
  const cluster = useCluster('unsched');
  let berth: BerthRun;
  let record: string;

  beforeAll(async () => {
    const k = cluster().kubectl;
    await k.apply(
      toYaml([
        namespace(ns),
        ...['n1', 'n2', 'n3'].map((n) => kwokNode(n, { cpu: '2', memory: '4Gi' })),
      ]),
    );
    record = join(cluster().dir, 'unsched.record.jsonl');
    berth = await startBerth(cluster(), {
      name: 'berth',
      args: ['--record', record],
    });
    await k.create(toYaml([pod('huge', ns, { cpu: '3', memory: '1Gi' })]));
  });

  afterAll(async () => {
    await berth?.stop('SIGKILL');
  });

  it('sets PodScheduled=False, reason Unschedulable, with the aggregated message', async () => {
    const k = cluster().kubectl;
    const cond = await waitFor('PodScheduled=False on huge', async () => {
      berth.checkAlive();
      const c = podScheduledCondition(await k.pod(ns, 'huge'));
      return { ok: c?.status === 'False', seen: c };
    });
    expect(cond).toMatchObject({ status: 'False', reason: 'Unschedulable' });
    expect(cond?.message).toBe(expectedMessage);
    expect((await k.pod(ns, 'huge'))?.spec.nodeName).toBeUndefined();
  });

  it('emits exactly one FailedScheduling event although it retries', async () => {
    const k = cluster().kubectl;
    const first = await waitFor(
      'a FailedScheduling event about huge',
      async () => {
        const events = eventsAbout(await k.events(ns), 'huge', 'FailedScheduling');
        return { ok: events.length > 0, seen: events };
      },
      { timeoutMs: 30_000 },
    );
    expect(first[0]?.note).toBe(expectedMessage);
    expect(first[0]?.type).toBe('Warning');
    // A pod leaving a node frees capacity, which NodeResourcesFit's queueing hint says could
    // help: each one makes berth retry after its backoff (1 s, 2 s, 4 s, …). (A label change
    // would not: the pod was rejected for cpu alone.) Keep poking for more than 5 s.
    const started = Date.now();
    for (let i = 0; Date.now() - started < 7_000; i++) {
      const poke = pod(`poke-${i}`, ns, { schedulerName: null, cpu: '10m' });
      (poke.spec as Record<string, unknown>).nodeName = 'n1';
      await k.create(toYaml([poke]));
      await k.run(['delete', 'pod', '-n', ns, `poke-${i}`, '--wait=false']);
      await delay(1_000);
    }
    const events = eventsAbout(await k.events(ns), 'huge', 'FailedScheduling');
    expect(events.map((e) => e.metadata.name)).toEqual(first.map((e) => e.metadata.name));
    expect(podScheduledCondition(await k.pod(ns, 'huge'))?.message).toBe(expectedMessage);
  });

  it('binds the pod to a large node added later, without a restart', async () => {
    const k = cluster().kubectl;
    await k.apply(toYaml([kwokNode('big', { cpu: '8', memory: '16Gi' })]));
    const p = await waitFor('huge bound to big', async () => {
      berth.checkAlive();
      const p = await k.pod(ns, 'huge');
      return { ok: p?.spec.nodeName !== undefined, seen: p?.spec.nodeName ?? p?.status };
    });
    expect(p).toBe('big');
    expect(berth.exitStatus).toBeUndefined();
    await waitFor(
      'a Scheduled event about huge',
      async () => {
        const events = eventsAbout(await k.events(ns), 'huge', 'Scheduled');
        return { ok: events.length === 1, seen: events };
      },
      { timeoutMs: 30_000 },
    );
    const cond = podScheduledCondition(await k.pod(ns, 'huge'));
    expect(cond?.status).toBe('True');
  });

  it('decided Unschedulable several times before the bind (from its record)', async () => {
    const exit = await berth.stop('SIGTERM');
    expect(exit, berth.tail()).toEqual({ code: 0, signal: null });
    const lines = readRecord(record);
    const attempts = recordEvents(lines, 'PodUnschedulable').filter(
      (l) => l.event?.key === `${ns}/huge`,
    );
    expect(attempts.length).toBeGreaterThanOrEqual(3);
    const assumed = recordEvents(lines, 'PodReserved').filter((l) => l.event?.key === `${ns}/huge`);
    expect(assumed.map((l) => l.event?.node)).toEqual(['big']);
    expect(lines.at(-1)?.kind).toBe('digest');
  });
});
