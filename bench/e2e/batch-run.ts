// One batch run: nodes and pending pods exist, a scheduler starts, the clock stops when every pod is bound and has its Scheduled Event.

import type { Api } from '../../test/e2e/support/api.ts';
import { namespace, pods } from '../../test/e2e/support/manifests.ts';
import { delay } from '../../test/e2e/support/wait.ts';
import { latency } from '../support/measure.ts';
import { type DoneWatch, watchBound, watchScheduled } from './bindings.ts';
import { type BenchCluster, benchNamespace, createAll, upWithNodes } from './cluster-setup.ts';
import { kubeDefaultPod, staticNode, staticNodeName, zoneOf } from './kube-shapes.ts';
import {
  antiAffinityViolations,
  overcommitments,
  type PlacedNode,
  type PlacedPod,
  spreadViolations,
} from './placement-check.ts';
import { type SchedulerCost, sampleCpu, schedulerCost } from './proc-stats.ts';
import {
  type ClientLimits,
  podSchedulerName,
  type SchedulerName,
  startScheduler,
} from './schedulers.ts';

/** The size and client limits of a batch scenario. */
export interface BatchScenario {
  name: string;
  nodes: number;
  pods: number;
  limits: ClientLimits;
  /** Give up on a run after this long without every pod bound and its Event seen. */
  timeoutMs: number;
  /**
   * scheduler_perf's shape instead of kwok nodes and light pods: static nodes (its base
   * node), pod-default pods (with `antiAffinity`, pod-with-pod-anti-affinity), and
   * `initPods` of them created already bound, in turn over the nodes from the last listed, in
   * namespace `init` (kube's scheduler schedules its init pods before the measured ones; a
   * bind in turn is where they end up on equal empty nodes).
   */
  kubeShape?: { initPods: number; antiAffinity?: boolean; spread?: boolean };
}

const initNamespace = 'init';

/** Makes the scenario's nodes, its init pods (bound) and its pending pods for `scheduler`. */
async function setUp(scenario: BatchScenario, scheduler: SchedulerName): Promise<BenchCluster> {
  const kube = scenario.kubeShape;
  const bc = await upWithNodes(
    `bench-${scenario.name}-${scheduler}`,
    scenario.nodes,
    kube === undefined
      ? {}
      : { node: (i) => staticNode(i, kube.spread ? zoneOf(i) : {}), staticNodes: true },
  );
  try {
    const schedulerName = podSchedulerName(scheduler);
    const podsPath = (ns: string) => `/api/v1/namespaces/${ns}/pods`;
    if (kube === undefined) {
      const manifests = pods('p', benchNamespace, scenario.pods, { schedulerName });
      await createAll(bc.api, podsPath(benchNamespace), manifests);
      return bc;
    }
    await bc.api.ok('POST', '/api/v1/namespaces', namespace(initNamespace));
    // Init pods are the measured pods' shape under anti-affinity, pod-default otherwise (kube's).
    const shape = kube.antiAffinity
      ? { antiAffinityNamespaces: [benchNamespace, initNamespace] }
      : {};
    // From the last node backwards in list order (by name, as the API server lists them):
    // the null binder's turns start at the first.
    const listed = Array.from({ length: scenario.nodes }, (_, i) => staticNodeName(i)).sort();
    const initNode = (i: number) => listed[listed.length - 1 - (i % listed.length)] as string;
    const init = Array.from({ length: kube.initPods }, (_, i) =>
      kubeDefaultPod(`init-${i}`, initNamespace, schedulerName, {
        ...shape,
        nodeName: initNode(i),
      }),
    );
    await createAll(bc.api, podsPath(initNamespace), init);
    const measured = Array.from({ length: scenario.pods }, (_, i) =>
      kubeDefaultPod(`pod-${i}`, benchNamespace, schedulerName, { ...shape, spread: kube.spread }),
    );
    await createAll(bc.api, podsPath(benchNamespace), measured);
    return bc;
  } catch (error) {
    await bc.down(true);
    throw error;
  }
}

/** What one batch run measured (times in seconds from the scheduler's spawn). */
export interface BatchResult extends SchedulerCost {
  scheduler: SchedulerName;
  bound: number;
  /** Pods whose Scheduled Event was seen. */
  events: number;
  firstBindS: number;
  lastBindS: number;
  /** When the last Scheduled Event was seen. */
  lastEventS: number;
  /** When every pod was bound and its Event seen. */
  allDoneS: number;
  /** "Bound": pods ÷ (last bind − spawn). */
  podsPerSecBound: number;
  /** "Bound with Events" (equal work): pods ÷ (all done − spawn). */
  podsPerSecFromStart: number;
  /** Bound with Events, start-up left out: (pods − 1) ÷ (all done − first bind). */
  podsPerSecAfterFirstBind: number;
  /** Per pod, its Scheduled Event seen − its bind seen, in ms. */
  eventLagMs: { p50: number; p99: number };
  /** Bound pods (init ones too) whose placement was checked: no node overcommitted. */
  placementsChecked: number;
  /** Times the bench's own watches were ended by the API server and resumed, and objects relisted. */
  watchRestarts: number;
  relisted: number;
}

const round = (x: number, digits = 3) => +x.toFixed(digits);

/**
 * Waits until `bound` and `scheduled` each hold `pods` keys; throws with both counts after
 * `timeoutMs` from `startedAt`, or when `checkAlive` throws.
 */
export async function waitForBoundAndEvents(
  w: { bound: DoneWatch; scheduled: DoneWatch },
  pods: number,
  run: { startedAt: number; timeoutMs: number; checkAlive(): void; what: string },
): Promise<void> {
  const deadline = run.startedAt + run.timeoutMs;
  while (w.bound.doneAt.size < pods || w.scheduled.doneAt.size < pods) {
    if (performance.now() > deadline)
      throw new Error(
        `${run.what}: ${w.bound.doneAt.size} bound and ${w.scheduled.doneAt.size} Scheduled Events ` +
          `of ${pods} pods after ${run.timeoutMs / 1000} s`,
      );
    run.checkAlive();
    await delay(20);
  }
}

/** The times and rates of a run from the two watches' `doneAt`, relative to `startedAt`. */
export function boundAndEventFigures(
  w: { bound: DoneWatch; scheduled: DoneWatch },
  pods: number,
  startedAt: number,
) {
  const since = (at: number) => (at - startedAt) / 1000;
  const last = (d: DoneWatch) => Math.max(...[...d.doneAt.values()].map(since));
  const firstBind = Math.min(...[...w.bound.doneAt.values()].map(since));
  const lastBind = last(w.bound);
  const allDone = [...w.bound.doneAt].reduce(
    (m, [pod, at]) => Math.max(m, since(Math.max(at, w.scheduled.doneAt.get(pod) ?? Infinity))),
    0,
  );
  const lag = latency(
    [...w.bound.doneAt].map(([pod, at]) => (w.scheduled.doneAt.get(pod) ?? Number.NaN) - at),
  );
  return {
    bound: w.bound.doneAt.size,
    events: w.scheduled.doneAt.size,
    firstBindS: round(firstBind),
    lastBindS: round(lastBind),
    lastEventS: round(last(w.scheduled)),
    allDoneS: round(allDone),
    podsPerSecBound: round(pods / lastBind, 1),
    podsPerSecFromStart: round(pods / allDone, 1),
    podsPerSecAfterFirstBind: round((pods - 1) / (allDone - firstBind), 1),
    eventLagMs: { p50: lag.p50, p99: lag.p99 },
  };
}

/**
 * Lists every node and pod and throws unless the placements hold (no node overcommitted);
 * resolves with the number of bound pods checked.
 */
export async function checkPlacements(api: Api, what: string): Promise<number> {
  const [nodes, pods] = await Promise.all([
    api.ok<{ items: PlacedNode[] }>('GET', '/api/v1/nodes'),
    api.ok<{ items: PlacedPod[] }>('GET', '/api/v1/pods'),
  ]);
  const problems = [
    ...overcommitments(nodes.items, pods.items),
    ...antiAffinityViolations(nodes.items, pods.items),
    ...spreadViolations(nodes.items, pods.items),
  ];
  if (problems.length > 0)
    throw new Error(
      `${what}: ${problems.length} placement problem(s), the run does not count: ${problems.slice(0, 5).join('; ')}`,
    );
  return pods.items.filter((p) => p.spec?.nodeName !== undefined).length;
}

/** Runs `scenario` once for `scheduler` on a fresh control plane. */
export async function batchRun(
  scenario: BatchScenario,
  scheduler: SchedulerName,
): Promise<BatchResult> {
  const bc = await setUp(scenario, scheduler);
  let keep = true;
  const watches: DoneWatch[] = [];
  try {
    const [bound, scheduled] = await Promise.all([
      watchBound(bc.api, benchNamespace),
      watchScheduled(bc.api, benchNamespace),
    ]);
    watches.push(bound, scheduled);
    const controlPlane = bc.pids();
    const before = sampleCpu(controlPlane);
    const running = await startScheduler(scheduler, bc.cluster, scenario.limits);
    try {
      await waitForBoundAndEvents({ bound, scheduled }, scenario.pods, {
        startedAt: running.startedAt,
        timeoutMs: scenario.timeoutMs,
        checkAlive: () => running.checkAlive(),
        what: `${scheduler} (cluster kept in ${bc.cluster.dir})`,
      });
      const cost = schedulerCost(running.pid, controlPlane, before, scenario.pods);
      const figures = boundAndEventFigures({ bound, scheduled }, scenario.pods, running.startedAt);
      const placementsChecked = await checkPlacements(
        bc.api,
        `${scheduler} (cluster kept in ${bc.cluster.dir})`,
      );
      keep = false;
      return {
        scheduler,
        ...figures,
        ...cost,
        placementsChecked,
        watchRestarts: bound.restarts + scheduled.restarts,
        relisted: bound.relisted + scheduled.relisted,
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
