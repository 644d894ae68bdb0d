// One end-to-end DRA run (kube scheduler_perf's SchedulingWithResourceClaimTemplate): claims made, a scheduler starts, the clock stops when all its work is seen.
import type { Api } from '../../test/e2e/support/api.ts';
import type { PodJson } from '../../test/e2e/support/kubectl.ts';
import { kwokNode, namespace } from '../../test/e2e/support/manifests.ts';
import { delay, waitFor } from '../../test/e2e/support/wait.ts';
import * as shape from '../support/dra-shape.ts';
import { latency } from '../support/measure.ts';
import { type DoneWatch, watchBound, watchDone, watchScheduled } from './bindings.ts';
import { benchNamespace, createAll, upWithNodes } from './cluster-setup.ts';
import { type HistogramQuantiles, histogramQuantiles } from './histogram.ts';
import { type SchedulerCost, sampleCpu, schedulerCost } from './proc-stats.ts';
import {
  type ClientLimits,
  podSchedulerName,
  type SchedulerName,
  startScheduler,
} from './schedulers.ts';
import { type WriteCounts, writesAuditPolicy, writesSince } from './write-audit.ts';

/** The size of a DRA run: nodes with a slice of 10 devices each, init claims, measured pods. */
export interface DraScenario {
  name: string;
  nodes: number;
  /** Claims allocated before the run (kube's initClaims), first device first. */
  initClaims: number;
  /** Measured pods, each with a claim from the template. */
  pods: number;
  limits: ClientLimits;
  /** kube-controller-manager's client QPS (it makes a claim and a pod status write per pod). */
  controllerQps: number;
  timeoutMs: number;
}

/** What one DRA run measured (times in seconds from the scheduler's spawn). */
export interface DraResult extends SchedulerCost {
  scheduler: SchedulerName;
  pods: number;
  firstBindS: number;
  lastBindS: number;
  /** When the last claim was seen allocated and reserved for its pod. */
  lastClaimS: number;
  /** When the last Scheduled Event was seen. */
  lastEventS: number;
  /** When every pod was bound, its claim written and its Event seen. */
  allDoneS: number;
  /** Pods ÷ all done. */
  podsPerSecFromStart: number;
  /** (Pods − 1) ÷ (all done − first bind): start-up left out. */
  podsPerSecAfterFirstBind: number;
  /** Per pod, its Scheduled Event seen − its bind seen, in ms (reports trail binds). */
  eventLagMs: { p50: number; p99: number };
  /** How long the control plane and the workload took to set up, before the scheduler. */
  setupS: number;
  /** The scheduler's own scheduler_scheduling_attempt_duration_seconds{result="scheduled"}. */
  attemptMs: HistogramQuantiles;
  watchRestarts: number;
  /** Writes in the bench namespace from the scheduler's spawn until all was done, per client. */
  writes: WriteCounts;
}

const round = (x: number, digits = 3) => +x.toFixed(digits);
const initNamespace = 'init';
const draPath = '/apis/resource.k8s.io/v1';
const claimsPath = (ns: string) => `${draPath}/namespaces/${ns}/resourceclaims`;

interface ClaimJson {
  metadata: {
    name: string;
    resourceVersion?: string;
    ownerReferences?: { kind: string; name: string; uid: string; controller?: boolean }[];
  };
  status?: {
    allocation?: { devices?: { results?: { pool: string; device: string }[] } };
    reservedFor?: { resource: string; name: string; uid: string }[];
  };
}

/** The owning pod's name once the claim is allocated and reserved for that pod. */
function claimDone(c: ClaimJson): string | undefined {
  const owner = c.metadata.ownerReferences?.find((o) => o.controller === true && o.kind === 'Pod');
  if (owner === undefined || c.status?.allocation === undefined) return undefined;
  return c.status.reservedFor?.some((r) => r.resource === 'pods' && r.uid === owner.uid)
    ? owner.name
    : undefined;
}

/** Slices, the class, allocated init claims, the template and the pods; then the controller's claims. */
async function createWorkload(api: Api, s: DraScenario, scheduler: SchedulerName): Promise<void> {
  await api.ok('POST', '/api/v1/namespaces', namespace(initNamespace));
  await api.ok('POST', `${draPath}/deviceclasses`, shape.draDeviceClass());
  const slices = Array.from({ length: s.nodes }, (_, i) => shape.draSlice(i));
  await createAll(api, `${draPath}/resourceslices`, slices);
  const claims = Array.from({ length: s.initClaims }, (_, c) =>
    shape.draInitClaim(c, initNamespace),
  );
  await createAll(api, claimsPath(initNamespace), claims);
  let next = 0;
  const allocate = async () => {
    for (let c = next++; c < s.initClaims; c = next++)
      await api.ok('PATCH', `${claimsPath(initNamespace)}/test-claim-${c}/status`, {
        status: { allocation: shape.draInitAllocation(c) },
      });
  };
  await Promise.all(Array.from({ length: 48 }, allocate));
  await api.ok(
    'POST',
    `${draPath}/namespaces/${benchNamespace}/resourceclaimtemplates`,
    shape.draClaimTemplate(benchNamespace),
  );
  const pods = Array.from({ length: s.pods }, (_, i) =>
    shape.draPod(`test-dra-${i}`, benchNamespace, podSchedulerName(scheduler)),
  );
  await createAll(api, `/api/v1/namespaces/${benchNamespace}/pods`, pods);
  // The scheduler starts only once the resourceclaim controller has made every pod's claim
  // and named it in the pod's status: both schedulers start from the same state.
  await waitFor(
    `the resourceclaim controller to make ${s.pods} claims`,
    async () => {
      const list = await api.ok<{ items: PodJson[] }>(
        'GET',
        `/api/v1/namespaces/${benchNamespace}/pods`,
      );
      const named = list.items.filter((p) =>
        (
          p.status as { resourceClaimStatuses?: { resourceClaimName?: string }[] } | undefined
        )?.resourceClaimStatuses?.some((r) => r.resourceClaimName !== undefined),
      ).length;
      return { ok: named === s.pods, seen: `${named}/${s.pods} pods name their claim` };
    },
    { timeoutMs: s.timeoutMs, intervalMs: 1_000 },
  );
}

/** Throws unless every device is held by at most one claim, init and measured together. */
async function checkDevices(api: Api, s: DraScenario): Promise<void> {
  const held = new Map<string, string>();
  for (const ns of [initNamespace, benchNamespace]) {
    const list = await api.ok<{ items: ClaimJson[] }>('GET', claimsPath(ns));
    for (const c of list.items)
      for (const r of c.status?.allocation?.devices?.results ?? []) {
        const id = `${r.pool}/${r.device}`;
        const other = held.get(id);
        if (other !== undefined)
          throw new Error(`device ${id} allocated twice: ${other} and ${ns}/${c.metadata.name}`);
        held.set(id, `${ns}/${c.metadata.name}`);
      }
  }
  if (held.size !== s.initClaims + s.pods)
    throw new Error(`${held.size} devices allocated, expected ${s.initClaims + s.pods}`);
}

/** Node `i` as kube's node-with-dra-test-driver.yaml (4 cpu, 32Gi, 110 pods), for kwok. */
const draNode = (i: number) =>
  kwokNode(shape.draNodeName(i), {
    cpu: '4',
    memory: '32Gi',
    pods: 110,
    labels: { 'node-with-dra': 'true' },
  });

/** Runs `s` once for `scheduler` on a fresh control plane with the resourceclaim controller. */
export async function draRun(s: DraScenario, scheduler: SchedulerName): Promise<DraResult> {
  if (s.initClaims + s.pods > s.nodes * shape.devicesPerNode)
    throw new Error(`${s.name}: more claims than the ${s.nodes * shape.devicesPerNode} devices`);
  const setupStart = performance.now();
  const bc = await upWithNodes(`bench-${s.name}-${scheduler}`, s.nodes, {
    node: draNode,
    auditPolicy: writesAuditPolicy(benchNamespace),
    controllers: ['resourceclaim-controller'],
    controllerManagerQps: s.controllerQps,
  });
  let keep = true;
  const watches: DoneWatch[] = [];
  try {
    await createWorkload(bc.api, s, scheduler);
    const [bound, claims, scheduled] = await Promise.all([
      watchBound(bc.api, benchNamespace),
      watchDone<ClaimJson>(bc.api, claimsPath(benchNamespace), claimDone),
      watchScheduled(bc.api, benchNamespace),
    ]);
    watches.push(bound, claims, scheduled);
    const controlPlane = bc.cluster.pids();
    const before = sampleCpu(controlPlane);
    const spawnedAtMs = Date.now();
    const running = await startScheduler(scheduler, bc.cluster, s.limits);
    try {
      const deadline = running.startedAt + s.timeoutMs;
      const all = () => watches.every((w) => w.doneAt.size >= s.pods);
      while (!all()) {
        if (performance.now() > deadline)
          throw new Error(
            `${scheduler}: ${bound.doneAt.size} bound, ${claims.doneAt.size} claims, ` +
              `${scheduled.doneAt.size} Events of ${s.pods} after ${s.timeoutMs / 1000} s (cluster kept in ${bc.cluster.dir})`,
          );
        running.checkAlive();
        await delay(20);
      }
      const cost = schedulerCost(running.pid, controlPlane, before, s.pods);
      const metrics = await running.metrics();
      const writes = writesSince(bc.cluster.auditLog, spawnedAtMs);
      const since = (at: number) => (at - running.startedAt) / 1000;
      const last = (w: DoneWatch) => Math.max(...[...w.doneAt.values()].map(since));
      const donePerPod = [...bound.doneAt.keys()].map((pod) =>
        Math.max(...watches.map((w) => since(w.doneAt.get(pod) ?? Number.POSITIVE_INFINITY))),
      );
      const allDone = Math.max(...donePerPod);
      const firstBind = Math.min(...[...bound.doneAt.values()].map(since));
      const lag = latency(
        [...bound.doneAt].map(([pod, at]) => (scheduled.doneAt.get(pod) ?? Number.NaN) - at),
      );
      await checkDevices(bc.api, s);
      keep = false;
      return {
        scheduler,
        pods: s.pods,
        firstBindS: round(firstBind),
        lastBindS: round(last(bound)),
        lastClaimS: round(last(claims)),
        lastEventS: round(last(scheduled)),
        allDoneS: round(allDone),
        podsPerSecFromStart: round(s.pods / allDone, 1),
        podsPerSecAfterFirstBind: round((s.pods - 1) / (allDone - firstBind), 1),
        eventLagMs: { p50: lag.p50, p99: lag.p99 },
        setupS: round((running.startedAt - setupStart) / 1000, 1),
        attemptMs: histogramQuantiles(metrics, 'scheduler_scheduling_attempt_duration_seconds', {
          result: 'scheduled',
        }),
        ...cost,
        watchRestarts: watches.reduce((n, w) => n + w.restarts, 0),
        writes,
      };
    } finally {
      for (const w of watches) w.stop();
      await running.stop();
    }
  } finally {
    for (const w of watches) w.stop();
    await bc.down(keep || process.env.BERTH_BENCH_KEEP !== undefined);
  }
}
