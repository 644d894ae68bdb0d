// Runs berth against the in-process simulated cluster on a virtual clock.
import { performance } from 'node:perf_hooks';
import { Subject } from 'rxjs';
import type { ManifestObject } from '../adapters/sim/manifests.ts';
import { SimCluster } from '../adapters/sim/sim-cluster.ts';
import type { SimDeviceDriver } from '../adapters/sim/sim-device-driver.ts';
import type { ClusterState } from '../cluster/types.ts';
import type { BerthConfig } from '../core/config.ts';
import { Scheduler, type Step } from '../core/scheduler.ts';
import type { LineSink } from '../events/recorder.ts';
import type { SealKey } from '../events/seal.ts';
import type { Envelope, InputEvent } from '../events/types.ts';
import { seededRng } from '../framework/rng.ts';
import type { NodeObject, PodObject } from '../model/objects.ts';
import { type CommandTargets, executeCommands } from './commands.ts';
import { connectSources } from './pipeline.ts';
import { startRecording } from './recording.ts';
import { type RunSummary, SummaryTracker } from './summary.ts';
import { VirtualClock, VirtualTimers } from './virtual-clock.ts';

/** A simulation's inputs. */
export interface SimulationOptions {
  nodes: NodeObject[];
  pods: PodObject[];
  /**
   * Namespaces, workloads, volume and DRA objects the simulated API server serves, and the
   * ResourceClaimTemplates its resourceclaim controller reads.
   */
  objects?: readonly ManifestObject[];
  seed: number;
  config: BerthConfig;
  bindLatencyMs: number;
  bindFailureRate: number;
  /** Receives the log's lines when recording. */
  record?: LineSink;
  /** Seals the recording with this key (`--record-key`). */
  recordKey?: SealKey;
  /** Called after each decision with (decisions so far). */
  onDecision?: (decisions: number) => void;
  /** Collects each scheduling cycle's wall duration in ms (benchmarks). */
  cycleDurations?: number[];
  /** Probability that a bound pod's watch update arrives before its bind result. */
  watchFirstRate?: number;
  /** The DRA driver the cluster plays on devices with binding conditions (absent: none). */
  deviceDriver?: SimDeviceDriver;
  /**
   * Virtual time after which the simulation stops even if pods are still backing off or
   * binding (default `defaultHorizonMs`); the summary says whether it was reached.
   */
  horizonMs?: number;
  /** Changes to make to the cluster at given virtual times, as if through the API. */
  script?: ScriptedChange[];
  /** Sees every envelope before and after it is applied (invariant checks in tests). */
  inspect?: (phase: 'before' | 'after', env: Envelope, state: ClusterState) => void;
}

/** One scripted change to the simulated cluster, as if made through the API at `at`. */
export type ScriptedChange =
  /** Creates a pod (a pod of the same name is deleted first: a StatefulSet recreation). */
  | { at: number; createPod: PodObject }
  /** Updates a pod's labels, spec (not its node) and phase, keeping its uid. */
  | { at: number; updatePod: PodObject }
  | { at: number; deletePod: string }
  /** Adds or replaces a node. */
  | { at: number; addNode: NodeObject }
  | { at: number; deleteNode: string }
  /** The watches expire: a relist of nodes and pods follows. */
  | { at: number; relist: true };

/** Fifteen virtual minutes: enough for any pod to exhaust its backoff many times over. */
export const defaultHorizonMs = 15 * 60_000;

/**
 * Runs the simulation to quiescence (no timer due but the periodic flush) or to the
 * horizon, whichever comes first, and summarises it.
 */
export function simulate(opts: SimulationOptions): RunSummary {
  const clock = new VirtualClock();
  const tracker = new SummaryTracker();
  const recorder =
    opts.record === undefined
      ? undefined
      : startRecording(opts.record, opts.seed, opts.config, false, opts.recordKey);
  const onEnvelope = (env: Envelope) => {
    tracker.observe(env);
    recorder?.record(env);
  };
  const firings = new Subject<InputEvent>();
  const timers = new VirtualTimers(clock, (event) => firings.next(event));
  const sim = new SimCluster({
    nodes: opts.nodes,
    pods: opts.pods,
    ...(opts.objects === undefined ? {} : { objects: opts.objects }),
    timers: {
      now: () => clock.now(),
      schedule: (deadline, fire) => void clock.schedule(deadline, fire),
    },
    bindLatencyMs: opts.bindLatencyMs,
    bindFailureRate: opts.bindFailureRate,
    ...(opts.watchFirstRate === undefined ? {} : { watchFirstRate: opts.watchFirstRate }),
    ...(opts.deviceDriver === undefined ? {} : { deviceDriver: opts.deviceDriver }),
    rng: seededRng(opts.seed ^ 0x5eed),
  });
  const core = new Scheduler({
    config: opts.config,
    seed: opts.seed,
    ...(opts.inspect === undefined ? {} : { inspect: opts.inspect }),
  });
  const targets: CommandTargets = { binder: sim, reports: sim, timers };
  /** Records a step (input, then decisions), then carries out its commands. */
  const run = (step: Step): Step => {
    if (step.input !== undefined) onEnvelope(step.input);
    for (const d of step.decisions) onEnvelope(d);
    executeCommands(step.commands, targets);
    return step;
  };
  const subscription = connectSources([sim.events$, firings], (event) =>
    run(core.ingest(event, clock.now())),
  );
  const started = performance.now();
  sim.start();
  executeCommands(core.start(clock.now()), targets);
  for (const change of opts.script ?? []) {
    clock.schedule(change.at, () => {
      if ('createPod' in change) sim.createPod(change.createPod);
      else if ('updatePod' in change) sim.updatePod(change.updatePod);
      else if ('deletePod' in change) sim.deletePod(change.deletePod);
      else if ('addNode' in change) sim.addNode(change.addNode);
      else if ('deleteNode' in change) sim.deleteNode(change.deleteNode);
      else sim.relist();
    });
  }
  const horizon = opts.horizonMs ?? defaultHorizonMs;
  let decisions = 0;
  for (;;) {
    for (;;) {
      const t0 = opts.cycleDurations === undefined ? 0 : performance.now();
      if (run(core.cycle(clock.now())).decisions.length === 0) break;
      if (opts.cycleDurations !== undefined) opts.cycleDurations.push(performance.now() - t0);
      opts.onDecision?.(++decisions);
    }
    if (!clock.advance(horizon)) break;
  }
  const elapsedMs = performance.now() - started;
  subscription.unsubscribe();
  recorder?.close();
  const summary = tracker.summarize(core.pendingReasons(), elapsedMs, {
    stateOf: (uid) => core.machineState(uid),
  });
  return {
    ...summary,
    virtualMs: clock.now(),
    horizonMs: horizon,
    horizonReached: clock.hasForegroundTimers(),
  };
}
