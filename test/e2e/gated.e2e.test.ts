// A pod with scheduling gates waits unbound, untried and uncharged; it is bound once its gates are removed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BerthRun, type LogEntry, startBerth } from './support/berth.ts';
import { useCluster } from './support/cluster.ts';
import { clusterOvercommits } from './support/invariants.ts';
import { eventsAbout, type Kubectl, podScheduledCondition } from './support/kubectl.ts';
import { kwokNode, namespace, pod, toYaml } from './support/manifests.ts';
import { delay, waitFor } from './support/wait.ts';

const ns = 'gated';
// Both pods need the whole of a 1-cpu `slot` node: while `gated` waits, `free` must get g-1.
const slot = { cpu: '1', memory: '256Mi', nodeSelector: { role: 'slot' } };

/** Log lines of berth that show it tried (or failed) to bind or schedule the gated pod. */
function triesOnGated(logs: LogEntry[]): LogEntry[] {
  const attempt = /bind|assum|unschedulable|conflict|retry|backoff/i;
  return logs.filter(
    (e) =>
      e.msg === 'bind failed' ||
      (JSON.stringify(e).includes(`${ns}/gated`) && attempt.test(String(e.msg))),
  );
}

/** Removes the gated pod's gates at JSON-pointer `path` (gates can only be removed). */
async function removeGates(k: Kubectl, path: string): Promise<void> {
  await k.run([
    'patch',
    'pod',
    '-n',
    ns,
    'gated',
    '--type=json',
    '-p',
    JSON.stringify([{ op: 'remove', path }]),
  ]);
}

describe('a pod with scheduling gates', () => {
  const cluster = useCluster('gated');
  let berth: BerthRun;

  beforeAll(async () => {
    const k = cluster().kubectl;
    await k.apply(
      toYaml([
        namespace(ns),
        kwokNode('g-1', { cpu: '1', memory: '4Gi', labels: { role: 'slot' } }),
        kwokNode('other', { cpu: '4', memory: '8Gi' }),
      ]),
    );
    berth = await startBerth(cluster(), { name: 'berth' });
    await k.create(
      toYaml([
        pod('gated', ns, { ...slot, schedulingGates: ['example.com/hold', 'example.com/b'] }),
      ]),
    );
    // Created after the gated pod, so a scheduler that takes gated pods would see it first.
    await k.create(toYaml([pod('free', ns, slot), pod('control', ns)]));
  });

  afterAll(async () => {
    await berth?.stop('SIGKILL');
  });

  it('takes no capacity: a later pod gets the only node both fit on', async () => {
    const k = cluster().kubectl;
    const node = await waitFor('free bound', async () => {
      berth.checkAlive();
      const p = await k.pod(ns, 'free');
      return { ok: p?.spec.nodeName !== undefined, seen: p?.spec.nodeName ?? p?.status };
    });
    expect(node).toBe('g-1');
    expect((await k.pod(ns, 'control'))?.spec.nodeName).toBe('other');
  });

  it('stays Pending and unbound, SchedulingGated, with no bind attempt, for 5 s', async () => {
    const k = cluster().kubectl;
    await delay(5_000);
    const p = await k.pod(ns, 'gated');
    expect(p?.spec.nodeName).toBeUndefined();
    expect(p?.status?.phase).toBe('Pending');
    // Set by kube-apiserver at creation; a scheduler must leave it alone while gated.
    expect(podScheduledCondition(p)).toMatchObject({ status: 'False', reason: 'SchedulingGated' });
    expect(triesOnGated(berth.logs())).toEqual([]);
    const events = (await k.events(ns)).filter((e) => e.regarding?.name === 'gated');
    expect(events).toEqual([]);
    expect(berth.exitStatus, berth.tail()).toBeUndefined();
  });

  it('is still waiting after one of its two gates is removed', async () => {
    const k = cluster().kubectl;
    await removeGates(k, '/spec/schedulingGates/0');
    await delay(2_000);
    const p = await k.pod(ns, 'gated');
    expect(p?.spec.schedulingGates).toEqual([{ name: 'example.com/b' }]);
    expect(p?.spec.nodeName).toBeUndefined();
    expect(triesOnGated(berth.logs())).toEqual([]);
  });

  it('is bound once its last gate is removed, to the node added for it', async () => {
    const k = cluster().kubectl;
    await k.apply(toYaml([kwokNode('g-2', { cpu: '1', memory: '4Gi', labels: { role: 'slot' } })]));
    await removeGates(k, '/spec/schedulingGates');
    const node = await waitFor(
      'gated bound',
      async () => {
        berth.checkAlive();
        const p = await k.pod(ns, 'gated');
        return { ok: p?.spec.nodeName !== undefined, seen: p?.spec.nodeName ?? p?.status };
      },
      { timeoutMs: 30_000 },
    );
    expect(node).toBe('g-2');
    const scheduled = await waitFor(
      'a Scheduled event about gated',
      async () => {
        const events = eventsAbout(await k.events(ns), 'gated', 'Scheduled');
        return { ok: events.length > 0, seen: events };
      },
      { timeoutMs: 30_000 },
    );
    expect(scheduled).toHaveLength(1);
    expect(berth.logs().filter((e) => e.msg === 'bind failed')).toEqual([]);
    expect(eventsAbout(await k.events(ns), 'gated', 'FailedScheduling')).toEqual([]);
  });

  it('puts no node over capacity, and stops on SIGTERM', async () => {
    expect(await clusterOvercommits(cluster().kubectl)).toEqual([]);
    const exit = await berth.stop('SIGTERM');
    expect(exit, berth.tail()).toEqual({ code: 0, signal: null });
  });
});
