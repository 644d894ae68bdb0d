// Runs a generated scenario through `simulate` and checks it against the independent oracles, per property.
import type { ClusterState } from '../../src/cluster/types.ts';
import { defaultConfig } from '../../src/core/config.ts';
import { type Envelope, isDecision } from '../../src/events/types.ts';
import { defaultHorizonMs, simulate } from '../../src/runtime/simulate.ts';
import type { RunSummary } from '../../src/runtime/summary.ts';
import { ApiTruth, totalDemand } from './oracles.ts';
import { GPU, modelsOf, nodeObject, podObject, type RunScenario, scriptOf } from './run-models.ts';

/** The properties a checked run reports on. */
export type RunProperty =
  /** Every PodReserved is for the pod's current uid, unbound and ungated, on a node that fits it. */
  | 'placement'
  /** No PodUnschedulable while a node fits the pod. */
  | 'unschedulable'
  /** After every envelope, no node holds more than its allocatable. */
  | 'overcommit'
  /** At quiescence, berth's per-node charges equal what the API has bound there. */
  | 'leak'
  /** At quiescence, no berth pod waits while a node fits it; none is lost or stuck. */
  | 'conservation'
  /** A parked pod is retried within the max backoff once a node fits it. */
  | 'liveness'
  /** No pod is bound twice; every bind names the pod's current uid and is its only one. */
  | 'double-bind'
  /** The run's summary agrees with the API: placements and pending pods. */
  | 'accounting';

/** A checked run: its summary, log lines and the violations found, by property. */
export interface CheckedRun {
  summary: RunSummary;
  log: string;
  violations: Map<RunProperty, string[]>;
}

const maxBackoffMs = defaultConfig.backoff.maxMs;

interface Allocatable {
  cpuMilli: number;
  memMi: number;
  gpus: number;
  pods: number;
}

/** Follows one run envelope by envelope; every check reads only the models and the API truth. */
class RunChecker {
  readonly truth: ApiTruth;
  readonly violations = new Map<RunProperty, string[]>();
  /** Each uid's last cycle outcome (PodReserved, PodUnschedulable, CycleFailed). */
  private readonly lastOutcome = new Map<string, string>();
  /** Parked pods a node fits, since when (retries owed). */
  private readonly owed = new Map<string, number>();
  private readonly bindsSucceeded = new Map<string, number>();
  /** Nodes that may legitimately exceed allocatable: shrunk, or given a foreign pod. */
  private readonly exempt = new Set<string>();
  private readonly maxAllocatable = new Map<string, Allocatable>();
  state: ClusterState | undefined;
  lastTime = 0;

  constructor(scenario: RunScenario) {
    const models = modelsOf(scenario);
    this.truth = new ApiTruth(models.pods, models.nodes);
  }

  fail(property: RunProperty, message: string): void {
    const list = this.violations.get(property) ?? [];
    list.push(message);
    this.violations.set(property, list);
  }

  inspect(phase: 'before' | 'after', env: Envelope, state: ClusterState): void {
    this.state = state;
    this.lastTime = env.time;
    if (phase === 'before') {
      this.before(env);
      this.truth.observe(env);
      if (env.event.type === 'NodeUpserted') this.noteAllocatable(env.event.node.metadata.name);
    } else {
      this.checkOvercommit(env, state);
      if (!isDecision(env.event)) this.openOwedRetries(env.time);
    }
  }

  private currentPod(uid: string, key: string, what: string, property: RunProperty) {
    const pod = this.truth.pods.get(key);
    if (pod?.uid !== uid) {
      this.fail(property, `${what} for ${key} uid ${uid}, but the API holds uid ${pod?.uid}`);
      return undefined;
    }
    return pod;
  }

  private cycleOutcome(uid: string, type: string, time: number, key: string): void {
    this.lastOutcome.set(uid, type);
    const since = this.owed.get(uid);
    if (since === undefined) return;
    this.owed.delete(uid);
    if (time > since + maxBackoffMs)
      this.fail('liveness', `${key} fitted at ${since} but was retried only at ${time}`);
  }

  private before(env: Envelope): void {
    const e = env.event;
    const at = `#${env.seq} t=${env.time}`;
    switch (e.type) {
      case 'PodReserved': {
        this.cycleOutcome(e.uid, e.type, env.time, e.key);
        const pod = this.currentPod(e.uid, e.key, `${at} PodReserved`, 'placement');
        if (pod === undefined) return;
        const m = pod.model;
        if (pod.nodeName !== undefined || m.gates.length > 0 || m.terminating || pod.finished)
          this.fail('placement', `${at} reserved ${e.key}, bound, gated or finished in the API`);
        const fits = this.truth.feasibleNodes(pod.model);
        if (!fits.includes(e.node))
          this.fail('placement', `${at} reserved ${e.key} on ${e.node}; nodes that fit: [${fits}]`);
        return;
      }
      case 'PodUnschedulable': {
        this.cycleOutcome(e.uid, e.type, env.time, e.key);
        const pod = this.currentPod(e.uid, e.key, `${at} PodUnschedulable`, 'unschedulable');
        if (pod === undefined) return;
        const fits = this.truth.feasibleNodes(pod.model);
        if (fits.length > 0)
          this.fail(
            'unschedulable',
            `${at} ${e.key} unschedulable (${e.message}) but fits [${fits}]`,
          );
        return;
      }
      case 'CycleFailed':
        this.cycleOutcome(e.uid, e.type, env.time, e.key);
        return;
      case 'BindRequested': {
        const pod = this.currentPod(e.uid, e.key, `${at} BindRequested`, 'double-bind');
        if (pod?.nodeName !== undefined)
          this.fail('double-bind', `${at} bind of ${e.key}, already bound to ${pod?.nodeName}`);
        if (this.truth.inFlight.has(e.uid))
          this.fail('double-bind', `${at} second bind of ${e.key} while one is in flight`);
        return;
      }
      case 'BindSucceeded': {
        const n = (this.bindsSucceeded.get(e.uid) ?? 0) + 1;
        this.bindsSucceeded.set(e.uid, n);
        if (n > 1) this.fail('double-bind', `${at} ${e.key} uid ${e.uid} bound ${n} times`);
        return;
      }
      case 'PodUpserted': {
        const node = e.pod.spec.nodeName;
        if (e.pod.spec.schedulerName !== 'berth' && node !== undefined) this.exempt.add(node);
        return;
      }
      default:
        return;
    }
  }

  private noteAllocatable(name: string): void {
    const now = this.truth.nodes.get(name)?.allocatable;
    if (now === undefined) return;
    const before = this.maxAllocatable.get(name);
    if (
      before !== undefined &&
      (now.cpuMilli < before.cpuMilli ||
        now.memMi < before.memMi ||
        now.gpus < before.gpus ||
        now.pods < before.pods)
    )
      this.exempt.add(name);
    this.maxAllocatable.set(name, {
      cpuMilli: Math.max(now.cpuMilli, before?.cpuMilli ?? 0),
      memMi: Math.max(now.memMi, before?.memMi ?? 0),
      gpus: Math.max(now.gpus, before?.gpus ?? 0),
      pods: Math.max(now.pods, before?.pods ?? 0),
    });
  }

  /** Charged requests (of the generated pods berth charges there) against allocatable. */
  private checkOvercommit(env: Envelope, state: ClusterState): void {
    for (const node of state.nodes.values()) {
      const model = this.truth.nodes.get(node.name);
      if (model === undefined || this.exempt.has(node.name)) continue;
      const pods = [...node.pods.keys()].map((uid) => this.truth.modelOfUid.get(uid));
      if (pods.some((p) => p === undefined)) {
        this.fail('overcommit', `#${env.seq}: ${node.name} charges a pod the API never served`);
        continue;
      }
      const used = totalDemand(pods as NonNullable<(typeof pods)[number]>[]);
      const a = model.allocatable;
      if (
        pods.length > a.pods ||
        used.milliCPU > a.cpuMilli ||
        used.memory > a.memMi * 1024 * 1024 ||
        used.gpus > a.gpus
      ) {
        this.fail(
          'overcommit',
          `#${env.seq} ${env.event.type}: ${node.name} holds ${pods.length} pods ${JSON.stringify(used)} > ${JSON.stringify(a)}`,
        );
      }
    }
  }

  /** After an input: every parked pod that a node now fits is owed a retry. */
  private openOwedRetries(time: number): void {
    const waiting = this.truth.waitingBerthPods();
    // A pod that stopped waiting (being deleted, say) is owed nothing.
    const uids = new Set(waiting.map((p) => p.uid));
    for (const uid of this.owed.keys()) if (!uids.has(uid)) this.owed.delete(uid);
    for (const pod of waiting) {
      if (this.lastOutcome.get(pod.uid) !== 'PodUnschedulable' || this.owed.has(pod.uid)) continue;
      if (this.truth.feasibleNodes(pod.model).length > 0) this.owed.set(pod.uid, time);
    }
  }

  /** The checks at the end of a run, which must have ended by quiescence. */
  finish(summary: RunSummary): void {
    if (this.lastTime >= defaultHorizonMs - maxBackoffMs)
      this.fail('conservation', `the run reached the horizon (last event at ${this.lastTime})`);
    if (this.truth.inFlight.size > 0)
      this.fail(
        'conservation',
        `binds still in flight at the end: ${[...this.truth.inFlight.keys()]}`,
      );
    for (const [uid, since] of this.owed) {
      const key = [...this.truth.pods.entries()].find(([, p]) => p.uid === uid)?.[0];
      this.fail('liveness', `${key ?? uid} fitted from t=${since} and was never retried`);
    }
    this.checkConservation();
    this.checkLeak();
    this.checkAccounting(summary);
  }

  private checkConservation(): void {
    for (const pod of this.truth.waitingBerthPods()) {
      const key = `default/${pod.model.name}`;
      const fits = this.truth.feasibleNodes(pod.model);
      if (fits.length > 0)
        this.fail('conservation', `${key} is pending at quiescence but fits [${fits}]`);
      const last = this.lastOutcome.get(pod.uid);
      if (last !== 'PodUnschedulable')
        this.fail(
          'conservation',
          `${key} waits at quiescence without being parked (last: ${last})`,
        );
    }
  }

  private checkLeak(): void {
    const state = this.state;
    if (state === undefined) return;
    const truth = this.truth.boundTotals();
    const names = new Set([...truth.keys(), ...state.nodes.keys(), ...state.absentNodes.keys()]);
    for (const name of names) {
      const node = state.nodes.get(name) ?? state.absentNodes.get(name);
      const berth = {
        milliCPU: node?.requested.milliCPU ?? 0,
        memory: node?.requested.memory ?? 0,
        gpus: node?.requested.scalar[GPU] ?? 0,
        pods: node?.pods.size ?? 0,
      };
      const api = truth.get(name) ?? { milliCPU: 0, memory: 0, gpus: 0, pods: 0 };
      if (JSON.stringify(berth) !== JSON.stringify(api))
        this.fail(
          'leak',
          `${name}: berth charges ${JSON.stringify(berth)}, the API has ${JSON.stringify(api)}`,
        );
    }
  }

  private checkAccounting(summary: RunSummary): void {
    for (const [key, pod] of this.truth.pods) {
      const m = pod.model;
      if (m.schedulerName !== 'berth' || pod.finished) continue;
      // An unbound pod being deleted is no longer berth's to schedule or report.
      if (m.terminating && pod.nodeName === undefined) continue;
      const placed = summary.placements[key];
      const pending = summary.pending[key];
      if (pod.nodeName !== undefined && placed !== pod.nodeName)
        this.fail('accounting', `${key} is bound to ${pod.nodeName}, the summary says ${placed}`);
      if (pod.nodeName === undefined && (pending === undefined || pending === ''))
        this.fail('accounting', `${key} is unbound but not pending with a reason`);
      if (pod.nodeName !== undefined && pending !== undefined)
        this.fail('accounting', `${key} is bound and pending (${pending})`);
    }
  }
}

/**
 * The config the fit oracles check against: kube's default profile without PostFilters. The
 * brute-force fit oracle does not model nominations (room a preemption holds for its pod),
 * so preemption has properties of its own (test/runtime/preemption.prop.test.ts).
 */
export const fitOnlyConfig = { ...defaultConfig, postFilters: [] };

/** Simulates `scenario` with the oracles watching; returns its summary, log and violations. */
export function checkedRun(scenario: RunScenario, config = fitOnlyConfig): CheckedRun {
  const checker = new RunChecker(scenario);
  const lines: string[] = [];
  const summary = simulate({
    nodes: scenario.nodes.map(nodeObject),
    pods: scenario.pods.map(podObject),
    seed: scenario.seed,
    config,
    bindLatencyMs: scenario.bindLatencyMs,
    bindFailureRate: scenario.bindFailureRate,
    watchFirstRate: scenario.watchFirstRate,
    script: scriptOf(scenario),
    record: (line) => lines.push(line),
    inspect: (phase, env, state) => checker.inspect(phase, env, state),
  });
  checker.finish(summary);
  return { summary, log: `${lines.join('\n')}\n`, violations: checker.violations };
}
