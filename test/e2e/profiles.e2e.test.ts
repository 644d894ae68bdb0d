// One berth, two KubeSchedulerConfiguration profiles from the chart: each places its pods as kube-scheduler does.
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments, stringify } from 'yaml';
import { type BerthRun, berthCommand, startBerth } from './support/berth.ts';
import { useCluster } from './support/cluster.ts';
import { Helm, writeValues } from './support/helm.ts';
import { podScheduledCondition } from './support/kubectl.ts';
import { kwokNode, type Manifest, namespace, pod, toYaml } from './support/manifests.ts';
import { GiveUp, waitFor } from './support/wait.ts';

const ns = 'profiles';

/**
 * berth-a: kube's default profile (LeastAllocated). berth-b: only NodeResourcesFit scores,
 * MostAllocated, and every pod must land in pool=batch (NodeAffinity addedAffinity).
 */
const profiles = [
  { schedulerName: 'berth-a' },
  {
    schedulerName: 'berth-b',
    plugins: { score: { disabled: [{ name: '*' }], enabled: [{ name: 'NodeResourcesFit' }] } },
    pluginConfig: [
      { name: 'NodeResourcesFit', args: { scoringStrategy: { type: 'MostAllocated' } } },
      {
        name: 'NodeAffinity',
        args: {
          addedAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [
                { matchExpressions: [{ key: 'pool', operator: 'In', values: ['batch'] }] },
              ],
            },
          },
        },
      },
    ],
  },
];

/**
 * busy (pool=batch, 2 cpu used), idle (pool=batch, empty), web (pool=web, 3 cpu used):
 * LeastAllocated prefers idle; MostAllocated would prefer web, but the added affinity keeps
 * berth-b's pods in the batch pool, so they go to busy. No two nodes tie for any pod, in
 * whatever order the pods are scheduled (with 1 cpu on busy, busy and idle tie for berth-b
 * once both berth-a pods are on idle: kube-scheduler then picks either).
 */
function cluster(): Manifest[] {
  const node = (name: string, pool: string) =>
    kwokNode(name, { cpu: '4', memory: '8Gi', labels: { pool } });
  const filler = (node: string, cpu: string, memory: string): Manifest => {
    const p = pod(`filler-${node}`, ns, { cpu, memory, schedulerName: null });
    return { ...p, spec: { ...(p.spec as Manifest), nodeName: node } };
  };
  return [
    namespace(ns),
    node('busy', 'batch'),
    node('idle', 'batch'),
    node('web', 'web'),
    filler('busy', '2', '2Gi'),
    filler('web', '3', '3Gi'),
  ];
}

/** Two pods for each profile and one naming neither, all labelled `round`. */
function workload(round: string): Manifest[] {
  const make = (name: string, schedulerName: string) =>
    pod(`${round}-${name}`, ns, { cpu: '500m', memory: '512Mi', schedulerName, labels: { round } });
  return [
    make('a-0', 'berth-a'),
    make('a-1', 'berth-a'),
    make('b-0', 'berth-b'),
    make('b-1', 'berth-b'),
    make('nobody', 'berth-c'),
  ];
}

/** Node of each scheduled pod of `round`, by name without the round prefix. */
type Placements = Record<string, string | undefined>;

describe('KubeSchedulerConfiguration profiles on a real control plane', () => {
  const c = useCluster('profiles');
  let configFile: string;
  let berth: BerthRun | undefined;
  let kubePlacements: Placements;
  let berthPlacements: Placements;
  const record = () => join(c().dir, 'profiles.record.jsonl');

  async function placed(round: string, runner: { checkAlive(): void }): Promise<Placements> {
    const k = c().kubectl;
    await waitFor(`${round}: the four profile pods bound`, async () => {
      runner.checkAlive();
      const ours = (await k.pods(ns)).filter((p) => p.metadata.labels?.round === round);
      const unbound = ours.filter((p) => !p.spec.nodeName && !p.metadata.name.endsWith('nobody'));
      return {
        ok: ours.length === 5 && unbound.length === 0,
        seen: unbound.map((p) => p.metadata.name),
      };
    });
    const pods = (await k.pods(ns)).filter((p) => p.metadata.labels?.round === round);
    return Object.fromEntries(
      pods.map((p) => [p.metadata.name.slice(round.length + 1), p.spec.nodeName]),
    );
  }

  beforeAll(async () => {
    const cl = c();
    const version = await cl.kubectl.raw<{ gitVersion: string }>('/version');
    // The config file is the chart's ConfigMap, rendered with the two profiles.
    const helm = new Helm(
      join(cl.binDir, 'helm'),
      cl.kubeconfig,
      join(cl.dir, 'helm'),
      version.gitVersion,
    );
    const values = writeValues(cl.dir, 'profiles', {
      replicaCount: 1,
      leaderElection: { leaderElect: false },
      profiles,
    });
    const rendered = await helm.template('sched', ns, [values]);
    expect(rendered.code, rendered.stderr).toBe(0);
    const configMap = parseAllDocuments(rendered.stdout)
      .map((d) => d.toJS() as Manifest | null)
      .find((o) => o?.kind === 'ConfigMap') as { data: Record<string, string> };
    configFile = join(cl.dir, 'chart-config.yaml');
    writeFileSync(configFile, configMap.data['config.yaml'] ?? '');
    await cl.kubectl.apply(toYaml(cluster()));
  });

  afterAll(async () => {
    await berth?.stop('SIGKILL');
  });

  it('the chart renders a KubeSchedulerConfiguration and a BerthConfiguration', () => {
    const [kube, own] = parseAllDocuments(configMapText()).map((d) => d.toJS() as Manifest);
    expect(kube).toMatchObject({
      apiVersion: 'kubescheduler.config.k8s.io/v1',
      kind: 'KubeSchedulerConfiguration',
      profiles,
      leaderElection: { leaderElect: false },
    });
    expect(own).toMatchObject({ apiVersion: 'berth/v1', kind: 'BerthConfiguration' });
  });

  it('kube-scheduler 1.34 accepts the same file and places a round (the oracle)', async () => {
    const cl = c();
    // kube-scheduler reads the first document only; it needs the kubeconfig in the file.
    const docs = parseAllDocuments(configMapText()).map((d) => d.toJS() as Manifest);
    const kubeFile = join(cl.dir, 'kube-scheduler-profiles.yaml');
    const first = { ...docs[0], clientConnection: { kubeconfig: cl.kubeconfig } };
    writeFileSync(
      kubeFile,
      [stringify(first), ...docs.slice(1).map((d) => stringify(d))].join('---\n'),
    );
    const ks = startKubeScheduler(
      join(cl.binDir, 'kube-scheduler'),
      kubeFile,
      join(cl.dir, 'kube-scheduler-profiles.log'),
    );
    try {
      await cl.kubectl.create(toYaml(workload('kube')));
      kubePlacements = await placed('kube', ks);
    } finally {
      await ks.stop();
    }
    await cl.kubectl.run([
      'delete',
      'pods',
      '-n',
      ns,
      '-l',
      'round=kube',
      '--grace-period=0',
      '--force',
      '--wait=true',
    ]);
  });

  it('one berth schedules both profiles’ pods, each as its profile says', async () => {
    const cl = c();
    berth = await startBerth(cl, {
      name: 'berth-profiles',
      args: ['--config', configFile, '--record', record()],
    });
    expect(berth.logs().find((e) => e.msg === 'starting')?.profiles).toEqual([
      'berth-a',
      'berth-b',
    ]);
    await cl.kubectl.create(toYaml(workload('berth')));
    berthPlacements = await placed('berth', berth);
    // LeastAllocated: the empty node; MostAllocated within pool=batch: the busy one.
    expect(berthPlacements).toEqual({
      'a-0': 'idle',
      'a-1': 'idle',
      'b-0': 'busy',
      'b-1': 'busy',
      nobody: undefined,
    });
  });

  it('places every pod where kube-scheduler placed its twin', () => {
    expect(berthPlacements).toEqual(kubePlacements);
  });

  it('leaves the pod naming neither profile pending and untouched', async () => {
    const k = c().kubectl;
    const p = await k.pod(ns, 'berth-nobody');
    expect(p?.spec.nodeName).toBeUndefined();
    expect(podScheduledCondition(p)).toBeUndefined();
    expect((await k.events(ns)).filter((e) => e.regarding?.name === 'berth-nobody')).toEqual([]);
  });

  it('records the profiles in the log header, and replay reproduces the decisions', async () => {
    const exit = await berth?.stop('SIGTERM');
    expect(exit, berth?.tail()).toEqual({ code: 0, signal: null });
    const r = await berthCommand(['replay', record(), '--json', '--allow-unsealed']);
    expect(r.code, r.stderr).toBe(0);
    const summary = JSON.parse(r.stdout) as { placements: Record<string, string> };
    expect(summary.placements).toEqual({
      [`${ns}/berth-a-0`]: 'idle',
      [`${ns}/berth-a-1`]: 'idle',
      [`${ns}/berth-b-0`]: 'busy',
      [`${ns}/berth-b-1`]: 'busy',
    });
  });

  it('refuses an unknown plugin in one line naming its path, exit 1', async () => {
    const bad = join(c().dir, 'bad-profiles.yaml');
    const broken = structuredClone(profiles) as Manifest[];
    (broken[1] as Manifest).plugins = { score: { enabled: [{ name: 'Foo' }] } };
    writeFileSync(
      bad,
      stringify({
        apiVersion: 'kubescheduler.config.k8s.io/v1',
        kind: 'KubeSchedulerConfiguration',
        profiles: broken,
      }),
    );
    const r = await berthCommand(['run', '--kubeconfig', c().kubeconfig, '--config', bad]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^berth: config profiles\[1\]\.plugins\.score\.enabled\[0\]\.name: unknown plugin "Foo"/,
    );
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
  });

  function configMapText(): string {
    return readFileSync(configFile, 'utf8');
  }
});

/** kube-scheduler started with `config`, its output in `log`; stop() ends it (SIGKILL after 5 s). */
function startKubeScheduler(bin: string, config: string, log: string) {
  const child: ChildProcess = spawn(bin, ['--config', config, '--secure-port=0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out = createWriteStream(log);
  child.stdout?.pipe(out);
  child.stderr?.pipe(out);
  let exited = false;
  const done = new Promise<void>((resolve) => child.on('close', () => resolve()));
  child.on('close', () => {
    exited = true;
  });
  return {
    checkAlive(): void {
      if (exited) throw new GiveUp(`kube-scheduler exited; see ${log}`);
    },
    async stop(): Promise<void> {
      if (exited) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await done;
      clearTimeout(timer);
    },
  };
}
