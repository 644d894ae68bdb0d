import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseKubeRelease, releaseAtLeast } from '../../src/model/kube-release.ts';
import { Api } from './support/api.ts';
import { type BerthRun, berthCommand, startBerth } from './support/berth.ts';
import { useCluster } from './support/cluster.ts';
import { readRecord, recordEvents } from './support/invariants.ts';
import { startKubeScheduler } from './support/kube-scheduler.ts';
import type { EventJson } from './support/kubectl.ts';
import { namespace, toYaml } from './support/manifests.ts';
import {
  fillers,
  guardedBudget,
  guardedStatus,
  messagePodCases,
  messagePods,
  oldestFiller,
  type PodConditionJson,
  PodRecorder,
  type PriorityPodJson,
  preemptors,
  priorityClasses,
  priorityNodes,
  type WatchedPod,
} from './support/scenario-priority.ts';
import { delay, GiveUp, waitFor } from './support/wait.ts';

const kubeNs = 'prio-kube';
const berthNs = 'prio-berth';
const kubeName = 'default-scheduler';
const berthName = 'berth';

type Event = EventJson & { related?: { kind?: string; name?: string; uid?: string } };

/** Everything one scheduler's run of the scenario left behind. */
interface Outcome {
  scheduler: string;
  namespace: string;
  /** The pods at the end of the run. */
  pods: PriorityPodJson[];
  /** What the pod watch saw during the run (victims included, though deleted). */
  watched: Map<string, WatchedPod>;
  events: Event[];
}

/** A running scheduler under test. */
interface Runner {
  checkAlive(): void;
}

/** One preemptor's preemption, as compared between the schedulers. */
interface Preemption {
  node: string | undefined;
  nominated: string[];
  victims: { name: string; node: string | undefined; priority: number | undefined }[];
  firstMessage: string | undefined;
}

const fillerNames = fillers('x', 'x').map((m) => (m.metadata as { name: string }).name);
const isFiller = (name: string) => name === 'pdb-b-old' || fillerNames.includes(name);

/** Preemptor `name`'s node, nominations, message, and the fillers deleted from its pool. */
function preemption(o: Outcome, name: string, pool: string): Preemption {
  const w = o.watched.get(name);
  const victims = [...o.watched.entries()]
    .filter(([n, v]) => isFiller(n) && v.deleted && v.nodeName?.startsWith(`${pool}-`))
    .map(([n, v]) => ({ name: n, node: v.nodeName, priority: v.priority }))
    .sort((a, b) => (a.name < b.name ? -1 : 1));
  return {
    node: o.pods.find((p) => p.metadata.name === name)?.spec.nodeName,
    nominated: w?.nominated ?? [],
    victims,
    firstMessage: w?.unschedulableMessages[0],
  };
}

/** The condition with its timestamp left out and the scheduler's name replaced by `<scheduler>`. */
function comparableCondition(c: PodConditionJson | undefined, scheduler: string) {
  if (c === undefined) return undefined;
  const { lastTransitionTime: _, ...rest } = c;
  return { ...rest, message: rest.message?.replace(`${scheduler}:`, '<scheduler>:') };
}

/** A victim's `Preempted` Events, with the preemptor's uid in the note replaced by `<uid>`. */
function preemptedEvents(o: Outcome, victim: string) {
  const preemptorUids = ['preemptor-pick', 'preemptor-pdb'].map((n) => o.watched.get(n)?.uid);
  return o.events
    .filter((e) => e.reason === 'Preempted' && e.regarding?.name === victim)
    .map((e) => ({
      reason: e.reason,
      type: e.type,
      action: e.action,
      regardingKind: e.regarding?.kind,
      related: e.related?.name,
      note: preemptorUids.reduce(
        (note, uid) => (uid === undefined ? note : note?.replace(uid, '<uid>')),
        e.note,
      ),
    }));
}

function log(line: string): void {
  process.stderr.write(`[e2e] priority: ${line}\n`);
}

describe('priority preemption: berth against kube-scheduler 1.34 on the same scenario', () => {
  const c = useCluster('priority');
  let api: Api;
  let kube: Outcome | undefined;
  let berth: Outcome | undefined;
  let berthRun: BerthRun | undefined;
  const record = () => join(c().dir, 'priority.record.jsonl');

  beforeAll(async () => {
    api = new Api(c().kubeconfig);
    await c().kubectl.apply(
      toYaml([...priorityClasses, namespace(kubeNs), namespace(berthNs), ...priorityNodes]),
    );
  });

  afterAll(async () => {
    await berthRun?.stop('SIGKILL');
    api?.close();
  });

  async function listPods(ns: string): Promise<PriorityPodJson[]> {
    return (await api.ok<{ items: PriorityPodJson[] }>('GET', `/api/v1/namespaces/${ns}/pods`))
      .items;
  }

  /** Waits until the pods `names` of `ns` run (kwok) with a status.startTime. */
  async function running(ns: string, names: string[]): Promise<PriorityPodJson[]> {
    const seen = await waitFor(`${ns}: ${names.length} pods Running`, async () => {
      const ps = (await listPods(ns)).filter((p) => names.includes(p.metadata.name));
      const notYet = ps.filter((p) => p.status?.phase !== 'Running' || !p.status.startTime);
      return {
        ok: ps.length === names.length && notYet.length === 0,
        seen: { notYet: notYet.map((p) => p.metadata.name), ps },
      };
    });
    return seen.ps;
  }

  /**
   * Runs scenarios 1–3 in `ns` for `sched`, started by `start` once the fillers run: the two
   * preemptors (waits until both are bound), then the message pods (waits until each is
   * PodScheduled=False), then collects pods, events and what the watch saw.
   */
  async function runScenario(
    ns: string,
    sched: string,
    start: () => Promise<Runner>,
  ): Promise<Outcome> {
    const k = c().kubectl;
    // pdb-b-old first, so that its start time is a whole second before the other fillers'.
    await k.create(toYaml([oldestFiller(ns, sched)]));
    const [old] = await running(ns, ['pdb-b-old']);
    await delay(1_100);
    const rest = fillers(ns, sched);
    await k.create(toYaml([...rest, guardedBudget(ns)]));
    await k.run([
      'patch',
      'pdb',
      'guarded',
      '-n',
      ns,
      '--subresource=status',
      '--type=merge',
      '-p',
      JSON.stringify(guardedStatus),
    ]);
    const started = await running(
      ns,
      rest.map((m) => (m.metadata as { name: string }).name),
    );
    for (const p of started)
      expect(Date.parse(p.status?.startTime ?? ''), p.metadata.name).toBeGreaterThan(
        Date.parse(old?.status?.startTime ?? ''),
      );
    const pdb = await k.getJson<{ status?: Record<string, unknown> }>(['pdb', 'guarded', '-n', ns]);
    expect(pdb.status).toMatchObject({ disruptionsAllowed: 0 });

    const recorder = new PodRecorder(api, ns);
    await recorder.start();
    const runner = await start();
    try {
      await k.create(toYaml(preemptors(ns, sched)));
      await waitFor(
        `${ns}: both preemptors bound`,
        async () => {
          runner.checkAlive();
          const ps = (await listPods(ns)).filter((p) => p.metadata.name.startsWith('preemptor-'));
          return {
            ok: ps.length === 2 && ps.every((p) => p.spec.nodeName !== undefined),
            seen: ps.map((p) => ({ name: p.metadata.name, node: p.spec.nodeName, st: p.status })),
          };
        },
        { timeoutMs: 60_000 },
      );
      await k.create(toYaml(messagePods(ns, sched)));
      await waitFor(`${ns}: every message pod PodScheduled=False`, async () => {
        runner.checkAlive();
        const ps = (await listPods(ns)).filter((p) => p.metadata.name.startsWith('msg-'));
        const cond = (p: PriorityPodJson) =>
          p.status?.conditions?.find((x) => x.type === 'PodScheduled');
        const waiting = ps.filter((p) => cond(p)?.status !== 'False');
        return {
          ok: ps.length === messagePodCases.length && waiting.length === 0,
          seen: waiting.map((p) => p.metadata.name),
        };
      });
      // Victims' Preempted events (written asynchronously by both schedulers): wait a while,
      // but let the comparisons report what is missing.
      const victims = () =>
        [...recorder.pods.entries()].filter(([n, v]) => isFiller(n) && v.deleted).map(([n]) => n);
      let events: Event[] = [];
      try {
        await waitFor(
          `${ns}: a Preempted event per victim`,
          async () => {
            events = (await k.events(ns)) as Event[];
            const missing = victims().filter(
              (v) => !events.some((e) => e.reason === 'Preempted' && e.regarding?.name === v),
            );
            return { ok: missing.length === 0, seen: missing };
          },
          { timeoutMs: 15_000 },
        );
      } catch (error) {
        if (error instanceof GiveUp) throw error;
        log(`${sched}: ${(error as Error).message}`);
      }
      events = (await k.events(ns)) as Event[];
      return {
        scheduler: sched,
        namespace: ns,
        pods: await listPods(ns),
        watched: recorder.pods,
        events,
      };
    } finally {
      recorder.stop();
    }
  }

  function outcomes(): { kube: Outcome; berth: Outcome } {
    if (kube === undefined || berth === undefined)
      throw new Error('a scheduler run failed before the comparison (see the tests above)');
    return { kube, berth };
  }

  it('kube-scheduler (the oracle) runs the scenario', async () => {
    const k = c().kubectl;
    const ks = startKubeScheduler(c(), { name: 'kube-scheduler-priority', verbosity: 2 });
    try {
      kube = await runScenario(kubeNs, kubeName, async () => ({ checkAlive() {} }));
    } finally {
      await ks.stop();
    }
    // Free the nodes for berth's copy of the scenario.
    await k.run(['delete', 'pods', '--all', '-n', kubeNs, '--grace-period=0', '--force']);
    await k.run(['delete', 'pdb', 'guarded', '-n', kubeNs]);
    await waitFor(`no pods left in ${kubeNs}`, async () => {
      const left = await listPods(kubeNs);
      return { ok: left.length === 0, seen: left.map((p) => p.metadata.name) };
    });
  });

  it('berth runs the same scenario (recording its log)', async () => {
    berth = await runScenario(berthNs, berthName, async () => {
      berthRun = await startBerth(c(), {
        name: 'berth-priority',
        args: ['--record', record()],
      });
      return berthRun;
    });
  });

  it('scenario 1 (3 nodes): both preempt on the same node, with as many victims of the same priorities', () => {
    const o = outcomes();
    const theirs = preemption(o.kube, 'preemptor-pick', 'pick');
    const ours = preemption(o.berth, 'preemptor-pick', 'pick');
    log(`scenario 1 kube-scheduler: ${JSON.stringify(theirs)}`);
    log(`scenario 1 berth:          ${JSON.stringify(ours)}`);
    // The scenario's design, checked on the oracle: pick-b (2 low victims) beats pick-a (3 low,
    // larger priority sum) and pick-c (1 mid: higher highest-victim priority).
    expect(theirs.node).toBe('pick-b');
    expect(theirs.victims.map((v) => v.priority)).toEqual([100, 100]);
    expect(ours.node).toBe(theirs.node);
    expect(ours.victims).toEqual(theirs.victims);
  });

  it('scenario 1: the preemptor is nominated (status.nominatedNodeName) to the node it then binds to, as under kube-scheduler', () => {
    const o = outcomes();
    const theirs = preemption(o.kube, 'preemptor-pick', 'pick');
    const ours = preemption(o.berth, 'preemptor-pick', 'pick');
    expect(theirs.nominated).toEqual([theirs.node]);
    expect(ours.nominated).toEqual(theirs.nominated);
    expect(ours.node).toBe(ours.nominated[0]);
  });

  it("scenario 1: the preemptor's PodScheduled=False message (before it is bound) equals kube-scheduler's", () => {
    const o = outcomes();
    const theirs = o.kube.watched.get('preemptor-pick')?.unschedulableMessages;
    const ours = o.berth.watched.get('preemptor-pick')?.unschedulableMessages;
    log(`preemptor-pick messages, kube-scheduler: ${JSON.stringify(theirs)}`);
    log(`preemptor-pick messages, berth:          ${JSON.stringify(ours)}`);
    expect(theirs?.length).toBeGreaterThan(0);
    expect(ours?.[0]).toBe(theirs?.[0]);
  });

  it('scenario 2 (PDB): both preempt on the node where no PodDisruptionBudget is violated, sparing the oldest pod', () => {
    const o = outcomes();
    const theirs = preemption(o.kube, 'preemptor-pdb', 'pdb');
    const ours = preemption(o.berth, 'preemptor-pdb', 'pdb');
    log(`scenario 2 kube-scheduler: ${JSON.stringify(theirs)}`);
    log(`scenario 2 berth:          ${JSON.stringify(ours)}`);
    expect(theirs.node).toBe('pdb-b');
    expect(theirs.nominated).toEqual(['pdb-b']);
    expect(theirs.victims.map((v) => v.name)).toEqual(['pdb-b-1', 'pdb-b-2', 'pdb-b-3']);
    expect(ours).toEqual(theirs);
  });

  it('every victim gets the DisruptionTarget condition kube-scheduler sets (scheduler name aside)', () => {
    const o = outcomes();
    const conditions = (x: Outcome) =>
      Object.fromEntries(
        [...x.watched.entries()]
          .filter(([n, v]) => isFiller(n) && v.deleted)
          .map(([n, v]) => [n, comparableCondition(v.disruptionTarget, x.scheduler)]),
      );
    const theirs = conditions(o.kube);
    const ours = conditions(o.berth);
    log(
      `DisruptionTarget kube-scheduler: ${JSON.stringify(o.kube.watched.get('pick-b-0')?.disruptionTarget)}`,
    );
    log(
      `DisruptionTarget berth:          ${JSON.stringify(o.berth.watched.get('pick-b-0')?.disruptionTarget)}`,
    );
    expect(Object.keys(theirs)).toHaveLength(5);
    expect(theirs['pick-b-0']).toMatchObject({
      type: 'DisruptionTarget',
      status: 'True',
      reason: 'PreemptionByScheduler',
      message: '<scheduler>: preempting to accommodate a higher priority pod',
    });
    expect(ours).toEqual(theirs);
  });

  it('every victim gets one Preempted Event "Preempted by pod <uid> on node <node>", the Event kube-scheduler writes', () => {
    const o = outcomes();
    const victims = [...o.kube.watched.entries()]
      .filter(([n, v]) => isFiller(n) && v.deleted)
      .map(([n]) => n)
      .sort();
    const events = (x: Outcome) =>
      Object.fromEntries(victims.map((v) => [v, preemptedEvents(x, v)]));
    const theirs = events(o.kube);
    const ours = events(o.berth);
    const counts = (e: Record<string, unknown[]>) =>
      Object.fromEntries(Object.entries(e).map(([v, list]) => [v, list.length]));
    log(`Preempted events per victim, kube-scheduler: ${JSON.stringify(counts(theirs))}`);
    log(`Preempted events per victim, berth:          ${JSON.stringify(counts(ours))}`);
    log(`a Preempted event, kube-scheduler: ${JSON.stringify(theirs['pick-b-0']?.[0])}`);
    log(`a Preempted event, berth:          ${JSON.stringify(ours['pick-b-0']?.[0])}`);
    // kube-scheduler 1.37 hands the recorder a wrapper of the preemptor that has no object
    // reference, so its Preempted Events name no `related` object (1.34–1.36 name the preemptor).
    const namesPreemptor = !releaseAtLeast(parseKubeRelease(c().kubeVersion), '1.37');
    expect(theirs['pick-b-0']?.[0]).toEqual({
      reason: 'Preempted',
      type: 'Normal',
      action: 'Preempting',
      regardingKind: 'Pod',
      ...(namesPreemptor ? { related: 'preemptor-pick' } : {}),
      note: 'Preempted by pod <uid> on node pick-b',
    });
    // kube-scheduler's async preemption sometimes writes a victim's Event twice (identical but
    // for related.resourceVersion): the preemptor's next cycle, run while the last victim is
    // still terminating, preempts it again, and deleting a terminating pod succeeds again.
    // That race is kube's, not the behaviour to copy: compare kube's distinct Events with berth's.
    const distinct = (e: Record<string, unknown[]>) =>
      Object.fromEntries(
        Object.entries(e).map(([v, list]) => [
          v,
          [...new Set(list.map((x) => JSON.stringify(x)))].map((x) => JSON.parse(x) as unknown),
        ]),
      );
    expect(ours).toEqual(distinct(theirs));
  });

  it('no other pod was evicted (preemptionPolicy=Never and the message pods preempt nobody)', () => {
    const o = outcomes();
    const survivors = (x: Outcome) =>
      x.pods
        .map((p) => p.metadata.name)
        .filter(isFiller)
        .sort();
    expect(survivors(o.kube)).toEqual([
      'pdb-a-0',
      'pdb-a-1',
      'pdb-b-old',
      'pick-a-0',
      'pick-a-1',
      'pick-a-2',
      'pick-a-3',
      'pick-c-0',
    ]);
    expect(survivors(o.berth)).toEqual(survivors(o.kube));
    for (const x of [o.kube, o.berth])
      expect(x.watched.get('msg-never')?.nominated, x.scheduler).toEqual([]);
  });

  it.each(messagePodCases)(
    'scenario 3: %s (%s): berth’s PodScheduled message equals kube-scheduler’s, full string',
    (name) => {
      const o = outcomes();
      const message = (x: Outcome) => {
        const p = x.pods.find((q) => q.metadata.name === name);
        const cond = p?.status?.conditions?.find((q) => q.type === 'PodScheduled');
        return { status: cond?.status, reason: cond?.reason, message: cond?.message };
      };
      const theirs = message(o.kube);
      const ours = message(o.berth);
      log(`${name}: kube-scheduler: ${theirs.message}`);
      log(`${name}: berth:          ${ours.message}`);
      expect(theirs).toMatchObject({ status: 'False', reason: 'Unschedulable' });
      expect(ours).toEqual(theirs);
    },
  );

  it("scenario 3: the message pods' whole PodScheduled=False condition (timestamps aside) equals kube-scheduler's", () => {
    const o = outcomes();
    const conditions = (x: Outcome) =>
      Object.fromEntries(
        messagePodCases.map(([name]) => {
          const p = x.pods.find((q) => q.metadata.name === name);
          const cond = p?.status?.conditions?.find((q) => q.type === 'PodScheduled');
          const {
            lastTransitionTime: _t,
            lastProbeTime: _p,
            ...rest
          } = (cond ?? {}) as Record<string, unknown>;
          return [name, rest];
        }),
      );
    log(
      `msg-plain PodScheduled, kube-scheduler: ${JSON.stringify(conditions(o.kube)['msg-plain'])}`,
    );
    log(
      `msg-plain PodScheduled, berth:          ${JSON.stringify(conditions(o.berth)['msg-plain'])}`,
    );
    expect(conditions(o.berth)).toEqual(conditions(o.kube));
  });

  it('berth replay reproduces every recorded decision, the preemptions included', async () => {
    const o = outcomes();
    const exit = await berthRun?.stop('SIGTERM');
    expect(exit, berthRun?.tail()).toEqual({ code: 0, signal: null });
    const lines = readRecord(record());
    const nominated = recordEvents(lines, 'PodNominated').map(
      (l) => `${String(l.event?.key)} → ${String(l.event?.node)}`,
    );
    const victims = recordEvents(lines, 'VictimPreempted')
      .map((l) => (l.event?.victim as { key?: string } | undefined)?.key)
      .sort();
    log(
      `record: PodNominated ${JSON.stringify(nominated)}; VictimPreempted ${JSON.stringify(victims)}`,
    );
    expect([...nominated].sort()).toEqual([
      `${berthNs}/preemptor-pdb → ${preemption(o.berth, 'preemptor-pdb', 'pdb').node}`,
      `${berthNs}/preemptor-pick → ${preemption(o.berth, 'preemptor-pick', 'pick').node}`,
    ]);
    const deleted = [...o.berth.watched.entries()]
      .filter(([n, v]) => isFiller(n) && v.deleted)
      .map(([n]) => `${berthNs}/${n}`)
      .sort();
    expect(victims).toEqual(deleted);

    const r = await berthCommand(['replay', record(), '--json', '--allow-unsealed']);
    expect(r.code, r.stderr).toBe(0);
    const summary = JSON.parse(r.stdout) as {
      decisionDigest: string;
      placements: Record<string, string>;
      pending: Record<string, string>;
    };
    expect(summary.decisionDigest).toBe(lines.at(-1)?.digest);
    expect(summary.placements).toEqual({
      [`${berthNs}/preemptor-pdb`]: preemption(o.berth, 'preemptor-pdb', 'pdb').node,
      [`${berthNs}/preemptor-pick`]: preemption(o.berth, 'preemptor-pick', 'pick').node,
    });
    const live = Object.fromEntries(
      o.berth.pods
        .filter((p) => p.metadata.name.startsWith('msg-'))
        .map((p) => [
          `${berthNs}/${p.metadata.name}`,
          p.status?.conditions?.find((q) => q.type === 'PodScheduled')?.message,
        ]),
    );
    expect(summary.pending).toEqual(live);
  });
});
