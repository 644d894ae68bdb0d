// A batch Job as a gang through Kubernetes 1.37.2's own Workload API: kube's Job controller (WorkloadWithJob) makes the Workload and PodGroup, berth places the pods; kube-scheduler beside it as the oracle.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Api } from './support/api.ts';
import { useCluster } from './support/cluster.ts';
import { toYaml } from './support/manifests.ts';
import { poolNode, poolNodes, scheduled } from './support/scenario-gang.ts';
import {
  completionIndexLabel,
  indexedJob,
  type JobPodGroupJson,
  type JobPodJson,
  jobGangApiserverFlags,
  jobGangGates,
  jobPods,
  podGroups,
  type WorkloadJson,
  workloads,
} from './support/scenario-job.ts';
import {
  comparable,
  conditionWith,
  type GroupConditionJson,
  holdNoneBound,
  initiallyScheduled,
  sideBySide,
  useSideBySide,
  type Who,
} from './support/scenario-workload.ts';
import { waitFor } from './support/wait.ts';

function log(line: string): void {
  process.stderr.write(`[e2e] job-gang: ${line}\n`);
}

/** Each scheduler runs the same Jobs in its own namespace, on its own node pools. */
const schedulers = sideBySide('jg');

/** How long "nothing is bound" must hold (polled every 250 ms). */
const holdMs = 3_000;

/** The Job shape of every scenario: Indexed, 3 pods of 1500m, a gang of 3. */
const size = 3;
const cpu = '1500m';

/** What one scheduler did with one Job: completion indexes bound, and their nodes (no ns prefix). */
interface Outcome {
  bound: string[];
  nodes: string[];
}

describe('a batch Job as a gang (Job controller, WorkloadWithJob) on a real 1.37.2 control plane: berth beside kube-scheduler', () => {
  const c = useCluster('job-gang', {
    apiserverFlags: jobGangApiserverFlags,
    controllers: ['job-controller'],
    controllerManagerFlags: [jobGangGates],
  });
  const both = useSideBySide(c, schedulers, () => ({ name: 'berth-job-gang' }));
  const conditions = new Map<string, GroupConditionJson | undefined>();
  const outcomes = new Map<string, Outcome>();
  let api: Api;
  beforeAll(() => {
    api = both.api();
  });
  const alive = both.alive;

  /** The Job's uid, once the API server has it. */
  async function jobUid(ns: string, job: string): Promise<string> {
    const j = await api.ok<{ metadata: { uid: string } }>(
      'GET',
      `/apis/batch/v1/namespaces/${ns}/jobs/${job}`,
    );
    return j.metadata.uid;
  }

  /** Waits for the Workload and the PodGroup the Job controller made for Job `job`. */
  async function madeFor(ns: string, job: string, uid: string) {
    const owned = (refs: { uid: string; controller?: boolean }[] | undefined) =>
      refs?.some((r) => r.uid === uid && r.controller === true) === true;
    return waitFor(`${ns}/${job}: a Workload and a PodGroup controlled by the Job`, async () => {
      const wl = (await workloads(api, ns)).filter((w) => owned(w.metadata.ownerReferences));
      const pg = (await podGroups(api, ns)).filter((g) => owned(g.metadata.ownerReferences));
      return {
        ok: wl.length === 1 && pg.length === 1,
        seen: { workload: wl[0] as WorkloadJson, podGroup: pg[0] as JobPodGroupJson },
      };
    });
  }

  /** Waits until all `size` pods of Job `job` are bound; returns them by index. */
  async function allBound(ns: string, job: string): Promise<JobPodJson[]> {
    return waitFor(`${ns}/${job}: ${size} pods bound`, async () => {
      alive();
      const ps = await jobPods(api, ns, job);
      const bound = ps.filter((p) => p.spec.nodeName !== undefined);
      return { ok: bound.length === size && ps.length === size, seen: ps };
    });
  }

  /** Waits for PodGroup `group`'s PodGroupInitiallyScheduled to have `status`; returns it. */
  const conditionOf = (ns: string, group: string, status: 'True' | 'False') =>
    conditionWith(api, ns, group, status, alive);

  /** Polls Job `job`'s pods for `holdMs`: fails at the first poll that sees one bound. */
  const noneBound = (ns: string, job: string) =>
    holdNoneBound(`${ns}/${job}`, () => jobPods(api, ns, job), alive, holdMs);

  /** Keeps scheduler `who`'s condition and placement for `scenario`, for the comparison. */
  function keep(
    who: Who,
    scenario: string,
    ns: string,
    cond: GroupConditionJson | undefined,
    ps?: JobPodJson[],
  ) {
    conditions.set(`${who} ${scenario}`, cond);
    log(`${who} ${scenario}: ${JSON.stringify(cond)}`);
    if (ps === undefined) return;
    const bound = ps.filter((p) => p.spec.nodeName !== undefined);
    const o: Outcome = {
      bound: bound.map((p) => p.metadata.labels?.[completionIndexLabel] ?? '?'),
      nodes: bound.map((p) => (p.spec.nodeName as string).replace(`${ns}-`, '')).sort(),
    };
    outcomes.set(`${who} ${scenario}`, o);
    log(`${who} ${scenario}: ${JSON.stringify(o)}`);
  }

  /**
   * The pods name the PodGroup in spec.schedulingGroup and are owned by the Job alone: the
   * Job controller adds a PodGroup owner reference to its pod template, but 1.37.2's
   * GetPodFromTemplate builds the pod's metadata anew and keeps only the controller's.
   */
  function expectMembers(ps: JobPodJson[], pg: JobPodGroupJson, jobUidValue: string) {
    expect(ps.map((p) => p.metadata.labels?.[completionIndexLabel])).toEqual(['0', '1', '2']);
    for (const p of ps) {
      expect(p.spec.schedulingGroup, p.metadata.name).toEqual({ podGroupName: pg.metadata.name });
      expect(p.metadata.ownerReferences, p.metadata.name).toEqual([
        expect.objectContaining({ kind: 'Job', uid: jobUidValue, controller: true }),
      ]);
    }
  }

  it('kube-controller-manager runs the job controller, and kube grants it workloads and podgroups', async () => {
    expect(Object.keys(c().pids())).toContain('kube-controller-manager');
    const role = await api.ok<{ rules: { apiGroups?: string[]; resources?: string[] }[] }>(
      'GET',
      '/apis/rbac.authorization.k8s.io/v1/clusterroles/system:controller:job-controller',
    );
    const scheduling = role.rules.find((r) => r.apiGroups?.includes('scheduling.k8s.io'));
    expect([...(scheduling?.resources ?? [])].sort()).toEqual(['podgroups', 'workloads']);
  });

  for (const s of schedulers) {
    /** Job `name` on pool `pool`: a gang of `minCount`, or no spec.scheduling with null. */
    const job = (name: string, pool: string, minCount: number | null = size) =>
      indexedJob(s.ns, name, {
        size,
        ...(minCount === null ? {} : { minCount }),
        cpu,
        pool: `${s.ns}-${pool}`,
        schedulerName: s.schedulerName,
      });

    it(`${s.who}: an Indexed Job of 3 with a gang of 3 on room for 3 — Workload and PodGroup made, all 3 bound, PodGroupInitiallyScheduled=True`, async () => {
      const k = c().kubectl;
      await k.apply(toYaml(poolNodes(`${s.ns}-fit`, 3, '2')));
      await k.create(toYaml([job('fits', 'fit')]));
      const uid = await jobUid(s.ns, 'fits');
      const { workload, podGroup } = await madeFor(s.ns, 'fits', uid);
      const jobOwner = {
        apiVersion: 'batch/v1',
        kind: 'Job',
        name: 'fits',
        uid,
        controller: true,
        blockOwnerDeletion: true,
      };
      // Workload <job>-<hash of the Job's uid>, one template <job>-pgt-0 with the Job's policy.
      expect(workload.metadata.name).toMatch(/^fits-[a-z0-9]+$/);
      expect(workload.metadata.ownerReferences).toEqual([jobOwner]);
      expect(workload.spec.controllerRef).toEqual({ apiGroup: 'batch', kind: 'Job', name: 'fits' });
      expect(workload.spec.podGroupTemplates).toMatchObject([
        { name: 'fits-pgt-0', schedulingPolicy: { gang: { minCount: 3 } } },
      ]);
      // PodGroup <workload>-<template>-<hash>, controlled by the Job, owned by the Workload too.
      const pg = podGroup.metadata.name;
      expect(pg.startsWith(`${workload.metadata.name}-fits-pgt-0-`), pg).toBe(true);
      expect(podGroup.metadata.ownerReferences).toEqual([
        jobOwner,
        {
          apiVersion: 'scheduling.k8s.io/v1beta1',
          kind: 'Workload',
          name: workload.metadata.name,
          uid: workload.metadata.uid,
        },
      ]);
      expect(podGroup.spec.workloadRef).toEqual({
        workloadName: workload.metadata.name,
        templateName: 'fits-pgt-0',
      });
      expect(podGroup.spec.schedulingPolicy).toEqual({ gang: { minCount: 3 } });

      const ps = await allBound(s.ns, 'fits');
      expectMembers(ps, podGroup, uid);
      expect(new Set(ps.map((p) => p.spec.nodeName)).size).toBe(3);
      const cond = await conditionOf(s.ns, pg, 'True');
      expect(cond).toMatchObject({ reason: 'Scheduled', message: '' });
      keep(s.who, 'fits', s.ns, cond, ps);
    });

    it(`${s.who}: the same Job on room for 2 — nothing bound, PodGroupInitiallyScheduled=False; a 3rd node arrives and all 3 bind`, async () => {
      const k = c().kubectl;
      await k.apply(toYaml(poolNodes(`${s.ns}-grow`, 2, '2')));
      await k.create(toYaml([job('grow', 'grow')]));
      const uid = await jobUid(s.ns, 'grow');
      const { podGroup } = await madeFor(s.ns, 'grow', uid);
      const pg = podGroup.metadata.name;
      const before = await conditionOf(s.ns, pg, 'False');
      expect(before.reason).toBe('Unschedulable');
      // kube's shape: minCount (N) cannot be satisfied: S scheduled, R remaining[, preemption].
      expect(before.message).toMatch(
        /^minCount \(3\) cannot be satisfied: 2 scheduled, 0 remaining/,
      );
      keep(s.who, 'grow-before', s.ns, before);
      const waiting = await noneBound(s.ns, 'grow');
      expect(waiting).toHaveLength(3);
      expectMembers(waiting, podGroup, uid);
      for (const p of waiting) {
        expect(scheduled(p)?.status, p.metadata.name).toBe('False');
        log(`${s.who} ${p.metadata.name}: ${scheduled(p)?.message}`);
      }

      await k.apply(toYaml([poolNode(`${s.ns}-grow`, `${s.ns}-grow-2`, '2')]));
      const ps = await allBound(s.ns, 'grow');
      expect(new Set(ps.map((p) => p.spec.nodeName)).size).toBe(3);
      keep(s.who, 'grow-after', s.ns, await conditionOf(s.ns, pg, 'True'), ps);
    });

    it(`${s.who}: the Job without spec.scheduling gets a basic Workload and PodGroup — its pods bind one by one on a node with room for one, and the Job completes`, async () => {
      const k = c().kubectl;
      await k.apply(toYaml(poolNodes(`${s.ns}-plain`, 1, '2')));
      await k.create(toYaml([job('plain', 'plain', null)]));
      const uid = await jobUid(s.ns, 'plain');
      const { workload, podGroup } = await madeFor(s.ns, 'plain', uid);
      expect(workload.spec.podGroupTemplates).toMatchObject([
        { name: 'plain-pgt-0', schedulingPolicy: { basic: {} } },
      ]);
      expect(podGroup.spec.schedulingPolicy).toEqual({ basic: {} });
      // Room for one pod at a time: kwok completes a Job's pod once it runs, freeing it.
      const succeeded = await waitFor(`${s.ns}/plain: the Job succeeded 3 times`, async () => {
        alive();
        const j = await api.ok<{ status?: { succeeded?: number; completedIndexes?: string } }>(
          'GET',
          `/apis/batch/v1/namespaces/${s.ns}/jobs/plain`,
        );
        return { ok: j.status?.succeeded === size, seen: j.status };
      });
      log(
        `${s.who} plain: succeeded ${succeeded?.succeeded}, indexes ${succeeded?.completedIndexes}`,
      );
      const ps = await jobPods(api, s.ns, 'plain');
      expectMembers(ps, podGroup, uid);
      keep(s.who, 'plain', s.ns, await initiallyScheduled(api, s.ns, podGroup.metadata.name), ps);
    });
  }

  it("berth binds the same pods on the same nodes as kube-scheduler, with kube's conditions", () => {
    for (const scenario of ['fits', 'grow-after']) {
      const [b, k] = schedulers.map((s) => outcomes.get(`${s.who} ${scenario}`));
      expect(b, scenario).toEqual({ bound: ['0', '1', '2'], nodes: expect.any(Array) });
      expect(b, scenario).toEqual(k);
    }
    // A basic group: one node with room for one pod took all three, one after the other.
    for (const s of schedulers)
      expect(outcomes.get(`${s.who} plain`), s.who).toEqual({
        bound: ['0', '1', '2'],
        nodes: ['plain-0', 'plain-0', 'plain-0'],
      });
    for (const scenario of ['fits', 'grow-before', 'grow-after', 'plain'])
      expect(comparable(conditions.get(`berth ${scenario}`)), scenario).toEqual(
        comparable(conditions.get(`kube-scheduler ${scenario}`)),
      );
  });

  it("berth, under the chart's RBAC (no workloads), was never refused a request", () => {
    alive();
    expect(both.berth().stdout).not.toMatch(/forbidden/i);
  });
});
