// Kubernetes' own gangs (scheduling.k8s.io/v1beta1 PodGroups, GenericWorkload) on a real 1.37.2 control plane: berth beside kube-scheduler as the oracle.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api } from './support/api.ts';
import { type BerthRun, berthCommand, startBerth } from './support/berth.ts';
import { useCluster } from './support/cluster.ts';
import { readRecord, recordEvents } from './support/invariants.ts';
import type { PodJson } from './support/kubectl.ts';
import { namespace, toYaml } from './support/manifests.ts';
import { poolNode, poolNodes, scheduled } from './support/scenario-gang.ts';
import {
  comparable,
  conditionWith,
  coreGroupPods,
  coreMembers,
  corePodGroup,
  type GroupConditionJson,
  holdNoneBound,
  sideBySide,
  useSideBySide,
  type Who,
  workloadApiFlags,
} from './support/scenario-workload.ts';
import { delay, waitFor } from './support/wait.ts';

function log(line: string): void {
  process.stderr.write(`[e2e] workload-gang: ${line}\n`);
}

/** Each scheduler runs the same scenarios in its own namespace, on its own node pools. */
const schedulers = sideBySide('wl');

/** How long "nothing is bound" must hold (polled every 250 ms). */
const holdMs = 3_000;

/**
 * `message` without what depends on each scheduler's own node pools: a `0/N nodes are
 * available: …` message becomes its reasons other than the node-selector one (the nodes of
 * the other scheduler's pools); any other message is kept whole.
 */
function withoutPoolCounts(message: string | undefined): string | string[] | undefined {
  const m = message?.match(/^0\/\d+ nodes are available: (.*)\.$/);
  if (m === null || m === undefined) return message;
  return (m[1] as string)
    .split(', ')
    .filter((r) => !r.endsWith("node(s) didn't match Pod's node affinity/selector"));
}

describe("Kubernetes' own gangs (scheduling.k8s.io/v1beta1) on a real 1.37.2 control plane, berth and kube-scheduler side by side", () => {
  const c = useCluster('workload-gang', { apiserverFlags: workloadApiFlags });
  let record = '';
  const both = useSideBySide(c, schedulers, () => {
    record = join(c().dir, 'workload-gang.record.jsonl');
    return { name: 'berth-workload', args: ['--record', record] };
  });
  const conditions = new Map<string, GroupConditionJson | undefined>();
  let api: Api;
  let berth: BerthRun;
  /** Each member's PodScheduled message while the gang of 4 waits, by `<who> <pod>`. */
  const memberMessages = new Map<string, string | undefined>();
  beforeAll(() => {
    api = both.api();
    berth = both.berth();
  });
  const alive = both.alive;

  /** Waits until all `count` members of `group` are bound; returns them. */
  async function allBound(ns: string, group: string, count: number): Promise<PodJson[]> {
    return waitFor(`${ns}/${group}: ${count} members bound`, async () => {
      alive();
      const ps = await coreGroupPods(api, ns, group);
      const bound = ps.filter((p) => p.spec.nodeName !== undefined);
      return { ok: bound.length === count, seen: bound };
    });
  }

  /** Waits for `group`'s condition to have `status`; returns it. */
  const conditionOf = (ns: string, group: string, status: 'True' | 'False') =>
    conditionWith(api, ns, group, status, alive);

  /** Polls `group` for `holdMs`: fails at the first poll that sees a member bound. */
  const noneBound = (ns: string, group: string) =>
    holdNoneBound(`${ns}/${group}`, () => coreGroupPods(api, ns, group), alive, holdMs);

  /** Records scheduler `who`'s condition of `group` for the comparison. */
  function keep(who: Who, group: string, cond: GroupConditionJson | undefined): void {
    conditions.set(`${who} ${group}`, cond);
    log(`${who} ${group}: ${JSON.stringify(cond)}`);
  }

  for (const s of schedulers) {
    const opts = (pool: string) => ({
      pool: `${s.ns}-${pool}`,
      cpu: '1500m',
      schedulerName: s.schedulerName,
    });

    it(`${s.who}: a gang of 2 on room for 2 is bound whole, PodGroupInitiallyScheduled=True`, async () => {
      const k = c().kubectl;
      await k.apply(toYaml([...poolNodes(`${s.ns}-fit`, 2, '2'), corePodGroup(s.ns, 'fits', 2)]));
      await k.create(toYaml(coreMembers(s.ns, 'fits', [0, 1], opts('fit'))));
      const ps = await allBound(s.ns, 'fits', 2);
      expect(new Set(ps.map((p) => p.spec.nodeName)).size).toBe(2);
      const cond = await conditionOf(s.ns, 'fits', 'True');
      expect(cond.reason).toBe('Scheduled');
      keep(s.who, 'fits', cond);
    });

    it(`${s.who}: a gang of 4 on room for 3 has no member bound, PodGroupInitiallyScheduled=False`, async () => {
      const k = c().kubectl;
      await k.apply(toYaml([...poolNodes(`${s.ns}-grow`, 3, '2'), corePodGroup(s.ns, 'grow', 4)]));
      await k.create(toYaml(coreMembers(s.ns, 'grow', [0, 1, 2, 3], opts('grow'))));
      const cond = await conditionOf(s.ns, 'grow', 'False');
      expect(cond.reason).toBe('Unschedulable');
      keep(s.who, 'grow-before', cond);
      const ps = await noneBound(s.ns, 'grow');
      for (const p of ps) {
        expect(scheduled(p)?.status, p.metadata.name).toBe('False');
        log(`${s.who} ${p.metadata.name}: ${scheduled(p)?.message}`);
        memberMessages.set(`${s.who} ${p.metadata.name}`, scheduled(p)?.message);
      }
    });

    it(`${s.who}: a 4th node arrives — the gang is bound whole, PodGroupInitiallyScheduled=True`, async () => {
      await c().kubectl.apply(toYaml([poolNode(`${s.ns}-grow`, `${s.ns}-grow-3`, '2')]));
      const ps = await allBound(s.ns, 'grow', 4);
      expect(new Set(ps.map((p) => p.spec.nodeName)).size).toBe(4);
      keep(s.who, 'grow-after', await conditionOf(s.ns, 'grow', 'True'));
    });
  }

  it("the members' PodScheduled messages equal kube-scheduler's (the node pools' own counts aside)", () => {
    for (const member of ['grow-0', 'grow-1', 'grow-2', 'grow-3']) {
      const [b, k] = (['berth', 'kube-scheduler'] as const).map((who) =>
        withoutPoolCounts(memberMessages.get(`${who} ${member}`)),
      );
      expect(b, member).toEqual(k);
    }
  });

  it("berth's conditions equal kube-scheduler's: status, reason, message and observedGeneration", () => {
    for (const group of ['fits', 'grow-before', 'grow-after'])
      expect(comparable(conditions.get(`berth ${group}`)), group).toEqual(
        comparable(conditions.get(`kube-scheduler ${group}`)),
      );
  });

  it('the record holds the PodGroups; berth replay reproduces every recorded decision', async () => {
    const exit = await berth.stop('SIGTERM');
    expect(exit, berth.tail()).toEqual({ code: 0, signal: null });
    const lines = readRecord(record);
    const groups = recordEvents(lines, 'ObjectUpserted')
      .filter((l) => l.event?.kind === 'CorePodGroup')
      .map(
        (l) => (l.event?.object as { metadata?: { name?: string } } | undefined)?.metadata?.name,
      );
    expect(new Set(groups)).toEqual(new Set(['fits', 'grow']));
    const r = await berthCommand(['replay', record, '--json', '--allow-unsealed']);
    expect(r.code, r.stderr).toBe(0);
    const summary = JSON.parse(r.stdout) as { decisionDigest: string };
    expect(summary.decisionDigest).toBe(lines.at(-1)?.digest);
  });
});

describe('the capability check: an API server that keeps spec.schedulingGroup but does not serve scheduling.k8s.io/v1beta1', () => {
  // The gate alone keeps the pod field; without --runtime-config the beta API is not served.
  const c = useCluster('workload-noapi', {
    apiserverFlags: ['--feature-gates=GenericWorkload=true'],
  });
  let berth: BerthRun;
  let api: Api;
  const ns = 'wl-noapi';

  beforeAll(async () => {
    api = new Api(c().kubeconfig);
    await c().kubectl.apply(toYaml([namespace(ns), ...poolNodes(`${ns}-pool`, 1, '4')]));
    berth = await startBerth(c(), { name: 'berth-noapi' });
  });

  afterAll(async () => {
    await berth?.stop('SIGKILL');
    api?.close();
  });

  it('keeps a member pending with a reason naming the missing API, and berth keeps running', async () => {
    const opts = { pool: `${ns}-pool`, cpu: '100m', schedulerName: 'berth' };
    await c().kubectl.create(toYaml(coreMembers(ns, 'train', [0], opts)));
    const [p] = await coreGroupPods(api, ns, 'train');
    expect(p?.spec.schedulingGroup).toEqual({ podGroupName: 'train' });
    const message =
      'pod group wl-noapi/train (scheduling.k8s.io): the PodGroup API (scheduling.k8s.io/v1beta1) is not served: the API server does not serve scheduling.k8s.io/v1beta1 podgroups (it needs --runtime-config=scheduling.k8s.io/v1beta1=true and --feature-gates=GenericWorkload=true)';
    await waitFor('train-0: PodScheduled=False naming the missing API', async () => {
      berth.checkAlive();
      const [pod] = await coreGroupPods(api, ns, 'train');
      return { ok: scheduled(pod)?.message === message, seen: scheduled(pod) };
    });
    await delay(holdMs);
    const [after] = await coreGroupPods(api, ns, 'train');
    expect(after?.spec.nodeName).toBeUndefined();
    berth.checkAlive();
  });
});
