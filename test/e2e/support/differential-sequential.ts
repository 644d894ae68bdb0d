// Sequential differential runs: pending pods created one at a time, berth's run kept on kube-scheduler's history.
import type { Api } from './api.ts';
import {
  type Outcome,
  type Outcomes,
  type OwnerUids,
  outcomeOf,
  withOwnerUids,
} from './differential.ts';
import type { PodJson } from './kubectl.ts';
import type { Scenario } from './scenarios.ts';
import { waitFor } from './wait.ts';

/** What a sequential run did. */
export interface SequentialRun {
  outcomes: Outcomes;
  /** Pods moved afterwards to where the followed run had them (or removed). */
  corrections: string[];
}

async function settledPod(
  api: Api,
  namespace: string,
  name: string,
  checkAlive: () => void,
  timeoutMs: number,
): Promise<Outcome> {
  return waitFor(
    `${namespace}/${name} bound or marked unschedulable`,
    async () => {
      checkAlive();
      const r = await api.request<PodJson>('GET', `/api/v1/namespaces/${namespace}/pods/${name}`);
      const o = r.status === 200 ? outcomeOf(r.body) : undefined;
      return { ok: o !== undefined, seen: o ?? `HTTP ${r.status}` };
    },
    { timeoutMs, intervalMs: 15 },
  ) as Promise<Outcome>;
}

async function deleteAndWait(api: Api, namespace: string, name: string): Promise<void> {
  const r = await api.deletePod(namespace, name);
  if (r.status !== 200 && r.status !== 404)
    throw new Error(`DELETE pod ${namespace}/${name}: HTTP ${r.status}`);
  await waitFor(
    `${namespace}/${name} gone`,
    async () => {
      const g = await api.request('GET', `/api/v1/namespaces/${namespace}/pods/${name}`);
      return { ok: g.status === 404, seen: `HTTP ${g.status}` };
    },
    { timeoutMs: 30_000, intervalMs: 15 },
  );
}

/**
 * Creates the scenario's pending pods one at a time (the scheduler already running), each
 * once the one before it is bound or marked unschedulable, and returns what the scheduler
 * did with each. So every pod meets one known cluster: an unschedulable pod is deleted once
 * its outcome is read (a later event would otherwise retry it at a moment that depends on
 * timing), and with `follow` (another run's outcomes) each pod is then put where that run
 * had it: deleted if it stayed pending there, else re-created bound to that node. Two
 * correct schedulers differ only where a tie is broken at random, and a pod's labels, not
 * who bound it, are what spreading and affinity count; so both runs see the same history.
 * Watch events of one collection arrive in order, so a scheduler has seen a correction
 * before the next pod.
 */
export async function placeOneByOne(
  api: Api,
  scenario: Scenario,
  uids: OwnerUids,
  checkAlive: () => void,
  follow?: Outcomes,
): Promise<SequentialRun> {
  const ns = scenario.namespace;
  const path = `/api/v1/namespaces/${ns}/pods`;
  const outcomes: Outcomes = {};
  const corrections: string[] = [];
  for (const [i, p] of scenario.pending.entries()) {
    const name = p.metadata.name;
    const pod = withOwnerUids(p, uids);
    await api.ok('POST', path, pod);
    // The first pod also waits for the scheduler to start and list the cluster.
    const o = await settledPod(api, ns, name, checkAlive, i === 0 ? 90_000 : 30_000);
    outcomes[name] = o;
    const target = follow === undefined ? o.node : follow[name]?.node;
    if (target !== undefined && o.node === target) continue;
    await deleteAndWait(api, ns, name);
    if (target === undefined) {
      if (o.node !== undefined) corrections.push(`${name}: unbound from ${o.node}`);
      continue;
    }
    await api.ok('POST', path, { ...pod, spec: { ...pod.spec, nodeName: target } });
    corrections.push(`${name}: ${o.node ?? 'pending'} → ${target}`);
  }
  return { outcomes, corrections };
}
