// Gang scheduling, in-process: PodGroups of 8 and of 64 pods on 5,000 nodes, and a contended cluster.
// Every group is a PodGroup (scheduling.x-k8s.io/v1alpha1) with minMember = its size; its
// pods carry the label `scheduling.x-k8s.io/pod-group`. When a member reaches the head of
// the queue the core takes one gang step: all missing members tried against one snapshot,
// reserved and bound together or not at all. The core is driven directly (inputs and
// cycles) on a virtual clock, with the API emulated as src/adapters/sim does it (a bind
// lands as BindSucceeded and the bound pod's update). For each scenario it prints groups/s
// and pods/s over the wall time of the scheduling loop, the wall time of each gang step
// (the cycle() call that placed a group, or found it could not), memory and peak RSS.
// Throws (after printing) when a check fails: a group placed in part, a node over-committed,
// a placed member left unbound, a blocked group holding capacity.
//
//   npx tsx bench/gang.bench.ts                   every scenario, each in a process of its own
//   npx tsx bench/gang.bench.ts gang-8 gang-64    only those
//
// Nodes have 16 cpu, 64Gi and 110 pods; member j of group g asks for 1 + (g + j) mod 4 cpu
// and 2Gi per cpu (plus 0, 512 or 1024Mi), so every group of 8 asks for 20 cpu and every
// group of 64 for 160 cpu, and memory never binds. gang-8 (2,500 groups, 20,000 pods) and
// gang-64 (300 groups, 19,200 pods) fill ~60% of the cpu of 5,000 nodes; contention-64 (300
// groups of 64 on 1,500 nodes) has cpu for exactly half of its groups.
// tas-750x4 is kube's scheduler_perf GangTopologyAwareScheduling/5000Nodes_750Gangs_3000Pods
// shape: 5,000 nodes of 4 cpu and 32Gi in racks of 100 (label topology.kubernetes.io/rack),
// 750 groups of 4 pods of 100m and 100Mi, each PodGroup annotated berth.dev/topology-key with
// the rack label; every group must land inside one rack. kube 1.38's threshold is 400 pods/s.
// BERTH_BENCH_API_LATENCY_MS (default 5) is the logical delay of every emulated bind.
import { execFileSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { trimNode, trimPod } from '../src/adapters/trim.ts';
import { podGroupLabel } from '../src/cluster/pod-groups.ts';
import { defaultConfig } from '../src/core/config.ts';
import type { GroupReport } from '../src/core/ports.ts';
import { Scheduler, type Step } from '../src/core/scheduler.ts';
import type { DecisionEvent, Envelope, InputEvent } from '../src/events/types.ts';
import type { NodeObject, PodObject } from '../src/model/objects.ts';
import { executeCommands } from '../src/runtime/commands.ts';
import { VirtualClock, VirtualTimers } from '../src/runtime/virtual-clock.ts';
import { BaselineCheck, baselineFlags } from './support/baseline.ts';
import { EmulatedBinds } from './support/emulated-api.ts';
import { envInt, gc, type Latency, latency, mib } from './support/measure.ts';

const epoch = Date.UTC(2026, 0, 1);
const host = 'kubernetes.io/hostname';
const namespace = 'gang';
/** Fifteen virtual minutes: far beyond what these workloads need; a stuck run stops here. */
const horizonMs = 15 * 60_000;
const nodeCpu = 16;
const nodeMemoryGi = 64;
const nodePods = 110;

interface Scenario {
  name: string;
  nodes: number;
  groups: number;
  /** Pods per group, and the PodGroup's minMember. */
  size: number;
  /** True when the cluster has room for only part of the groups (some must stay unplaced). */
  contended: boolean;
  /** Nodes per rack, for kube's topology-aware shape (small nodes and pods, one rack per group). */
  rack?: number;
}

const rackLabel = 'topology.kubernetes.io/rack';
/** kube 1.38 scheduler_perf's pods/s threshold for GangTopologyAwareScheduling/5000Nodes_750Gangs_3000Pods. */
const kubeTasThreshold = 400;
/** A node's cpu in the scenario: kube's topology shape has 4-cpu nodes. */
const cpuOf = (s: Scenario) => (s.rack === undefined ? nodeCpu : 4);

/** Cpu (cores) all of a group's members ask for: 1..4 each, every value size/4 times. */
const groupCpu = (size: number) => (size / 4) * (1 + 2 + 3 + 4);

const scenarios: Scenario[] = [
  { name: 'gang-8', nodes: 5000, groups: 2500, size: 8, contended: false },
  { name: 'gang-64', nodes: 5000, groups: 300, size: 64, contended: false },
  // Cpu for exactly half of the groups: 300 × 160 cpu asked, 1,500 × 16 = 24,000 allocatable.
  {
    name: 'contention-64',
    nodes: (300 * groupCpu(64)) / 2 / nodeCpu,
    groups: 300,
    size: 64,
    contended: true,
  },
  { name: 'tas-750x4', nodes: 5000, groups: 750, size: 4, contended: false, rack: 100 },
];

const apiLatencyMs = envInt('BERTH_BENCH_API_LATENCY_MS', 5);

function nodeName(i: number): string {
  return `node-${String(i).padStart(5, '0')}`;
}

function nodeObject(i: number, s: Scenario): NodeObject {
  const name = nodeName(i);
  const rack = s.rack === undefined ? {} : { [rackLabel]: `rack-${Math.floor(i / s.rack)}` };
  const memoryGi = s.rack === undefined ? nodeMemoryGi : 32;
  return {
    metadata: { name, labels: { [host]: name, ...rack } },
    status: {
      allocatable: { cpu: String(cpuOf(s)), memory: `${memoryGi}Gi`, pods: String(nodePods) },
    },
  } as NodeObject;
}

/** What member `j` of group `g` asks for: cpu in millicores, memory in MiB. */
function requestOf(g: number, j: number, s: Scenario): { milliCPU: number; memoryMi: number } {
  if (s.rack !== undefined) return { milliCPU: 100, memoryMi: 100 };
  const cpu = 1 + ((g + j) % 4);
  return { milliCPU: cpu * 1000, memoryMi: cpu * 2048 + (j % 3) * 512 };
}

const groupName = (g: number) => `group-${String(g).padStart(4, '0')}`;
const groupKey = (g: number) => `${namespace}/${groupName(g)}`;
const memberUid = (g: number, j: number) => `gang-${g}-${j}`;

/** Member `j` of group `g`, created `created` ms after the epoch; requests equal limits. */
function memberPod(g: number, j: number, created: number, s: Scenario): PodObject {
  const { milliCPU, memoryMi } = requestOf(g, j, s);
  const r = { cpu: `${milliCPU}m`, memory: `${memoryMi}Mi` };
  return {
    metadata: {
      name: `${groupName(g)}-${String(j).padStart(2, '0')}`,
      namespace,
      uid: memberUid(g, j),
      labels: { [podGroupLabel]: groupName(g), app: 'trainer' },
      creationTimestamp: new Date(epoch + created).toISOString(),
    },
    spec: {
      schedulerName: defaultConfig.schedulerName,
      terminationGracePeriodSeconds: 0,
      containers: [
        {
          name: 'worker',
          image: 'registry.k8s.io/pause:3.10',
          resources: { limits: { ...r }, requests: { ...r } },
        },
      ],
    },
  } as unknown as PodObject;
}

function podGroupEvent(g: number, s: Scenario): InputEvent {
  const annotations = s.rack === undefined ? {} : { 'berth.dev/topology-key': rackLabel };
  return {
    type: 'ObjectUpserted',
    kind: 'PodGroup',
    object: {
      metadata: {
        name: groupName(g),
        namespace,
        creationTimestamp: new Date(epoch + g).toISOString(),
        ...(s.rack === undefined ? {} : { annotations }),
      },
      spec: { minMember: s.size },
    },
  };
}

/** The emulated API with the PodGroup status reports counted. */
class EmulatedApi extends EmulatedBinds {
  groupReports = 0;
  /** The phase of each group's last status report. */
  readonly lastPhase = new Map<string, GroupReport['phase']>();

  override reportGroup(report: GroupReport): void {
    this.groupReports++;
    this.lastPhase.set(report.key, report.phase);
  }
}

/** Everything one run measured and checked (plain data: it crosses a process boundary). */
interface Result {
  scenario: Scenario;
  pods: number;
  setupMs: number;
  /** Wall time of the scheduling loop: cycles until the queue is empty, and bind results. */
  loopMs: number;
  /** Of it, the time inside cycle(). */
  cycleMs: number;
  /** From the loop's start to the end of the last cycle that placed a group. */
  lastPlacedMs: number;
  virtualMs: number;
  cycles: number;
  placing: Latency;
  /** Placing steps' wall time divided by the members each placed. */
  perMember: Latency;
  /** Mean placing-step ms in each fifth of the run, in the order they ran. */
  placingByFifth: number[];
  blocked: Latency;
  otherCycles: number;
  groupsPlaced: number;
  groupsBlocked: number;
  groupsPartial: number;
  podsBound: number;
  podsCharged: number;
  cpuUsedPct: number;
  overCommitted: number;
  unschedulableDecisions: number;
  unreserved: number;
  cycleFailed: number;
  binds: number;
  bindFailures: number;
  unschedulableReports: number;
  groupReports: number;
  phases: Record<string, number>;
  blockedExample: string | undefined;
  rssMiB: number;
  heapMiB: number;
  peakRssMiB: number;
  problems: string[];
}

function run(s: Scenario): Result {
  const clock = new VirtualClock();
  const problems: string[] = [];
  const problem = (msg: string) => {
    if (problems.length < 50) problems.push(msg);
  };

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

  // The bench's own books, from the decisions alone: who belongs where, what each asks.
  const member = new Map<string, { g: number; milliCPU: number; memory: number }>();
  for (let g = 0; g < s.groups; g++)
    for (let j = 0; j < s.size; j++) {
      const r = requestOf(g, j, s);
      member.set(memberUid(g, j), { g, milliCPU: r.milliCPU, memory: r.memoryMi * 2 ** 20 });
    }
  const reservedOf = new Int32Array(s.groups); // PodReserved decisions per group
  const ledgerCpu = new Map<string, number>(); // node → millicores reserved there
  const ledgerMem = new Map<string, number>();
  const allocMilli = cpuOf(s) * 1000;
  const allocMem = (s.rack === undefined ? nodeMemoryGi : 32) * 2 ** 30;
  let unschedulableDecisions = 0;
  let unreserved = 0;
  let cycleFailed = 0;
  /** Checks one batch of decisions (an input's or a cycle's); returns the groups it placed. */
  const check = (decisions: readonly Envelope<DecisionEvent>[]): number => {
    const inBatch = new Map<number, number>();
    const nodes = new Set<string>();
    for (const { event: d } of decisions) {
      switch (d.type) {
        case 'PodReserved': {
          const m = member.get(d.uid);
          if (m === undefined) {
            problem(`${d.key} reserved but not a member`);
            break;
          }
          inBatch.set(m.g, (inBatch.get(m.g) ?? 0) + 1);
          ledgerCpu.set(d.node, (ledgerCpu.get(d.node) ?? 0) + m.milliCPU);
          ledgerMem.set(d.node, (ledgerMem.get(d.node) ?? 0) + m.memory);
          nodes.add(d.node);
          break;
        }
        case 'PodUnreserved': {
          unreserved++;
          problem(`${d.key} unreserved from ${d.node}: ${d.reason}`);
          const m = member.get(d.uid);
          if (m !== undefined) {
            ledgerCpu.set(d.node, (ledgerCpu.get(d.node) ?? 0) - m.milliCPU);
            ledgerMem.set(d.node, (ledgerMem.get(d.node) ?? 0) - m.memory);
          }
          break;
        }
        case 'PodUnschedulable':
          unschedulableDecisions++;
          break;
        case 'CycleFailed':
          cycleFailed++;
          problem(`CycleFailed ${d.key}: ${d.plugin}: ${d.message}`);
          break;
        default:
          break;
      }
    }
    // All or nothing: a group's reservations all come in one step, and only once.
    for (const [g, n] of inBatch) {
      if (reservedOf[g] !== 0 || n !== s.size)
        problem(`${groupKey(g)}: ${n} members reserved in one step, ${reservedOf[g]} before`);
      reservedOf[g] = (reservedOf[g] as number) + n;
    }
    // No node over-committed, by the bench's books and by the core's state.
    for (const name of nodes) {
      const cpu = ledgerCpu.get(name) ?? 0;
      const mem = ledgerMem.get(name) ?? 0;
      if (cpu > allocMilli || mem > allocMem)
        problem(`${name} over-committed (books): ${cpu}m cpu, ${mem} bytes`);
      const n = core.state.nodes.get(name);
      if (n === undefined) problem(`reserved on unknown node ${name}`);
      else if (n.freeMilliCPU < 0 || n.freeMemory < 0 || n.freePods < 0)
        problem(`${name} over-committed (core): free ${n.freeMilliCPU}m, ${n.freeMemory} bytes`);
    }
    return inBatch.size;
  };
  ingest = (event) => {
    check(run(core.ingest(event, clock.now())));
  };

  // Setup (not timed as throughput): nodes, PodGroups, then every member, group by group.
  const setupStart = performance.now();
  executeCommands(core.start(clock.now()), targets);
  for (let i = 0; i < s.nodes; i++)
    ingest({ type: 'NodeUpserted', node: trimNode(nodeObject(i, s)) });
  for (let g = 0; g < s.groups; g++) ingest(podGroupEvent(g, s));
  for (let g = 0; g < s.groups; g++)
    for (let j = 0; j < s.size; j++) {
      const pod = memberPod(g, j, 1000 + g * s.size + j, s);
      api.pods.set(`${namespace}/${pod.metadata.name}`, pod);
      ingest({ type: 'PodUpserted', pod: trimPod(pod) });
    }
  const setupMs = performance.now() - setupStart;
  if (core.activeCount !== s.groups * s.size)
    problem(`${core.activeCount} pods queued after setup, expected ${s.groups * s.size}`);

  // Measured: cycles until the activeQ is empty, then the API's answers, until nothing is
  // left (logical time stands still while the activeQ has pods, as in simulate.ts).
  let cycles = 0;
  let cycleMs = 0;
  let lastPlaced = 0;
  const placing: number[] = [];
  const perMember: number[] = [];
  const blocked: number[] = [];
  let otherCycles = 0;
  const start = performance.now();
  for (;;) {
    for (;;) {
      const t0 = performance.now();
      const out = run(core.cycle(clock.now()));
      const t1 = performance.now();
      if (out.length === 0) break;
      cycles++;
      cycleMs += t1 - t0;
      const placed = check(out);
      if (placed > 0) {
        placing.push(t1 - t0);
        perMember.push((t1 - t0) / (placed * s.size));
        lastPlaced = t1;
      } else if (out.some((e) => e.event.type === 'PodUnschedulable')) blocked.push(t1 - t0);
      else otherCycles++;
    }
    if (!clock.advance(horizonMs)) break;
  }
  const loopMs = performance.now() - start;

  // Final checks, from the core's state: each group whole or untouched, nodes within bounds.
  let groupsPlaced = 0;
  let groupsBlocked = 0;
  let groupsPartial = 0;
  let podsBound = 0;
  let podsCharged = 0;
  for (let g = 0; g < s.groups; g++) {
    let charged = 0;
    let bound = 0;
    const racks = new Set<string | undefined>();
    for (let j = 0; j < s.size; j++) {
      const rec = core.state.pods.get(memberUid(g, j));
      if (rec === undefined) {
        problem(`${memberUid(g, j)} unknown to the core`);
        continue;
      }
      if (rec.charge.kind !== 'none') charged++;
      if (rec.charge.kind !== 'none')
        racks.add(core.state.nodes.get(rec.charge.node)?.labels[rackLabel]);
      if (rec.charge.kind === 'bound' && rec.info.nodeName === rec.charge.node) bound++;
      else if (rec.charge.kind !== 'none')
        problem(`${rec.info.key} still ${rec.charge.kind} on ${rec.charge.node}`);
    }
    if (s.rack !== undefined && (racks.size > 1 || racks.has(undefined)))
      problem(`${groupKey(g)} spans racks ${[...racks].join(', ')}`);
    podsBound += bound;
    podsCharged += charged;
    const reserved = reservedOf[g] as number;
    if (charged === s.size && bound === s.size && reserved === s.size) groupsPlaced++;
    else if (charged === 0 && reserved === 0) groupsBlocked++;
    else {
      groupsPartial++;
      problem(`${groupKey(g)} partial: ${reserved} reserved, ${charged} charged, ${bound} bound`);
    }
    const phase = api.lastPhase.get(groupKey(g));
    const want = charged === s.size ? 'Running' : 'Pending';
    if (phase !== want) problem(`${groupKey(g)} last reported ${phase}, expected ${want}`);
  }
  if (!s.contended && groupsPlaced !== s.groups)
    problem(`${groupsPlaced} of ${s.groups} groups placed whole`);
  const room = Math.floor((s.nodes * cpuOf(s)) / groupCpu(s.size));
  if (s.contended) {
    if (groupsPlaced === 0 || groupsBlocked === 0)
      problem(`contention: ${groupsPlaced} groups placed, ${groupsBlocked} blocked`);
    if (groupsPlaced > room) problem(`${groupsPlaced} groups placed, cpu for only ${room}`);
  }
  let overCommitted = 0;
  let usedMilli = 0;
  for (const node of core.state.nodeOrder) {
    let cpu = 0;
    let mem = 0;
    for (const p of node.pods.values()) {
      cpu += Number(p.requests.milliCPU);
      mem += Number(p.requests.memory);
    }
    usedMilli += cpu;
    const a = node.allocatable;
    if (cpu > a.milliCPU || mem > a.memory || node.pods.size > a.pods) {
      overCommitted++;
      problem(`${node.name} over-committed: ${cpu}m of ${a.milliCPU}m, ${mem} of ${a.memory}`);
    }
    if (cpu !== node.requested.milliCPU || mem !== node.requested.memory)
      problem(
        `${node.name}: pods sum to ${cpu}m/${mem}, requested says ${node.requested.milliCPU}m`,
      );
    if (cpu !== (ledgerCpu.get(node.name) ?? 0))
      problem(`${node.name}: ${cpu}m charged, the books say ${ledgerCpu.get(node.name) ?? 0}m`);
  }
  const expectedBound = groupsPlaced * s.size;
  if (api.binds !== expectedBound) problem(`${api.binds} binds for ${expectedBound} placed pods`);
  if (api.bindFailures.length > 0)
    problem(`${api.bindFailures.length} binds refused, e.g. ${api.bindFailures[0]}`);
  const inFlight = groupsBlocked * s.size;
  if (core.inFlightCount !== inFlight)
    problem(`${core.inFlightCount} pod machines in flight, expected ${inFlight}`);
  if (core.activeCount !== 0) problem(`${core.activeCount} pods still in the activeQ`);
  let blockedExample: string | undefined;
  if (groupsBlocked > 0) {
    const reasons = core.pendingReasons();
    for (let g = 0; g < s.groups && blockedExample === undefined; g++)
      if ((reservedOf[g] as number) === 0)
        blockedExample = reasons.get(`${namespace}/${groupName(g)}-00`);
  }
  const phases: Record<string, number> = {};
  for (const p of api.lastPhase.values()) phases[p] = (phases[p] ?? 0) + 1;

  gc();
  const mem = process.memoryUsage();
  const result: Result = {
    scenario: s,
    pods: s.groups * s.size,
    setupMs,
    loopMs,
    cycleMs,
    lastPlacedMs: lastPlaced === 0 ? 0 : lastPlaced - start,
    virtualMs: clock.now(),
    cycles,
    placing: latency(placing),
    perMember: latency(perMember),
    placingByFifth: [0, 1, 2, 3, 4].map((f) => {
      const part = placing.slice(
        Math.floor((f * placing.length) / 5),
        Math.floor(((f + 1) * placing.length) / 5),
      );
      return +(part.reduce((a, b) => a + b, 0) / Math.max(part.length, 1)).toFixed(2);
    }),
    blocked: latency(blocked),
    otherCycles,
    groupsPlaced,
    groupsBlocked,
    groupsPartial,
    podsBound,
    podsCharged,
    cpuUsedPct: +((100 * usedMilli) / (s.nodes * cpuOf(s) * 1000)).toFixed(1),
    overCommitted,
    unschedulableDecisions,
    unreserved,
    cycleFailed,
    binds: api.binds,
    bindFailures: api.bindFailures.length,
    unschedulableReports: api.unschedulableReports,
    groupReports: api.groupReports,
    phases,
    blockedExample,
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

function report(r: Result): string {
  const s = r.scenario;
  const sec = r.loopMs / 1000;
  const groupsPerSec = Math.round(r.groupsPlaced / sec);
  const podsPerSec = Math.round(r.podsBound / sec);
  const p = r.placing;
  const m = r.perMember;
  const b = r.blocked;
  const decided = r.groupsPlaced + r.groupsBlocked;
  const contention = s.contended
    ? `  contention: cpu for ${Math.floor((s.nodes * cpuOf(s)) / groupCpu(s.size))} of ${s.groups} groups; ` +
      `${r.groupsPlaced} placed whole, ${r.groupsBlocked} blocked with no member reserved, ${r.groupsPartial} partial; ` +
      `${Math.round(decided / sec)} groups decided/s\n` +
      `  blocked step (cycle() that placed nothing) ms: p50 ${b.p50}, p90 ${b.p90}, p99 ${b.p99}, max ${b.max} (${b.n} steps)\n` +
      `  a blocked member's reason: ${r.blockedExample ?? '(none)'}\n`
    : '';
  return (
    `${s.name} ${s.nodes} nodes × ${cpuOf(s)} cpu, ${s.groups} groups × ${s.size} pods (minMember ${s.size}; ${r.pods} pods, ${s.rack === undefined ? '1–4 cpu' : `100m, one rack of ${s.rack} nodes per group`}; API latency ${apiLatencyMs} ms logical):\n` +
    (s.rack === undefined
      ? ''
      : `  vs kube 1.38 threshold ${kubeTasThreshold} pods/s: ${(podsPerSec / kubeTasThreshold).toFixed(2)}x\n`) +
    `  ${groupsPerSec} groups/s, ${podsPerSec} pods/s (${r.groupsPlaced}/${s.groups} groups, ${r.podsBound}/${r.pods} pods bound; ` +
    `scheduling loop ${r.loopMs.toFixed(0)} ms wall: cycles ${r.cycleMs.toFixed(0)} ms, inputs (bind results, bound pods) ${(r.loopMs - r.cycleMs).toFixed(0)} ms; last group placed at ${r.lastPlacedMs.toFixed(0)} ms; ${r.virtualMs} ms virtual); setup ${r.setupMs.toFixed(0)} ms\n` +
    contention +
    `  gang step (cycle() that placed a group) ms: p50 ${p.p50}, p90 ${p.p90}, p99 ${p.p99}, max ${p.max} (${p.n} steps)\n` +
    `  per member placed ms: p50 ${m.p50}, p99 ${m.p99}; gang step mean ms by fifth of the run: ${r.placingByFifth.join(' / ')}\n` +
    `  checks: ${r.groupsPartial} groups partial, ${r.overCommitted} nodes over-committed, cpu ${r.cpuUsedPct}% used; ` +
    `${r.cycles} cycles (${r.otherCycles} neither placing nor blocked); ${r.unschedulableDecisions} PodUnschedulable, ${r.unreserved} PodUnreserved, ${r.cycleFailed} CycleFailed\n` +
    `  API: ${r.binds} binds, ${r.bindFailures} refused, ${r.unschedulableReports} unschedulable reports, ${r.groupReports} group reports ` +
    `(last phases: ${Object.entries(r.phases)
      .map(([k, v]) => `${v} ${k}`)
      .join(', ')})\n` +
    `  memory after (GC, run still live): RSS ${r.rssMiB} MiB, heap ${r.heapMiB} MiB; peak RSS ${r.peakRssMiB} MiB\n`
  );
}

/** A small run of the same shape first, so that the measured run finds the code compiled. */
function warmUp(s: Scenario): void {
  const small = { ...s, nodes: Math.ceil(s.nodes / 10), groups: Math.ceil(s.groups / 10) };
  const r = run(small);
  if (r.problems.length > 0) throw new Error(`warm-up ${s.name}: ${r.problems[0]}`);
}

if (process.argv[2] === '--child') {
  const s = scenarios.find((x) => x.name === process.argv[3]);
  if (s === undefined) throw new Error(`unknown scenario ${process.argv[3]}`);
  warmUp(s);
  process.stdout.write(`${JSON.stringify(run(s))}\n`);
} else {
  const flags = baselineFlags(process.argv.slice(2));
  const names = flags.rest;
  const baselines = new BaselineCheck('gang', flags);
  for (const n of names)
    if (!scenarios.some((s) => s.name === n))
      throw new Error(`unknown scenario ${n}; known: ${scenarios.map((s) => s.name).join(', ')}`);
  const self = fileURLToPath(import.meta.url);
  // The loader flags this process runs with (tsx's, and e.g. --cpu-prof), or tsx's import.
  const execArgv = process.execArgv.length > 0 ? process.execArgv : ['--import', 'tsx'];
  const failures: string[] = [];
  const summary: string[] = [];
  for (const s of scenarios) {
    if (names.length > 0 && !names.includes(s.name)) continue;
    // One scenario per process, so peak RSS belongs to that scenario alone.
    const out = execFileSync(process.execPath, [...execArgv, self, '--child', s.name], {
      encoding: 'utf8',
      maxBuffer: 1 << 26,
    });
    const r = JSON.parse(out.trim().split('\n').pop() as string) as Result;
    process.stdout.write(report(r));
    if (r.problems.length > 0) {
      process.stdout.write(`  PROBLEMS:\n${r.problems.map((p) => `    ${p}\n`).join('')}`);
      failures.push(`${s.name}: ${r.problems[0]}`);
    }
    const sec = r.loopMs / 1000;
    baselines.check(s.name, {
      shape: `${s.nodes} nodes, ${s.groups} groups × ${s.size}, API latency ${apiLatencyMs} ms`,
      figures: [{ name: 'pods/s', value: Math.round(r.podsBound / sec) }],
    });
    summary.push(
      `  ${s.name}: ${Math.round(r.groupsPlaced / sec)} groups/s, ${Math.round(r.podsBound / sec)} pods/s; ` +
        `step p50 ${r.placing.p50} / p99 ${r.placing.p99} / max ${r.placing.max} ms; ` +
        `${r.groupsPlaced}/${s.groups} placed, ${r.groupsPartial} partial; peak RSS ${r.peakRssMiB} MiB; ` +
        (r.problems.length === 0 ? 'checks ok' : `${r.problems.length} PROBLEMS`),
    );
  }
  process.stdout.write(`gang summary:\n${summary.join('\n')}\n`);
  baselines.finish();
  if (failures.length > 0) throw new Error(`gang bench checks failed:\n${failures.join('\n')}`);
}
