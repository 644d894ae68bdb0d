// Priority preemption, in-process: kube scheduler_perf's PreemptionAsync cluster shapes.
// Nodes of 4 cpu each hold 4 bound low-priority pods (900m each: 3.6 of 4 cpu); then
// high-priority pods (3 cpu) arrive, and each must evict 3 of the 4 low pods on some node.
// The core is driven directly (inputs and cycles) on a virtual clock, with the API emulated
// as src/adapters/sim does it; prints preemptors/s until every preemptor is bound, cycles/s,
// the wall time of each nominating cycle, victims per preemption and memory afterwards.
// Throws (after printing) when a preemptor ends unbound or a victim is not as expected.
//
//   npx tsx bench/preemption.bench.ts      500 nodes (warm-up), then 5,000 nodes
//
// BERTH_BENCH_NODES (default 5000) and BERTH_BENCH_QUICK_NODES (default 500; 0 skips the
// warm-up) set the node counts; each size has 4 low pods and 1 preemptor per node.
// BERTH_BENCH_API_LATENCY_MS (default 5) is the logical delay of every emulated API write
// (bind, eviction, nomination); 0 answers at the same logical time, after the cycle.
import { performance } from 'node:perf_hooks';
import { trimNode, trimPod } from '../src/adapters/trim.ts';
import { defaultConfig } from '../src/core/config.ts';
import { Scheduler, type Step } from '../src/core/scheduler.ts';
import type {
  AttemptRef,
  DecisionEvent,
  Envelope,
  InputEvent,
  PodRef,
} from '../src/events/types.ts';
import type { NodeObject, PodObject } from '../src/model/objects.ts';
import { executeCommands } from '../src/runtime/commands.ts';
import { VirtualClock, VirtualTimers } from '../src/runtime/virtual-clock.ts';
import { BaselineCheck, baselineFlags } from './support/baseline.ts';
import { EmulatedBinds } from './support/emulated-api.ts';
import { envInt, gc, type Latency, latency, mib } from './support/measure.ts';

/** kube scheduler_perf thresholds (pods/s) printed beside the figures; see bench/README.md. */
const kubeFloors = {
  /** PreemptionAsync/5000Nodes in the newer performance-config.yaml (the brief's figure). */
  preemptionAsyncNewer: 570,
  /** PreemptionAsync/5000Nodes in the older performance-config.yaml (the brief: kube 1.34's). */
  preemptionAsyncOlder: 160,
  /** PreemptionBasic/500Nodes (older file): the workload whose measured pods are the preemptors. */
  preemptionBasic500: 18,
};

const host = 'kubernetes.io/hostname';
const epoch = Date.UTC(2026, 0, 1);
const lowPriority = 0;
const highPriority = 10;
/** Fifteen virtual minutes: far beyond the ~1 s this workload needs; a stuck run stops here. */
const horizonMs = 15 * 60_000;

interface Size {
  nodes: number;
  lowPods: number;
  highPods: number;
}

const apiLatencyMs = envInt('BERTH_BENCH_API_LATENCY_MS', 5);
const sizeOf = (nodes: number): Size => ({ nodes, lowPods: 4 * nodes, highPods: nodes });

function nodeName(i: number): string {
  return `node-${String(i).padStart(5, '0')}`;
}

/** templates/node-default.yaml: 4 cpu, 32Gi, 110 pods. */
function nodeObject(i: number): NodeObject {
  const name = nodeName(i);
  return {
    metadata: { name, labels: { [host]: name } },
    status: { allocatable: { cpu: '4', memory: '32Gi', pods: '110' } },
  } as NodeObject;
}

/** The pause container of the templates, requests equal to limits. */
function container(cpu: string): Record<string, unknown> {
  const r = { cpu, memory: '500Mi' };
  return {
    name: 'pause',
    image: 'registry.k8s.io/pause:3.10',
    ports: [{ containerPort: 80 }],
    resources: { limits: { ...r }, requests: { ...r } },
  };
}

/** templates/pod-low-priority.yaml (no priority: 0), already bound to `node` and Running. */
function lowPod(i: number, node: string): PodObject {
  return {
    metadata: {
      name: `low-${i}`,
      namespace: 'sched-0',
      uid: `low-${i}`,
      creationTimestamp: new Date(epoch + i).toISOString(),
    },
    spec: {
      schedulerName: defaultConfig.schedulerName,
      terminationGracePeriodSeconds: 0,
      containers: [container('900m')],
      nodeName: node,
    },
    status: { phase: 'Running' },
  } as unknown as PodObject;
}

/** templates/pod-high-priority.yaml: priority 10, 3 cpu; created after every low pod. */
function highPod(i: number): PodObject {
  return {
    metadata: {
      name: `high-${i}`,
      namespace: 'sched-1',
      uid: `high-${i}`,
      creationTimestamp: new Date(epoch + 3_600_000 + i).toISOString(),
    },
    spec: {
      schedulerName: defaultConfig.schedulerName,
      priority: highPriority,
      containers: [container('3000m')],
    },
  } as unknown as PodObject;
}

function keyOf(pod: PodObject): string {
  return `${pod.metadata.namespace ?? 'default'}/${pod.metadata.name}`;
}

/**
 * The API server as src/adapters/sim/sim-cluster.ts emulates it, trimmed to what this
 * workload uses. Every write lands `latency` logical ms after the command (never inside the
 * core's call): a bind brings BindSucceeded then the bound pod's PodUpserted (or BindFailed
 * as the API would refuse it); an eviction brings the victim's update (deletionTimestamp,
 * DisruptionTarget) then PodDeleted (terminationGracePeriodSeconds 0: gone at once); a
 * nomination brings the pod's update with `status.nominatedNodeName`.
 */
class EmulatedApi extends EmulatedBinds {
  evictions = 0;
  nominations = 0;
  nominationClears = 0;
  /** Eviction commands per preemptor uid, and their victims. */
  readonly preemptCalls = new Map<string, string[]>();
  readonly badSchedulerNames = new Set<string>();
  /** Called once a preemptor's bind result and bound update have been ingested. */
  onPreemptorBound: () => void = () => {};

  protected override onBound(attempt: AttemptRef): void {
    if (attempt.uid.startsWith('high-')) this.onPreemptorBound();
  }

  override preempt(
    preemptor: AttemptRef,
    schedulerName: string,
    victim: PodRef,
    _node: string,
  ): void {
    if (schedulerName !== defaultConfig.schedulerName) this.badSchedulerNames.add(schedulerName);
    const calls = this.preemptCalls.get(preemptor.uid) ?? [];
    calls.push(victim.uid);
    this.preemptCalls.set(preemptor.uid, calls);
    this.later(() => {
      const pod = this.pods.get(victim.key);
      if (pod === undefined || pod.metadata.uid !== victim.uid) return; // gone: success
      const now = new Date(epoch + Math.floor(this.clock.now() / 1000) * 1000).toISOString();
      const terminating = {
        ...pod,
        metadata: { ...pod.metadata, deletionTimestamp: now },
        status: {
          ...pod.status,
          conditions: [
            {
              type: 'DisruptionTarget',
              status: 'True',
              reason: 'PreemptionByScheduler',
              message: `${schedulerName}: preempting to accommodate a higher priority pod`,
              lastTransitionTime: now,
            },
          ],
        },
      } as unknown as PodObject;
      this.pods.delete(victim.key);
      this.evictions++;
      this.ingest({ type: 'PodUpserted', pod: trimPod(terminating) });
      this.ingest({ type: 'PodDeleted', uid: victim.uid, key: victim.key });
    });
  }

  override nominate(ref: PodRef, node: string | undefined): void {
    if (node === undefined) this.nominationClears++;
    else this.nominations++;
    this.later(() => {
      const pod = this.pods.get(ref.key);
      if (pod === undefined || pod.metadata.uid !== ref.uid) return;
      if (pod.spec.nodeName !== undefined) return;
      if ((pod.status?.nominatedNodeName ?? undefined) === node) return;
      const { nominatedNodeName: _, ...status } = (pod.status ?? {}) as Record<string, unknown>;
      const updated = {
        ...pod,
        status: node === undefined ? status : { ...status, nominatedNodeName: node },
      } as PodObject;
      this.pods.set(ref.key, updated);
      this.ingest({ type: 'PodUpserted', pod: trimPod(updated) });
    });
  }
}

/** Everything one run measured and checked. */
interface Result {
  size: Size;
  setupMs: number;
  windowMs: number;
  virtualMs: number;
  bound: number;
  cycles: number;
  cycleMsTotal: number;
  nominating: Latency;
  /** Mean nominating-cycle ms in each fifth of the preemptions, in the order they ran. */
  nominatingByFifth: number[];
  placing: Latency;
  otherCycles: number;
  nominations: number;
  victims: number;
  victimsPerPreemption: { min: number; max: number; mean: number };
  unschedulable: number;
  cycleFailed: number;
  nominationCleared: number;
  unreserved: number;
  boundToNominated: number;
  api: EmulatedApi;
  rssMiB: number;
  heapMiB: number;
  peakRssMiB: number;
  problems: string[];
}

function run(size: Size): Result {
  const clock = new VirtualClock();
  const problems: string[] = [];
  const problem = (msg: string) => {
    if (problems.length < 50) problems.push(msg);
  };

  // Timers as src/runtime/simulate.ts arms them: fired timers come back as TimerFired.
  let ingest: (event: InputEvent) => void = () => {};
  const timers = new VirtualTimers(clock, (event) => ingest(event));

  const api = new EmulatedApi(clock, apiLatencyMs, (e) => ingest(e));
  const core = new Scheduler({ config: defaultConfig, seed: 42 });
  const targets = { binder: api, reports: api, timers };
  /** Carries out a step's commands (binds, reports, timers); returns its decisions. */
  const run = (step: Step) => {
    executeCommands(step.commands, targets);
    return step.decisions;
  };

  // What the decisions say, checked as they come.
  const nominatedTo = new Map<string, string>(); // preemptor uid → node of its last nomination
  const nominationsOf = new Map<string, number>();
  const victimsOfNomination: number[] = [];
  const victimSeen = new Set<string>();
  const reservedTo = new Map<string, string>();
  let current: { uid: string; attempt: number } | undefined;
  let unschedulable = 0;
  let cycleFailed = 0;
  let nominationCleared = 0;
  let unreserved = 0;
  const check = (decisions: readonly Envelope<DecisionEvent>[]) => {
    for (const { event: d } of decisions) {
      switch (d.type) {
        case 'PodNominated':
          if (!d.uid.startsWith('high-')) problem(`${d.key} (not a preemptor) nominated`);
          nominatedTo.set(d.uid, d.node);
          nominationsOf.set(d.uid, (nominationsOf.get(d.uid) ?? 0) + 1);
          victimsOfNomination.push(0);
          current = { uid: d.uid, attempt: d.attempt };
          break;
        case 'VictimPreempted': {
          if (current?.uid !== d.uid || current.attempt !== d.attempt)
            problem(`VictimPreempted for ${d.key}#${d.attempt} not after its PodNominated`);
          victimsOfNomination[victimsOfNomination.length - 1] =
            (victimsOfNomination[victimsOfNomination.length - 1] ?? 0) + 1;
          const v = core.state.pods.get(d.victim.uid)?.info;
          const preemptor = core.state.pods.get(d.uid)?.info;
          if (!d.victim.uid.startsWith('low-')) problem(`victim ${d.victim.key} is not a low pod`);
          if (v === undefined) problem(`victim ${d.victim.key} unknown to the core`);
          else {
            if (v.priority !== lowPriority || v.priority >= (preemptor?.priority ?? 0))
              problem(`victim ${v.key} priority ${v.priority} vs preemptor ${preemptor?.priority}`);
            if (v.nodeName !== d.node) problem(`victim ${v.key} on ${v.nodeName}, not ${d.node}`);
          }
          if (victimSeen.has(d.victim.uid)) problem(`victim ${d.victim.key} preempted twice`);
          victimSeen.add(d.victim.uid);
          break;
        }
        case 'PodReserved':
          reservedTo.set(d.uid, d.node);
          break;
        case 'PodUnschedulable':
          unschedulable++;
          break;
        case 'CycleFailed':
          cycleFailed++;
          problem(`CycleFailed ${d.key}: ${d.plugin}: ${d.message}`);
          break;
        case 'NominationCleared':
          nominationCleared++;
          break;
        case 'PodUnreserved':
          unreserved++;
          break;
        default:
          break;
      }
    }
  };
  ingest = (event) => check(run(core.ingest(event, clock.now())));

  // Setup (not timed as throughput): nodes, then the low pods already bound, 4 per node.
  const setupStart = performance.now();
  executeCommands(core.start(clock.now()), targets);
  for (let i = 0; i < size.nodes; i++)
    ingest({ type: 'NodeUpserted', node: trimNode(nodeObject(i)) });
  for (let i = 0; i < size.lowPods; i++) {
    const pod = lowPod(i, nodeName(Math.floor(i / 4) % size.nodes));
    api.pods.set(keyOf(pod), pod);
    ingest({ type: 'PodUpserted', pod: trimPod(pod) });
  }
  const setupMs = performance.now() - setupStart;

  // Measured: every preemptor created at once, then cycles and the API's answers until all
  // are bound (the clock stands still while the activeQ has pods, as in simulate.ts).
  let bound = 0;
  let end = 0;
  let cycles = 0;
  let cycleMsTotal = 0;
  const nominating: number[] = [];
  const placing: number[] = [];
  let otherCycles = 0;
  const start = performance.now();
  api.onPreemptorBound = () => {
    bound++;
    if (bound === size.highPods) end = performance.now();
  };
  for (let i = 0; i < size.highPods; i++) {
    const pod = highPod(i);
    api.pods.set(keyOf(pod), pod);
    ingest({ type: 'PodUpserted', pod: trimPod(pod) });
  }
  for (;;) {
    for (;;) {
      const t0 = performance.now();
      const out = run(core.cycle(clock.now()));
      const ms = performance.now() - t0;
      if (out.length === 0) break;
      if (end === 0) {
        cycles++;
        cycleMsTotal += ms;
      }
      if (out.some((e) => e.event.type === 'PodNominated')) nominating.push(ms);
      else if (out.some((e) => e.event.type === 'PodReserved')) placing.push(ms);
      else otherCycles++;
      check(out);
    }
    if (!clock.advance(horizonMs)) break;
  }
  const windowMs = (end === 0 ? performance.now() : end) - start;

  // Final checks: every preemptor bound (the core agrees), victims exactly 3 per preemption.
  let boundToNominated = 0;
  const unboundStates = new Map<string, number>();
  const reasons = core.pendingReasons();
  for (let i = 0; i < size.highPods; i++) {
    const uid = `high-${i}`;
    const rec = core.state.pods.get(uid);
    const node = rec?.info.nodeName;
    if (node === undefined) {
      const st = core.machineState(uid) ?? 'no machine';
      unboundStates.set(st, (unboundStates.get(st) ?? 0) + 1);
      if ((unboundStates.get(st) ?? 0) <= 3)
        problem(
          `preemptor ${uid} unbound: machine ${st}; ${reasons.get(`sched-1/high-${i}`) ?? ''}`,
        );
      continue;
    }
    if (nominatedTo.get(uid) === node) boundToNominated++;
    else problem(`preemptor ${uid} bound to ${node}, nominated to ${nominatedTo.get(uid)}`);
    if (reservedTo.get(uid) !== node)
      problem(`preemptor ${uid} reserved ${reservedTo.get(uid)}, bound ${node}`);
  }
  if (unboundStates.size > 0)
    problem(
      `${size.highPods - bound} of ${size.highPods} preemptors unbound at virtual ${clock.now()} ms; machines: ${[...unboundStates].map(([s, n]) => `${s} ${n}`).join(', ')}`,
    );
  if (bound !== size.highPods) problem(`the API bound ${bound} of ${size.highPods} preemptors`);
  const noNomination = size.highPods - nominationsOf.size;
  if (noNomination > 0) problem(`${noNomination} preemptors were never nominated`);
  const victims = victimSeen.size;
  if (victims !== 3 * size.highPods)
    problem(`${victims} victims for ${size.highPods} preemptors (expected ${3 * size.highPods})`);
  const notThree = victimsOfNomination.filter((n) => n !== 3).length;
  if (notThree > 0) problem(`${notThree} preemptions with other than 3 victims`);
  for (const [uid, calls] of api.preemptCalls)
    if (calls.length !== 3 * (nominationsOf.get(uid) ?? 0))
      problem(`preempt() called ${calls.length} times for ${uid}`);
  if (api.badSchedulerNames.size > 0)
    problem(`preempt() with scheduler names ${[...api.badSchedulerNames].join(', ')}`);
  if (api.bindFailures.length > 0)
    problem(`${api.bindFailures.length} binds refused, e.g. ${api.bindFailures[0]}`);
  if (api.evictions !== victims) problem(`${api.evictions} evictions for ${victims} victims`);
  // The cluster afterwards: one low pod left beside one preemptor on every node.
  let layoutOff = 0;
  for (const node of core.state.nodeOrder) {
    let low = 0;
    let high = 0;
    for (const p of node.pods.values()) {
      if (p.uid.startsWith('low-')) low++;
      else if (p.uid.startsWith('high-')) high++;
    }
    if (low !== 1 || high !== 1) layoutOff++;
  }
  if (size.highPods === size.nodes && layoutOff > 0)
    problem(`${layoutOff} nodes without exactly 1 low pod and 1 preemptor`);
  if (core.inFlightCount !== 0) problem(`${core.inFlightCount} pod machines still in flight`);

  const counts = victimsOfNomination;
  const sum = counts.reduce((a, b) => a + b, 0);
  gc();
  const mem = process.memoryUsage();
  const result: Result = {
    size,
    setupMs,
    windowMs,
    virtualMs: clock.now(),
    bound,
    cycles,
    cycleMsTotal,
    nominating: latency(nominating),
    nominatingByFifth: [0, 1, 2, 3, 4].map((f) => {
      const part = nominating.slice(
        Math.floor((f * nominating.length) / 5),
        Math.floor(((f + 1) * nominating.length) / 5),
      );
      return +(part.reduce((a, b) => a + b, 0) / Math.max(part.length, 1)).toFixed(1);
    }),
    placing: latency(placing),
    otherCycles,
    nominations: counts.length,
    victims,
    victimsPerPreemption: {
      min: counts.length === 0 ? 0 : Math.min(...counts),
      max: counts.length === 0 ? 0 : Math.max(...counts),
      mean: counts.length === 0 ? 0 : +(sum / counts.length).toFixed(3),
    },
    unschedulable,
    cycleFailed,
    nominationCleared,
    unreserved,
    boundToNominated,
    api,
    // Measured with the run's core, cluster state and emulated API still live.
    rssMiB: mib(mem.rss),
    heapMiB: mib(mem.heapUsed),
    peakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024),
    problems,
  };
  // Keep the core reachable until memory was read.
  if (core.lastSeq < 0) console.log(core);
  return result;
}

function report(label: string, r: Result): string {
  const { size } = r;
  const s = r.windowMs / 1000;
  const perSec = Math.round(r.bound / s);
  const l = r.nominating;
  const p = r.placing;
  const v = r.victimsPerPreemption;
  const floors =
    size.nodes === 5000
      ? `  kube CI floor, PreemptionAsync/5000Nodes: ${kubeFloors.preemptionAsyncNewer} pods/s (newer performance-config.yaml) → ${(perSec / kubeFloors.preemptionAsyncNewer).toFixed(2)}×; ` +
        `${kubeFloors.preemptionAsyncOlder} pods/s (older file) → ${(perSec / kubeFloors.preemptionAsyncOlder).toFixed(2)}×\n` +
        '  (kube measures the 0.1-cpu pods scheduled while preemptors arrive at 5/s, as scheduler-perf.bench.ts PreemptionAsync/5000Nodes does; here the preemptors are measured)\n'
      : size.nodes === 500
        ? `  kube CI floor, PreemptionBasic/500Nodes (same shapes, preemptors measured): ${kubeFloors.preemptionBasic500} pods/s → ${(perSec / kubeFloors.preemptionBasic500).toFixed(1)}×\n`
        : '';
  return (
    `${label} ${size.nodes} nodes, ${size.lowPods} low + ${size.highPods} high pods (API latency ${apiLatencyMs} ms logical):\n` +
    `  ${perSec} preemptors/s end to end (${r.bound}/${size.highPods} bound in ${r.windowMs.toFixed(0)} ms wall, ${r.virtualMs} ms virtual); setup ${r.setupMs.toFixed(0)} ms\n` +
    floors +
    `  ${Math.round(r.cycles / s)} cycles/s (${r.cycles} cycles; cycles ${((100 * r.cycleMsTotal) / r.windowMs).toFixed(0)}% of wall, inputs the rest)\n` +
    `  nominating cycle (PodNominated) ms: p50 ${l.p50}, p90 ${l.p90}, p99 ${l.p99}, max ${l.max} (${l.n} cycles)\n` +
    `  nominating cycle mean ms by fifth of the run: ${r.nominatingByFifth.join(' / ')}\n` +
    `  placing cycle (PodReserved) ms:     p50 ${p.p50}, p90 ${p.p90}, p99 ${p.p99}, max ${p.max} (${p.n} cycles)\n` +
    `  victims per preemption: mean ${v.mean} (min ${v.min}, max ${v.max}); ${r.nominations} preemptions, ${r.victims} victims; ` +
    `${r.boundToNominated}/${size.highPods} bound to their nominated node\n` +
    `  other decisions: ${r.unschedulable} PodUnschedulable, ${r.nominationCleared} NominationCleared, ${r.unreserved} PodUnreserved, ${r.cycleFailed} CycleFailed; ${r.otherCycles} other cycles\n` +
    `  API: ${r.api.binds} binds, ${r.api.evictions} evictions, ${r.api.nominations} nominations set, ${r.api.nominationClears} cleared, ${r.api.unschedulableReports} unschedulable reports\n` +
    `  memory after (GC, run still live): RSS ${r.rssMiB} MiB, heap ${r.heapMiB} MiB; peak RSS so far ${r.peakRssMiB} MiB\n`
  );
}

const quick = envInt('BERTH_BENCH_QUICK_NODES', 500);
const big = envInt('BERTH_BENCH_NODES', 5000);
const failures: string[] = [];
const baselines = new BaselineCheck('preemption', baselineFlags(process.argv.slice(2)));
for (const [label, nodes] of [
  ['quick', quick],
  ['PreemptionAsync-like', big],
] as const) {
  if (nodes === 0) continue;
  const r = run(sizeOf(nodes));
  process.stdout.write(report(label, r));
  baselines.check(`preemptors-${nodes}n`, {
    shape: `${nodes} nodes, API latency ${apiLatencyMs} ms`,
    figures: [{ name: 'preemptors/s', value: Math.round(r.bound / (r.windowMs / 1000)) }],
  });
  if (r.problems.length > 0) {
    process.stdout.write(`  PROBLEMS:\n${r.problems.map((p) => `    ${p}\n`).join('')}`);
    failures.push(`${nodes} nodes: ${r.problems[0]}`);
  }
}
baselines.finish();
if (failures.length > 0) throw new Error(`preemption bench checks failed:\n${failures.join('\n')}`);
