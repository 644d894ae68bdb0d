// Nominations another component set (status.nominatedNodeName patched before any scheduler runs): berth beside kube-scheduler.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api } from './support/api.ts';
import { type BerthRun, berthCommand, startBerth } from './support/berth.ts';
import { useCluster } from './support/cluster.ts';
import { readRecord, recordEvents } from './support/invariants.ts';
import { type KubeScheduler, startKubeScheduler } from './support/kube-scheduler.ts';
import { kwokNode, type Manifest, namespace, toYaml } from './support/manifests.ts';
import {
  PodRecorder,
  type PriorityPodJson,
  priorityClasses,
  priorityPod,
  type WatchedPod,
} from './support/scenario-priority.ts';
import { GiveUp, waitFor } from './support/wait.ts';

const kubeNs = 'nom-kube';
const berthNs = 'nom-berth';

/** nom-a, nom-b, nom-c: 4 cpu each, labelled `nom: a|b|c`. */
const nodes: Manifest[] = ['a', 'b', 'c'].map((n) =>
  kwokNode(`nom-${n}`, { cpu: '4', memory: '8Gi', pods: 110, labels: { nom: n } }),
);

/**
 * The pods, all created before a scheduler runs. busy-b and busy-c are bound already.
 * ext (nominated to nom-b, which scores worse than the empty nom-a) is tried there first.
 * held (high-never: priority 1000, may not preempt; nominated to nom-c, where busy-c leaves
 * too little room) stays pending with its nomination, which holds its room against low
 * (priority 100, only nom-c). lost (nominated to nom-a) fits no node and preemption cannot
 * help: kube clears its nomination.
 */
function scenarioPods(ns: string, sched: string): Manifest[] {
  return [
    // mid (500): never a victim of low (100).
    priorityPod('busy-b', ns, sched, { cpu: '2', priorityClassName: 'mid', nodeName: 'nom-b' }),
    priorityPod('busy-c', ns, sched, { cpu: '2', priorityClassName: 'mid', nodeName: 'nom-c' }),
    priorityPod('ext', ns, sched, { cpu: '1' }),
    priorityPod('held', ns, sched, {
      cpu: '3',
      priorityClassName: 'high-never',
      nodeSelector: { nom: 'c' },
    }),
    priorityPod('low', ns, sched, {
      cpu: '2',
      priorityClassName: 'low',
      nodeSelector: { nom: 'c' },
    }),
    priorityPod('lost', ns, sched, { cpu: '1', nodeSelector: { nom: 'none' } }),
  ];
}

/** The nominations "another component" (an autoscaler, Kueue) writes through pods/status. */
const external: [string, string][] = [
  ['ext', 'nom-b'],
  ['held', 'nom-c'],
  ['lost', 'nom-a'],
];
const pending = ['held', 'low', 'lost'];

/** One pod's outcome as compared between the schedulers. */
interface PodOutcome {
  node: string | undefined;
  /** status.nominatedNodeName at the end. */
  nominatedNodeName: string | undefined;
  /** Every distinct nomination the watch saw, in order. */
  nominated: string[];
  /** The PodScheduled=False messages, in order. */
  messages: string[];
}

type Outcome = Record<string, PodOutcome>;

function log(line: string): void {
  process.stderr.write(`[e2e] nominated: ${line}\n`);
}

describe('nominations another component set: berth against kube-scheduler on the same scenario', () => {
  const c = useCluster('nominated');
  let api: Api;
  let kube: Outcome | undefined;
  let berth: Outcome | undefined;
  let berthRun: BerthRun | undefined;
  const record = () => join(c().dir, 'nominated.record.jsonl');

  beforeAll(async () => {
    api = new Api(c().kubeconfig);
    await c().kubectl.apply(
      toYaml([...priorityClasses, namespace(kubeNs), namespace(berthNs), ...nodes]),
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

  const scheduledFalse = (p: PriorityPodJson | undefined) =>
    p?.status?.conditions?.some((x) => x.type === 'PodScheduled' && x.status === 'False') === true;

  /** Waits until `ok` holds for the pods of `ns`, checking that the scheduler still runs. */
  async function until(
    ns: string,
    what: string,
    alive: () => void,
    ok: (ps: PriorityPodJson[]) => boolean,
  ) {
    await waitFor(
      `${ns}: ${what}`,
      async () => {
        alive();
        const ps = await listPods(ns);
        return {
          ok: ok(ps),
          seen: ps.map((p) => ({ n: p.metadata.name, node: p.spec.nodeName, st: p.status })),
        };
      },
      { timeoutMs: 60_000 },
    );
  }

  /**
   * Creates the pods, writes the external nominations, then starts the scheduler (`start`):
   * waits until ext is bound and the others are PodScheduled=False with lost's nomination
   * gone, then deletes busy-c and waits until held is bound (on its nominated node).
   */
  async function runScenario(
    ns: string,
    sched: string,
    start: () => Promise<{ checkAlive(): void }>,
  ): Promise<Outcome> {
    const k = c().kubectl;
    // Watching from before the pods exist: the external nominations are in what it saw.
    const recorder = new PodRecorder(api, ns);
    await recorder.start();
    try {
      await k.create(toYaml(scenarioPods(ns, sched)));
      for (const [name, node] of external) {
        const patch = JSON.stringify({ status: { nominatedNodeName: node } });
        await k.run([
          'patch',
          'pod',
          name,
          '-n',
          ns,
          '--subresource=status',
          '--type=merge',
          '-p',
          patch,
        ]);
      }
      const runner = await start();
      const alive = () => runner.checkAlive();
      const byName = (ps: PriorityPodJson[], n: string) => ps.find((p) => p.metadata.name === n);
      await until(ns, 'ext bound, the others unschedulable', alive, (ps) => {
        const ext = byName(ps, 'ext');
        return (
          ext?.spec.nodeName !== undefined && pending.every((n) => scheduledFalse(byName(ps, n)))
        );
      });
      await until(ns, "lost's nomination cleared", alive, (ps) => {
        const lost = byName(ps, 'lost');
        return lost !== undefined && (lost.status?.nominatedNodeName ?? '') === '';
      }).catch((error: Error) => {
        // Compared below: say what is missing there rather than stop here.
        if (error instanceof GiveUp) throw error;
        log(`${sched}: ${error.message}`);
      });
      await k.run(['delete', 'pod', 'busy-c', '-n', ns, '--grace-period=0', '--force']);
      await until(ns, 'held bound', alive, (ps) => byName(ps, 'held')?.spec.nodeName !== undefined);
      return outcomeOf(await listPods(ns), recorder.pods);
    } finally {
      recorder.stop();
    }
  }

  function outcomeOf(ps: PriorityPodJson[], watched: Map<string, WatchedPod>): Outcome {
    const out: Outcome = {};
    for (const name of ['ext', ...pending]) {
      const p = ps.find((q) => q.metadata.name === name);
      const w = watched.get(name);
      const nnn = p?.status?.nominatedNodeName;
      out[name] = {
        node: p?.spec.nodeName,
        nominatedNodeName: nnn === '' ? undefined : nnn,
        nominated: w?.nominated ?? [],
        messages: w?.unschedulableMessages ?? [],
      };
    }
    return out;
  }

  function outcomes(): { kube: Outcome; berth: Outcome } {
    if (kube === undefined || berth === undefined)
      throw new Error('a scheduler run failed before the comparison (see the tests above)');
    return { kube, berth };
  }

  it('kube-scheduler (the oracle) runs the scenario', async () => {
    const k = c().kubectl;
    let ks: KubeScheduler | undefined;
    try {
      // Started only once the nominations are written: no scheduler sees the pods before.
      kube = await runScenario(kubeNs, 'default-scheduler', async () => {
        ks = startKubeScheduler(c(), { name: 'kube-scheduler-nominated', verbosity: 2 });
        return { checkAlive() {} };
      });
      log(`kube-scheduler: ${JSON.stringify(kube)}`);
    } finally {
      await ks?.stop();
      // Free the nodes for berth's copy of the scenario, whatever happened.
      await k.run(['delete', 'pods', '--all', '-n', kubeNs, '--grace-period=0', '--force']);
      await waitFor(`no pods left in ${kubeNs}`, async () => {
        const left = await listPods(kubeNs);
        return { ok: left.length === 0, seen: left.map((p) => p.metadata.name) };
      });
    }
  });

  it('berth runs the same scenario (recording its log)', async () => {
    berth = await runScenario(berthNs, 'berth', async () => {
      berthRun = await startBerth(c(), {
        name: 'berth-nominated',
        args: ['--emulated-version', '1.37', '--record', record()],
      });
      return berthRun;
    });
    log(`berth:          ${JSON.stringify(berth)}`);
  });

  it('the nominated node is tried first: ext goes to nom-b (not the emptier nom-a), as under kube-scheduler', () => {
    const o = outcomes();
    expect(o.kube.ext?.node).toBe('nom-b');
    expect(o.berth.ext).toEqual(o.kube.ext);
  });

  it("held's nomination holds room against the lower-priority low: same messages; held keeps its nomination and then binds there", () => {
    const o = outcomes();
    expect(o.kube.held?.node).toBe('nom-c');
    expect(o.kube.held?.nominated).toEqual(['nom-c']);
    expect(o.kube.low?.node).toBeUndefined();
    expect(o.kube.low?.messages[0]).toContain('Insufficient cpu');
    expect(o.kube.held?.messages[0]).toContain('not eligible due to preemptionPolicy=Never');
    expect(o.berth.held).toEqual(o.kube.held);
    expect(o.berth.low).toEqual(o.kube.low);
  });

  it('lost fits nowhere and preemption cannot help: its nomination is cleared, with the same message', () => {
    const o = outcomes();
    expect(o.kube.lost?.nominated).toEqual(['nom-a']);
    expect(o.kube.lost?.nominatedNodeName).toBeUndefined();
    expect(o.berth.lost).toEqual(o.kube.lost);
  });

  it('berth replay reproduces every recorded decision, the cleared nomination included', async () => {
    outcomes();
    const exit = await berthRun?.stop('SIGTERM');
    expect(exit, berthRun?.tail()).toEqual({ code: 0, signal: null });
    const lines = readRecord(record());
    const cleared = recordEvents(lines, 'NominationCleared').map((l) => String(l.event?.key));
    expect(cleared).toEqual([`${berthNs}/lost`]);
    const r = await berthCommand(['replay', record(), '--json', '--allow-unsealed']);
    expect(r.code, r.stderr).toBe(0);
    const summary = JSON.parse(r.stdout) as { decisionDigest: string };
    expect(summary.decisionDigest).toBe(lines.at(-1)?.digest);
  });
});
