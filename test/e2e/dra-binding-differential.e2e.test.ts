// berth against kube-scheduler 1.37.2 on DRA binding conditions: the same pool, claims and driver played for each, side by side; what each writes, emits and does must match.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api } from './support/api.ts';
import { type BerthRun, startBerth } from './support/berth.ts';
import { useCluster } from './support/cluster.ts';
import {
  type BindingSite,
  bindingPod,
  claimReservedFor,
  createBindingSite,
  driverSets,
  failAndWatch,
} from './support/dra-binding.ts';
import { type KubeScheduler, startKubeScheduler } from './support/kube-scheduler.ts';
import { eventsAbout } from './support/kubectl.ts';
import { waitFor } from './support/wait.ts';

const kube: BindingSite = {
  ns: 'bc-kube',
  node: 'bc-kube-node',
  driver: 'kube.fabric.example.com',
  schedulerName: 'default-scheduler',
};
const berthSite: BindingSite = {
  ns: 'bc-berth',
  node: 'bc-berth-node',
  driver: 'berth.fabric.example.com',
  schedulerName: 'berth',
};

describe('DRA binding conditions: berth and kube-scheduler 1.37.2 side by side', () => {
  const cluster = useCluster('dra-binding-differential');
  let admin: Api;
  let berth: BerthRun | undefined;
  let scheduler: KubeScheduler | undefined;

  /** Names of the site made neutral, so the two sites' observations compare. */
  const neutral = (s: BindingSite, text: string) =>
    text.replaceAll(s.node, 'NODE').replaceAll(s.driver, 'DRIVER').replaceAll(s.ns, 'NS');
  const nodeOf = async (s: BindingSite, name: string) =>
    (
      await admin.ok<{ spec: { nodeName?: string } }>(
        'GET',
        `/api/v1/namespaces/${s.ns}/pods/${name}`,
      )
    ).spec.nodeName;

  /** Plays the whole scenario at `s` and returns what the scheduler did, in neutral names. */
  async function observe(s: BindingSite) {
    await admin.createPod(s.ns, bindingPod(s, 'p-ok', 'c-ok'));
    const written = await claimReservedFor(admin, s, 'c-ok', 'p-ok');
    const { allocationTimestamp, ...allocation } = written.status?.allocation ?? {};
    await new Promise((r) => setTimeout(r, 3000));
    const unboundWhileWaiting = (await nodeOf(s, 'p-ok')) === undefined;
    await driverSets(admin, s, 'c-ok', { type: 'Attached', reason: 'Attached', message: 'ok' });
    await waitFor(`p-ok bound at ${s.ns}`, async () => {
      const n = await nodeOf(s, 'p-ok');
      return { ok: n === s.node, seen: n };
    });
    await admin.createPod(s.ns, bindingPod(s, 'p-fail', 'c-fail'));
    await claimReservedFor(admin, s, 'c-fail', 'p-fail');
    const states = (await failAndWatch(admin, s, 'c-fail')).slice(0, 3);
    const failedNotes = await waitFor(`p-fail's FailedScheduling at ${s.ns}`, async () => {
      const events = await cluster().kubectl.events(s.ns);
      const seen = eventsAbout(events, 'p-fail', 'FailedScheduling').map((e) => e.note ?? '');
      return { ok: seen.some((n) => n.includes('deallocation of ResourceClaim completed')), seen };
    });
    const events = await cluster().kubectl.events(s.ns);
    const pending = eventsAbout(events, 'p-ok', 'BindingConditionsPending').map((e) => e.note);
    return {
      allocation: neutral(s, JSON.stringify(allocation)),
      stamped: typeof allocationTimestamp === 'string',
      unboundWhileWaiting,
      pending: pending.map((n) => neutral(s, n ?? '')),
      states,
      preBindError: failedNotes.filter((n) => n.startsWith('running PreBind')),
      failUnbound: (await nodeOf(s, 'p-fail')) === undefined,
    };
  }

  beforeAll(async () => {
    const c = cluster();
    admin = new Api(c.kubeconfig);
    for (const s of [kube, berthSite]) await createBindingSite(admin, s, ['c-ok', 'c-fail']);
    scheduler = startKubeScheduler(c, { name: 'kube-scheduler-bindcond' });
    berth = await startBerth(c, { name: 'berth-bindcond-diff' });
  });

  afterAll(async () => {
    await berth?.stop('SIGKILL', 5_000);
    await scheduler?.stop();
    admin?.close();
  });

  it('writes the same allocation, emits the same Event and error, and releases the claim the same way', async () => {
    const [fromKube, fromBerth] = await Promise.all([observe(kube), observe(berthSite)]);
    expect(fromKube.preBindError).toEqual([
      'running PreBind plugin "DynamicResources": device binding failed: claim=c-fail, reason=NoPort, message="no free fabric port"',
    ]);
    expect(fromBerth).toEqual(fromKube);
  }, 180_000);
});
