// Core PodGroups that compete, preempt, or need a search: berth beside kube-scheduler 1.37.2 (GenericWorkload on) on one real control plane.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api } from './support/api.ts';
import { type BerthRun, startBerth } from './support/berth.ts';
import { useCluster } from './support/cluster.ts';
import { type KubeScheduler, startKubeScheduler } from './support/kube-scheduler.ts';
import type { EventJson, PodJson } from './support/kubectl.ts';
import { namespace, toYaml } from './support/manifests.ts';
import {
  contestGroup,
  contestMembers,
  contestPod,
  GroupConditions,
  guardLabel,
} from './support/scenario-contest.ts';
import { poolNode, poolNodes } from './support/scenario-gang.ts';
import { PodRecorder, priorityClasses } from './support/scenario-priority.ts';
import {
  coreGroupPods,
  initiallyScheduled,
  sideBySide,
  type Who,
  workloadApiFlags,
} from './support/scenario-workload.ts';
import { delay, GiveUp, waitFor } from './support/wait.ts';

function log(line: string): void {
  process.stderr.write(`[e2e] workload-gang-contest: ${line}\n`);
}

/** Each scheduler runs the same scenarios in its own namespace, on its own node pools. */
const schedulers = sideBySide('ct');

/** How long "nothing is bound" must hold (polled every 250 ms). */
const holdMs = 3_000;

/**
 * What one scheduler did in one scenario: the pods bound, by name; the nodes they are on
 * (without the namespace prefix: where kube breaks a tie at random, only the set of nodes is
 * one placement); and the pods deleted (victims).
 */
interface Outcome {
  bound: string[];
  nodes: string[];
  deleted: string[];
}

describe('core PodGroups that compete, preempt or need a search: berth beside kube-scheduler 1.37.2', () => {
  const c = useCluster('workload-gang-contest', { apiserverFlags: workloadApiFlags });
  let api: Api;
  let berth: BerthRun;
  let kube: KubeScheduler;
  const groups = new Map<string, GroupConditions>();
  const pods = new Map<string, PodRecorder>();
  const outcomes = new Map<string, Outcome>();
  /** Which gang of the same-priority race each scheduler bound. */
  const winners = new Map<Who, 'first' | 'second'>();

  beforeAll(async () => {
    api = new Api(c().kubeconfig);
    await c().kubectl.apply(
      toYaml([...schedulers.map((s) => namespace(s.ns)), ...priorityClasses]),
    );
    for (const s of schedulers) {
      const g = new GroupConditions(api, s.ns);
      await g.start();
      groups.set(s.ns, g);
      const p = new PodRecorder(api, s.ns);
      await p.start();
      pods.set(s.ns, p);
    }
    berth = await startBerth(c(), { name: 'berth-contest' });
    kube = startKubeScheduler(c(), { featureGates: ['GenericWorkload=true'] });
  });

  afterAll(async () => {
    for (const g of groups.values()) g.stop();
    for (const p of pods.values()) p.stop();
    await kube?.stop();
    await berth?.stop('SIGKILL');
    api?.close();
  });

  const alive = () => berth.checkAlive();

  /** Waits until all `count` members of `group` are bound; returns them. */
  async function allBound(ns: string, group: string, count: number): Promise<PodJson[]> {
    return waitFor(
      `${ns}/${group}: ${count} members bound`,
      async () => {
        alive();
        const ps = await coreGroupPods(api, ns, group);
        const bound = ps.filter((p) => p.spec.nodeName !== undefined);
        return { ok: bound.length === count, seen: bound };
      },
      { timeoutMs: 60_000 },
    );
  }

  /** Waits for `group`'s condition to have `status`. */
  async function conditionIs(ns: string, group: string, status: 'True' | 'False'): Promise<void> {
    await waitFor(`${ns}/${group}: PodGroupInitiallyScheduled=${status}`, async () => {
      alive();
      const cond = await initiallyScheduled(api, ns, group);
      return { ok: cond?.status === status, seen: cond };
    });
  }

  /** Polls `group` for `holdMs`: fails at the first poll that sees a member bound. */
  async function noneBound(ns: string, group: string): Promise<void> {
    const until = Date.now() + holdMs;
    while (Date.now() < until) {
      alive();
      const bound = (await coreGroupPods(api, ns, group)).filter((p) => p.spec.nodeName);
      if (bound.length > 0)
        throw new GiveUp(`${ns}/${group}: ${bound.map((p) => p.metadata.name).join(', ')} bound`);
      await delay(250);
    }
  }

  /** Keeps where `names` (pods of `ns`) are and which are gone, for the comparison. */
  async function keep(who: Who, scenario: string, ns: string, names: string[]): Promise<Outcome> {
    const list = await api.ok<{ items: PodJson[] }>('GET', `/api/v1/namespaces/${ns}/pods`);
    const o: Outcome = { bound: [], nodes: [], deleted: [] };
    for (const n of names) {
      const p = list.items.find((x) => x.metadata.name === n && !x.metadata.deletionTimestamp);
      if (p === undefined) o.deleted.push(n);
      else if (p.spec.nodeName !== undefined) {
        o.bound.push(n);
        o.nodes.push(p.spec.nodeName.replace(`${ns}-`, ''));
      }
    }
    o.nodes.sort();
    outcomes.set(`${who} ${scenario}`, o);
    log(`${who} ${scenario}: ${JSON.stringify(o)}`);
    return o;
  }

  /**
   * The search scenarios: berth binds the 2 members of `group` on `nodes` (member order,
   * without the namespace prefix); kube-scheduler leaves the group unplaced.
   */
  async function placedByBerthOnly(s: (typeof schedulers)[number], group: string, nodes: string[]) {
    if (s.who === 'berth') {
      const ps = await allBound(s.ns, group, 2);
      expect(ps.map((p) => p.spec.nodeName)).toEqual(nodes.map((n) => `${s.ns}-${n}`));
    } else {
      await conditionIs(s.ns, group, 'False');
      await noneBound(s.ns, group);
    }
    await keep(s.who, group, s.ns, [`${group}-0`, `${group}-1`]);
  }

  /** The conditions `group` of `ns` has had, logged. */
  function conditionsOf(who: Who, ns: string, group: string) {
    const seen = (groups.get(ns) as GroupConditions).of(group);
    log(`${who} ${group}: ${JSON.stringify(seen)}`);
    return seen;
  }

  for (const s of schedulers) {
    const opts = (pool: string, priorityClassName?: string) => ({
      pool: `${s.ns}-${pool}`,
      schedulerName: s.schedulerName,
      ...(priorityClassName === undefined ? {} : { priorityClassName }),
    });
    const pool = (name: string, count: number, cpu = '2') =>
      poolNodes(`${s.ns}-${name}`, count, cpu);
    const extra = (name: string, i: number, cpu = '2') =>
      poolNode(`${s.ns}-${name}`, `${s.ns}-${name}-${i}`, cpu);

    it(`${s.who}: two gangs of one priority wait on room for one member each; a node arrives and one gang is bound whole (berth: the older)`, async () => {
      const k = c().kubectl;
      await k.apply(toYaml([...pool('race', 1), contestGroup(s.ns, 'first', 2)]));
      await k.create(toYaml(contestMembers(s.ns, 'first', ['1500m', '1500m'], opts('race'))));
      await conditionIs(s.ns, 'first', 'False');
      await k.apply(toYaml([contestGroup(s.ns, 'second', 2)]));
      await k.create(toYaml(contestMembers(s.ns, 'second', ['1500m', '1500m'], opts('race'))));
      await conditionIs(s.ns, 'second', 'False');
      await delay(2_000); // both past their first backoff, waiting for a change
      await k.apply(toYaml([extra('race', 1)]));
      // berth keeps a group's place from its first step: the older gang. kube-scheduler
      // requeues a group at each failed attempt's time, so either may come first there.
      const winner = await waitFor('one gang bound whole', async () => {
        alive();
        const bound = async (g: string) =>
          (await coreGroupPods(api, s.ns, g)).filter((p) => p.spec.nodeName).length;
        const [a, b] = [await bound('first'), await bound('second')];
        const seen: 'first' | 'second' = a === 2 ? 'first' : 'second';
        return { ok: a === 2 || b === 2, seen };
      });
      if (s.who === 'berth') expect(winner).toBe('first');
      winners.set(s.who, winner);
      await noneBound(s.ns, winner === 'first' ? 'second' : 'first');
      await keep(s.who, 'race', s.ns, ['first-0', 'first-1', 'second-0', 'second-1']);
    });

    it(`${s.who}: a low-priority gang, then a high-priority one, wait on room for one member each; a node arrives and the high one is bound whole`, async () => {
      const k = c().kubectl;
      await k.apply(toYaml([...pool('prio', 1), contestGroup(s.ns, 'lowly', 2, 'low')]));
      await k.create(
        toYaml(contestMembers(s.ns, 'lowly', ['1500m', '1500m'], opts('prio', 'low'))),
      );
      await conditionIs(s.ns, 'lowly', 'False');
      await k.apply(toYaml([contestGroup(s.ns, 'highly', 2, 'high')]));
      await k.create(
        toYaml(contestMembers(s.ns, 'highly', ['1500m', '1500m'], opts('prio', 'high'))),
      );
      await conditionIs(s.ns, 'highly', 'False');
      await delay(2_000);
      await k.apply(toYaml([extra('prio', 1)]));
      await allBound(s.ns, 'highly', 2);
      await noneBound(s.ns, 'lowly');
      await keep(s.who, 'prio', s.ns, ['lowly-0', 'lowly-1', 'highly-0', 'highly-1']);
    });

    it(`${s.who}: a high-priority gang evicts the two low-priority pods its two members need`, async () => {
      const k = c().kubectl;
      const lows = [0, 1].map((i) =>
        contestPod(s.ns, `single-${i}`, undefined, {
          ...opts('ps', 'low'),
          cpu: '1500m',
          node: `${s.ns}-ps-${i}`,
        }),
      );
      await k.apply(toYaml(pool('ps', 2)));
      await k.create(toYaml(lows));
      await k.apply(toYaml([contestGroup(s.ns, 'strong', 2, 'high')]));
      await k.create(
        toYaml(contestMembers(s.ns, 'strong', ['1500m', '1500m'], opts('ps', 'high'))),
      );
      await allBound(s.ns, 'strong', 2);
      const o = await keep(s.who, 'singles', s.ns, [
        'single-0',
        'single-1',
        'strong-0',
        'strong-1',
      ]);
      expect(o.deleted).toEqual(['single-0', 'single-1']);
    });

    it(`${s.who}: a high-priority gang evicts a mid-priority gang placed where it needs to be`, async () => {
      const k = c().kubectl;
      await k.apply(toYaml([...pool('pg', 2), contestGroup(s.ns, 'middle', 2, 'mid')]));
      await k.create(toYaml(contestMembers(s.ns, 'middle', ['1500m', '1500m'], opts('pg', 'mid'))));
      await allBound(s.ns, 'middle', 2);
      await k.apply(toYaml([contestGroup(s.ns, 'top', 2, 'high')]));
      await k.create(toYaml(contestMembers(s.ns, 'top', ['1500m', '1500m'], opts('pg', 'high'))));
      await allBound(s.ns, 'top', 2);
      const o = await keep(s.who, 'gang', s.ns, ['middle-0', 'middle-1', 'top-0', 'top-1']);
      expect(o.deleted).toEqual(['middle-0', 'middle-1']);
    });

    it(`${s.who}: mixed members (1 and 2 cpu) on a 2-cpu and a 1-cpu node, the small one first`, async () => {
      const k = c().kubectl;
      await k.apply(
        toYaml([extra('mix', 0, '2'), extra('mix', 1, '1'), contestGroup(s.ns, 'mixed', 2)]),
      );
      await k.create(toYaml(contestMembers(s.ns, 'mixed', ['1', '2'], opts('mix'))));
      // The 2-cpu member on the 2-cpu node: the only way both fit.
      await placedByBerthOnly(s, 'mixed', ['mix-1', 'mix-0']);
    });

    it(`${s.who}: a member that must avoid a guard pod, after one that need not`, async () => {
      const k = c().kubectl;
      const guard = contestPod(s.ns, 'guard', undefined, {
        ...opts('anti'),
        cpu: '100m',
        labels: { [guardLabel]: 'guard' },
        node: `${s.ns}-anti-0`,
      });
      await k.apply(toYaml([...pool('anti', 2), contestGroup(s.ns, 'picky', 2)]));
      await k.create(toYaml([guard]));
      await k.create(
        toYaml([
          contestPod(s.ns, 'picky-0', 'picky', { ...opts('anti'), cpu: '1500m' }),
          contestPod(s.ns, 'picky-1', 'picky', { ...opts('anti'), cpu: '1500m', avoid: 'guard' }),
        ]),
      );
      // The member that avoids the guard on the node without it: the only way both fit.
      await placedByBerthOnly(s, 'picky', ['anti-0', 'anti-1']);
    });
  }

  const outcome = (who: Who, scenario: string) => outcomes.get(`${who} ${scenario}`);

  it('two gangs competing: one gang bound whole on both nodes, the other none; of different priorities, the higher', () => {
    for (const who of ['berth', 'kube-scheduler'] as const) {
      expect(outcome(who, 'race')?.bound.length, who).toBe(2);
      expect(outcome(who, 'race')?.nodes, who).toEqual(['race-0', 'race-1']);
      expect(outcome(who, 'prio')?.bound, who).toEqual(['highly-0', 'highly-1']);
      expect(outcome(who, 'prio')?.nodes, who).toEqual(['prio-0', 'prio-1']);
    }
    // berth evicts nobody: the lower gang was never bound.
    expect(outcome('berth', 'prio')?.deleted).toEqual([]);
  });

  it('gang preemption: the same victims, the same members bound on the same nodes', () => {
    for (const scenario of ['singles', 'gang'])
      expect(outcome('berth', scenario), scenario).toEqual(outcome('kube-scheduler', scenario));
  });

  it("the groups' PodGroupInitiallyScheduled conditions, step by step", () => {
    for (const group of ['first', 'second', 'lowly', 'highly', 'strong', 'middle', 'top'])
      for (const s of schedulers) conditionsOf(s.who, s.ns, group);
    for (const group of ['strong', 'top']) {
      const [b, k] = schedulers.map((s) => conditionsOf(s.who, s.ns, group));
      expect(b, group).toEqual(k);
    }
    // The race: the gang each bound, and the one each left, have had the same conditions
    // (berth states the loser's counts without its fairness hold, as kube, which has none).
    const byRole = (role: 'won' | 'lost') =>
      schedulers.map((s) => {
        const won = winners.get(s.who);
        const group = role === 'won' ? won : won === 'first' ? 'second' : 'first';
        return (groups.get(s.ns) as GroupConditions).of(group as string);
      });
    for (const role of ['won', 'lost'] as const) {
      const [b, k] = byRole(role);
      expect(b, `race: the gang ${role}`).toEqual(k);
    }
    // Different priorities: where kube-scheduler too bound the high gang directly (it
    // sometimes binds the low one first and preempts it), the same conditions, including
    // DynamicResources' PodGroupPostFilter reason.
    if (outcome('kube-scheduler', 'prio')?.deleted.length === 0)
      for (const group of ['lowly', 'highly']) {
        const [b, k] = schedulers.map((s) => (groups.get(s.ns) as GroupConditions).of(group));
        expect(b, group).toEqual(k);
      }
    else log('prio: kube-scheduler bound and preempted the low gang; its conditions not compared');
  });

  it('the victims: the same DisruptionTarget condition and Preempted Events, naming the PodGroup', async () => {
    const seen = [];
    for (const s of schedulers) {
      const rec = pods.get(s.ns) as PodRecorder;
      const conditions = ['single-0', 'single-1', 'middle-0', 'middle-1'].map((v) => {
        const c = rec.pods.get(v)?.disruptionTarget;
        log(`${s.who} ${v} DisruptionTarget: ${JSON.stringify(c)}`);
        // The message starts with the scheduler's own name.
        const message = c?.message?.replace(`${s.schedulerName}: `, '<scheduler>: ');
        return { v, status: c?.status, reason: c?.reason, message };
      });
      const events: EventJson[] = await c().kubectl.events(s.ns);
      const preempted = events
        // Victims of the two preemption scenarios (kube sometimes preempts in 'prio' too).
        .filter(
          (e) => e.reason === 'Preempted' && /^(single|middle)-/.test(e.regarding?.name ?? ''),
        )
        .map((e) => {
          const related = (e as { related?: Record<string, string> }).related;
          log(
            `${s.who} Preempted ${e.regarding?.name}: ${e.note} (related ${JSON.stringify(related)})`,
          );
          // Uids and namespaces differ between the two runs: name the group instead.
          return {
            victim: e.regarding?.name,
            note: related?.uid === undefined ? e.note : e.note?.replace(related.uid, '<uid>'),
            related: related && {
              apiVersion: related.apiVersion,
              kind: related.kind,
              name: related.name,
            },
          };
        })
        .sort((a, b) => String(a.victim).localeCompare(String(b.victim)));
      seen.push({ conditions, preempted });
    }
    const [b, k] = seen;
    expect(b?.preempted.map((e) => e.victim)).toEqual([
      'middle-0',
      'middle-1',
      'single-0',
      'single-1',
    ]);
    expect(b).toEqual(k);
  });

  it('where kube-scheduler gives up on mixed members or anti-affinity, berth places the group', () => {
    const gaveUp = {
      status: 'False',
      reason: 'Unschedulable',
      message:
        'minCount (2) cannot be satisfied: 1 scheduled, 0 remaining, pod group preemption: No preemption victims found for incoming preemptor',
    };
    const placed = { status: 'True', reason: 'Scheduled', message: '' };
    for (const group of ['mixed', 'picky']) {
      expect(conditionsOf('kube-scheduler', 'ct-kube', group).at(-1), group).toMatchObject(gaveUp);
      expect(outcome('kube-scheduler', group)?.bound, group).toEqual([]);
      expect(conditionsOf('berth', 'ct-berth', group).at(-1), group).toMatchObject(placed);
    }
    // Each member on the one node it can have once the other is placed.
    expect(outcome('berth', 'mixed')).toEqual({
      bound: ['mixed-0', 'mixed-1'],
      nodes: ['mix-0', 'mix-1'],
      deleted: [],
    });
    expect(outcome('berth', 'picky')).toEqual({
      bound: ['picky-0', 'picky-1'],
      nodes: ['anti-0', 'anti-1'],
      deleted: [],
    });
  });
});
