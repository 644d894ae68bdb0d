// Gang scheduling on a real cluster: scheduler-plugins PodGroups placed all or nothing, their status, and the replay.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api } from './support/api.ts';
import { type BerthRun, berthCommand, startBerth } from './support/berth.ts';
import { useCluster } from './support/cluster.ts';
import { type RecordLine, readRecord, recordEvents } from './support/invariants.ts';
import type { PodJson } from './support/kubectl.ts';
import { namespace, toYaml } from './support/manifests.ts';
import { applyPodGroupCrd } from './support/pod-group-crd.ts';
import {
  BindWatch,
  type BoundSample,
  getPodGroup,
  groupPods,
  longestPartialMs,
  members,
  type PodGroupJson,
  placementSteps,
  podGroup,
  poolNode,
  poolNodes,
  poolPod,
  sampleUntilBound,
  scheduled,
} from './support/scenario-gang.ts';
import { delay, GiveUp, waitFor } from './support/wait.ts';

function log(line: string): void {
  process.stderr.write(`[e2e] gang: ${line}\n`);
}

/** Scenario 1: a 4-member group on room for 3, then a 4th node. */
const fitNs = 'gang-fit';
/** Scenario 2: a quorum of 2 of 3 members, then the 3rd. */
const quorumNs = 'gang-quorum';
/** Scenario 3: two 2-member groups competing for room for one. */
const raceNs = 'gang-race';
/** Scenario 5 (its own control plane, without the CRD). */
const noCrdNs = 'gang-nocrd';

/** How long a pending state must hold (polled every 250 ms throughout). */
const holdMs = 3_000;
/** A partial placement (some members bound, not all) seen for this long is a failure. */
const partialLimitMs = 1_000;

/**
 * Scenario 1's message: train-3 (the last in gang order) finds the 3 nodes taken by its
 * siblings. A gang step runs no PostFilter (it never preempts), so kube's "preemption: …"
 * part is not there.
 */
const fitMessage = `pod group ${fitNs}/train: 3 of 4 members fit; 0/3 nodes are available for ${fitNs}/train-3: 3 Insufficient cpu.`;

/** Scenario 3's message for group `group` when the other group holds both race nodes (7 nodes by then). */
const raceMessage = (group: string) =>
  `pod group ${raceNs}/${group}: 0 of 2 members fit; 0/7 nodes are available for ${raceNs}/${group}-0: 2 Insufficient cpu, 5 node(s) didn't match Pod's node affinity/selector.`;

/** What the probes need of berth: a check that it is still running (throws GiveUp if not). */
interface Alive {
  checkAlive(): void;
}

/** Helpers shared by the scenarios, bound to one cluster's API and berth. */
function probes(api: () => Api, berth: () => Alive, watches: (ns: string) => BindWatch) {
  /**
   * Waits until the `count` members of `group` are all unbound with PodScheduled=False,
   * reason Unschedulable and exactly `message` (a member told something else earlier, e.g.
   * "has 1 of 4 members" before its siblings arrived, is retried after its backoff).
   */
  async function settled(ns: string, group: string, count: number, message: string) {
    const started = Date.now();
    try {
      return await waitFor(
        `${ns}/${group}: ${count} members PodScheduled=False "${message}"`,
        async () => {
          berth().checkAlive();
          const ps = await groupPods(api(), ns, group);
          const bound = ps.filter((p) => p.spec.nodeName !== undefined);
          // A bind is never undone: waiting longer cannot help.
          if (bound.length > 0)
            throw new GiveUp(
              `${ns}/${group}: ${bound.map((p) => `${p.metadata.name} → ${p.spec.nodeName}`).join(', ')} bound while the group should wait`,
            );
          const off = ps.filter(
            (p) =>
              scheduled(p)?.status !== 'False' ||
              scheduled(p)?.reason !== 'Unschedulable' ||
              scheduled(p)?.message !== message,
          );
          return {
            ok: ps.length === count && off.length === 0,
            seen: off.map((p) => ({
              name: p.metadata.name,
              node: p.spec.nodeName,
              c: scheduled(p),
            })),
          };
        },
        { timeoutMs: 45_000 },
      );
    } finally {
      const history = watches(ns)
        .group(group)
        .map(([n, w]) => `${n}: ${JSON.stringify(w.messages)}`);
      log(`${ns}/${group}: settled after ${Date.now() - started} ms; messages seen: ${history}`);
    }
  }

  /** Polls group `group` for `ms`: fails at the first poll that sees a member bound or told other than `message`. */
  async function holdPending(ns: string, group: string, message: string, ms = holdMs) {
    const until = Date.now() + ms;
    let polls = 0;
    while (Date.now() < until) {
      berth().checkAlive();
      for (const p of await groupPods(api(), ns, group)) {
        expect(p.spec.nodeName, `${p.metadata.name} bound while its group cannot be placed`).toBe(
          undefined,
        );
        expect(scheduled(p)?.message, p.metadata.name).toBe(message);
      }
      polls++;
      await delay(250);
    }
    expect(polls).toBeGreaterThan(3);
    // Not even for a moment: the watch never saw a member of this generation with a node.
    for (const [name, w] of watches(ns).group(group))
      if (!w.deleted) expect(w.boundAt, `${ns}/${name} was bound`).toBeUndefined();
  }

  /**
   * Waits until `count` members of `group` are bound, polling every 100 ms, and checks that
   * they came together: no partial placement lasted `partialLimitMs` (by the polls and by
   * the pod watch's bind times), and each member is on a node of its own.
   */
  async function boundTogether(
    ns: string,
    group: string,
    count: number,
    timeoutMs = 60_000,
  ): Promise<PodJson[]> {
    const samples = await sampleUntilBound(api(), ns, group, count, {
      timeoutMs,
      checkAlive: () => berth().checkAlive(),
    });
    const partial = longestPartialMs(samples, count);
    const maxPartial = Math.max(0, ...samples.filter((s) => s.bound < count).map((s) => s.bound));
    log(
      `${ns}/${group}: ${samples.length} polls until ${count} bound (bound per poll: ${collapse(samples)}); most bound before all: ${maxPartial}; longest partial placement seen: ${partial} ms`,
    );
    expect(samples.at(-1)?.bound, `${ns}/${group}: all ${count} bound`).toBe(count);
    // Binds are separate API calls, so a poll may catch the group half bound; it must not last.
    expect(partial, `${ns}/${group}: a partial placement persisted`).toBeLessThan(partialLimitMs);
    // The watch may lag the poll that saw the last bind.
    const binds = await waitFor(
      `the pod watch to see ${ns}/${group}'s ${count} binds`,
      async () => {
        const live = watches(ns)
          .group(group)
          .filter(([, w]) => !w.deleted);
        const times = live.flatMap(([, w]) => (w.boundAt === undefined ? [] : [w.boundAt]));
        return { ok: times.length === count, seen: times };
      },
      { timeoutMs: 10_000, intervalMs: 50 },
    );
    const spread = Math.max(...binds) - Math.min(...binds);
    log(`${ns}/${group}: the watch saw the ${binds.length} binds within ${spread} ms`);
    expect(binds).toHaveLength(count);
    expect(spread, `${ns}/${group}: first to last bind`).toBeLessThan(partialLimitMs);
    const ps = await groupPods(api(), ns, group);
    expect(ps.filter((p) => p.spec.nodeName !== undefined)).toHaveLength(count);
    return ps;
  }

  /** Waits until PodGroup `ns/name`'s status satisfies `ok`; returns it. */
  async function groupStatus(
    ns: string,
    name: string,
    what: string,
    ok: (s: NonNullable<PodGroupJson['status']>) => boolean,
  ): Promise<NonNullable<PodGroupJson['status']>> {
    const pg = await waitFor(`PodGroup ${ns}/${name}: ${what}`, async () => {
      const g = await getPodGroup(api(), ns, name);
      return { ok: g.status !== undefined && ok(g.status), seen: g };
    });
    log(`PodGroup ${ns}/${name} status (${what}): ${JSON.stringify(pg.status)}`);
    return pg.status ?? {};
  }

  /** Waits until PodGroup `ns/name` says `count` members are bound, in phase Scheduled or Running. */
  function placedStatus(ns: string, name: string, count: number) {
    return groupStatus(
      ns,
      name,
      `phase Scheduled or Running, scheduled ${count}`,
      (s) => s.scheduled === count && (s.phase === 'Scheduled' || s.phase === 'Running'),
    );
  }

  return { settled, holdPending, boundTogether, groupStatus, placedStatus };
}

describe('gang scheduling: PodGroups placed all or nothing on a real cluster', () => {
  const c = useCluster('gang');
  let api: Api;
  let berth: BerthRun;
  let record: string;
  const watches = new Map<string, BindWatch>();
  const watched = (ns: string) => watches.get(ns) as BindWatch;
  const { settled, holdPending, boundTogether, groupStatus, placedStatus } = probes(
    () => api,
    () => berth,
    watched,
  );

  beforeAll(async () => {
    api = new Api(c().kubeconfig);
    // The chart's CRD (helm/berth/crds), applied to the real API server before berth starts.
    await applyPodGroupCrd(c().kubectl);
    await c().kubectl.apply(toYaml([fitNs, quorumNs, raceNs].map((ns) => namespace(ns))));
    for (const ns of [fitNs, quorumNs, raceNs]) {
      const w = new BindWatch(api, ns);
      await w.start();
      watches.set(ns, w);
    }
    record = join(c().dir, 'gang.record.jsonl');
    berth = await startBerth(c(), {
      name: 'berth-gang',
      args: ['--record', record],
    });
  });

  afterAll(async () => {
    for (const w of watches.values()) w.stop();
    await berth?.stop('SIGKILL');
    api?.close();
  });

  // --- scenario 1 ------------------------------------------------------------------------------

  it('scenario 1: a 4-member group on room for 3 — no member is bound, each is told 3 of 4 fit', async () => {
    const k = c().kubectl;
    // 2-cpu nodes, 1500m members: one member per node.
    await k.apply(toYaml([...poolNodes('fit', 3, '2'), podGroup(fitNs, 'train', 4)]));
    await k.create(toYaml(members(fitNs, 'train', [0, 1, 2, 3], { pool: 'fit', cpu: '1500m' })));
    await settled(fitNs, 'train', 4, fitMessage);
    await holdPending(fitNs, 'train', fitMessage);
    const status = await groupStatus(fitNs, 'train', 'phase Pending', (s) => s.phase === 'Pending');
    expect(status.scheduled ?? 0).toBe(0);
  });

  it('scenario 1: a 4th node — all 4 members are bound together, on 4 distinct nodes', async () => {
    await c().kubectl.apply(toYaml([poolNode('fit', 'fit-3', '2')]));
    const ps = await boundTogether(fitNs, 'train', 4);
    expect(ps.map((p) => p.spec.nodeName).sort()).toEqual(['fit-0', 'fit-1', 'fit-2', 'fit-3']);
  });

  it("scenario 4: the placed group's PodGroup status — phase Scheduled or Running, scheduled = members bound", async () => {
    const status = await placedStatus(fitNs, 'train', 4);
    const bound = (await groupPods(api, fitNs, 'train')).filter((p) => p.spec.nodeName).length;
    expect(bound).toBe(4);
    expect(status.scheduled).toBe(bound);
    expect(status.scheduleStartTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  // --- scenario 2 ------------------------------------------------------------------------------

  it('scenario 2: a quorum short — both members of a minMember-3 group wait, "has 2 of 3 members"', async () => {
    const k = c().kubectl;
    await k.apply(toYaml([poolNode('quorum', 'quorum-0', '4'), podGroup(quorumNs, 'q', 3)]));
    await k.create(toYaml(members(quorumNs, 'q', [0, 1], { pool: 'quorum', cpu: '1' })));
    const message = `pod group ${quorumNs}/q has 2 of 3 members`;
    await settled(quorumNs, 'q', 2, message);
    await holdPending(quorumNs, 'q', message);
  });

  it('scenario 2: the 3rd member — all 3 are bound', async () => {
    await c().kubectl.create(toYaml(members(quorumNs, 'q', [2], { pool: 'quorum', cpu: '1' })));
    const ps = await boundTogether(quorumNs, 'q', 3);
    expect(ps.map((p) => p.spec.nodeName)).toEqual(['quorum-0', 'quorum-0', 'quorum-0']);
    await placedStatus(quorumNs, 'q', 3);
  });

  // --- scenario 3 ------------------------------------------------------------------------------

  let winner = '';
  let loser = '';

  it('scenario 3: two groups, room for one — exactly one runs whole, the other has no member bound', async () => {
    const k = c().kubectl;
    await k.apply(
      toYaml([
        ...poolNodes('race', 2, '2'),
        podGroup(raceNs, 'red', 2),
        podGroup(raceNs, 'blue', 2),
      ]),
    );
    // One kubectl create, interleaved: red-0, blue-0, red-1, blue-1 (1500m: one per 2-cpu node).
    const opts = { pool: 'race', cpu: '1500m' };
    const interleaved = [0, 1].flatMap((i) => [
      ...members(raceNs, 'red', [i], opts),
      ...members(raceNs, 'blue', [i], opts),
    ]);
    await k.create(toYaml(interleaved));
    const seen = await waitFor('one group with both members bound', async () => {
      berth.checkAlive();
      const bound = async (g: string) =>
        (await groupPods(api, raceNs, g)).filter((p) => p.spec.nodeName !== undefined).length;
      const state = { red: await bound('red'), blue: await bound('blue') };
      return { ok: state.red === 2 || state.blue === 2, seen: state };
    });
    winner = seen.red === 2 ? 'red' : 'blue';
    loser = winner === 'red' ? 'blue' : 'red';
    log(`scenario 3: ${winner} was placed, ${loser} waits`);
    await settled(raceNs, loser, 2, raceMessage(loser));
    await holdPending(raceNs, loser, raceMessage(loser));
    const ps = await groupPods(api, raceNs, winner);
    expect(ps.map((p) => p.spec.nodeName).sort()).toEqual(['race-0', 'race-1']);
    for (const p of await groupPods(api, raceNs, loser))
      expect(scheduled(p)?.message?.startsWith('pod group'), p.metadata.name).toBe(true);
    await placedStatus(raceNs, winner, 2);
    const status = await groupStatus(raceNs, loser, 'phase Pending', (s) => s.phase === 'Pending');
    expect(status.scheduled ?? 0).toBe(0);
  });

  it("scenario 3: the placed group's pods deleted — the other group then runs whole", async () => {
    for (const p of await groupPods(api, raceNs, winner)) {
      const r = await api.deletePod(raceNs, p.metadata.name, p.metadata.uid);
      expect(r.status, JSON.stringify(r.body)).toBeLessThan(300);
    }
    const ps = await boundTogether(raceNs, loser, 2);
    expect(ps.map((p) => p.spec.nodeName).sort()).toEqual(['race-0', 'race-1']);
    await placedStatus(raceNs, loser, 2);
  });

  it("scenario 3: the first group's pods recreated — now that group waits whole, 0 of 2 fit", async () => {
    await waitFor(`${winner}'s pods gone`, async () => {
      const left = await groupPods(api, raceNs, winner);
      return { ok: left.length === 0, seen: left.map((p) => p.metadata.name) };
    });
    await c().kubectl.create(
      toYaml(members(raceNs, winner, [0, 1], { pool: 'race', cpu: '1500m' })),
    );
    await settled(raceNs, winner, 2, raceMessage(winner));
    await holdPending(raceNs, winner, raceMessage(winner), 2_000);
    // Its PodGroup follows its members back down.
    const status = await groupStatus(
      raceNs,
      winner,
      'phase Pending, scheduled 0',
      (s) => s.phase === 'Pending' && (s.scheduled ?? 0) === 0,
    );
    expect(status.running ?? 0).toBe(0);
  });

  // --- the record -----------------------------------------------------------------------------

  let lines: RecordLine[] = [];

  it('the record: each group was placed in one step, whole, and never partly reserved', async () => {
    const exit = await berth.stop('SIGTERM');
    expect(exit, berth.tail()).toEqual({ code: 0, signal: null });
    lines = readRecord(record);
    const steps = (ns: string, g: string) => placementSteps(lines, ns, g);
    const keys = (ns: string, g: string, n: number) =>
      Array.from({ length: n }, (_, i) => `${ns}/${g}-${i}`);
    log(
      `placement steps: ${JSON.stringify({ train: steps(fitNs, 'train'), q: steps(quorumNs, 'q'), [winner]: steps(raceNs, winner), [loser]: steps(raceNs, loser) })}`,
    );
    const fit3 = recordEvents(lines, 'NodeUpserted').find(
      (l) =>
        (l.event?.node as { metadata?: { name?: string } } | undefined)?.metadata?.name === 'fit-3',
    );
    const train = steps(fitNs, 'train');
    expect(train.map((s) => s.keys)).toEqual([keys(fitNs, 'train', 4)]);
    expect(train[0]?.seq).toBeGreaterThan(Number(fit3?.seq));
    expect(steps(quorumNs, 'q').map((s) => s.keys)).toEqual([keys(quorumNs, 'q', 3)]);
    // The winner's first members only: the recreated ones were never reserved.
    expect(steps(raceNs, winner).map((s) => s.keys)).toEqual([keys(raceNs, winner, 2)]);
    expect(steps(raceNs, loser).map((s) => s.keys)).toEqual([keys(raceNs, loser, 2)]);
    // berth's own clock on the bind results: each group's binds came back together.
    for (const [ns, g, n] of [
      [fitNs, 'train', 4],
      [quorumNs, 'q', 3],
      [raceNs, winner, 2],
      [raceNs, loser, 2],
    ] as const) {
      const times = recordEvents(lines, 'BindSucceeded')
        .filter((l) => String(l.event?.key).startsWith(`${ns}/${g}-`))
        .map((l) => Number(l.time));
      expect(times, `${ns}/${g}: BindSucceeded`).toHaveLength(n);
      expect(Math.max(...times) - Math.min(...times), `${ns}/${g}: binds`).toBeLessThan(
        partialLimitMs,
      );
    }
    const unreserved = recordEvents(lines, 'PodUnreserved').map((l) => l.event?.key);
    expect(unreserved).toEqual([]);
    const bindsFailed = recordEvents(lines, 'BindFailed').map((l) => l.event?.key);
    expect(bindsFailed).toEqual([]);
  });

  it('berth replay reproduces every recorded decision, the gangs included', async () => {
    const r = await berthCommand(['replay', record, '--json', '--allow-unsealed']);
    expect(r.code, r.stderr).toBe(0);
    const summary = JSON.parse(r.stdout) as {
      decisionDigest: string;
      placements: Record<string, string>;
      pending: Record<string, string>;
    };
    expect(summary.decisionDigest).toBe(lines.at(-1)?.digest);
    const live = (await c().kubectl.pods()).filter((p) =>
      [fitNs, quorumNs, raceNs].includes(p.metadata.namespace),
    );
    const key = (p: PodJson) => `${p.metadata.namespace}/${p.metadata.name}`;
    const placed = live.filter((p) => p.spec.nodeName !== undefined);
    expect(placed).toHaveLength(4 + 3 + 2);
    expect(summary.placements).toEqual(
      Object.fromEntries(placed.map((p) => [key(p), p.spec.nodeName])),
    );
    const waiting = live.filter((p) => p.spec.nodeName === undefined);
    expect(waiting.map(key).sort()).toEqual([`${raceNs}/${winner}-0`, `${raceNs}/${winner}-1`]);
    expect(summary.pending).toEqual(
      Object.fromEntries(waiting.map((p) => [key(p), scheduled(p)?.message])),
    );
  });
});

describe('gang scheduling without the PodGroup CRD (its own control plane)', () => {
  const c = useCluster('gang-nocrd');
  let api: Api;
  let berth: BerthRun;
  let w: BindWatch;
  const { settled, boundTogether, placedStatus } = probes(
    () => api,
    () => berth,
    () => w,
  );

  beforeAll(async () => {
    api = new Api(c().kubeconfig);
    await c().kubectl.apply(toYaml([namespace(noCrdNs), ...poolNodes('nocrd', 2, '2')]));
    w = new BindWatch(api, noCrdNs);
    await w.start();
    berth = await startBerth(c(), { name: 'berth-gang-nocrd' });
  });

  afterAll(async () => {
    w?.stop();
    await berth?.stop('SIGKILL');
    api?.close();
  });

  it('scenario 5: members wait, told the PodGroup API is not served; other pods are still scheduled', async () => {
    const k = c().kubectl;
    const opts = { pool: 'nocrd', cpu: '1500m' };
    await k.create(
      toYaml([
        ...members(noCrdNs, 'job', [0, 1], opts),
        poolPod(noCrdNs, 'solo', { ...opts, cpu: '100m' }),
      ]),
    );
    const solo = await waitFor('solo bound', async () => {
      berth.checkAlive();
      const p = (await c().kubectl.pod(noCrdNs, 'solo')) as PodJson;
      return { ok: p.spec.nodeName !== undefined, seen: p };
    });
    expect(solo.spec.nodeName).toMatch(/^nocrd-[01]$/);
    await settled(
      noCrdNs,
      'job',
      2,
      `pod group ${noCrdNs}/job: the PodGroup API (scheduling.x-k8s.io/v1alpha1) is not served: the API server does not serve scheduling.x-k8s.io/v1alpha1 podgroups (is the PodGroup CRD installed?)`,
    );
  });

  it("scenario 5: the chart's CRD and the PodGroup applied — berth finds them and places the group", async () => {
    const k = c().kubectl;
    await applyPodGroupCrd(k);
    await k.apply(toYaml([podGroup(noCrdNs, 'job', 2)]));
    // berth lists a kind it found unserved again every 30 s: allow two rounds.
    const ps = await boundTogether(noCrdNs, 'job', 2, 75_000);
    expect(ps.map((p) => p.spec.nodeName).sort()).toEqual(['nocrd-0', 'nocrd-1']);
    await placedStatus(noCrdNs, 'job', 2);
  });
});

/** Bound counts per poll with runs collapsed, e.g. "0×12,4". */
function collapse(samples: BoundSample[]): string {
  const out: string[] = [];
  let last: number | undefined;
  let run = 0;
  const flush = () => {
    if (last !== undefined) out.push(run > 1 ? `${last}×${run}` : String(last));
  };
  for (const s of samples) {
    if (s.bound === last) run++;
    else {
      flush();
      last = s.bound;
      run = 1;
    }
  }
  flush();
  return out.join(',');
}
