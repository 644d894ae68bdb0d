// The measured window of an in-process workload: from the first measured decision's cycle to the last, with each cycle's duration.
import { performance } from 'node:perf_hooks';
import type { Envelope } from '../../src/events/types.ts';
import { type SimulationOptions, simulate } from '../../src/runtime/simulate.ts';
import { percentile } from './measure.ts';

/** What `simulate` is given to measure a run, and what it measured once it ran. */
export interface DecisionWindow {
  /** For `simulate`'s `cycleDurations`: each cycle's duration, and when the next began. */
  cycles: number[];
  /** For `simulate`'s `inspect`: counts the measured pods' first decisions. */
  inspect: (phase: 'before' | 'after', env: Envelope) => void;
  /** Every cycle's duration in ms, in order. */
  durations: number[];
  /** Measured pods reserved and found unschedulable (each pod's first decision). */
  counts(): { scheduled: number; unschedulable: number };
  /** Measured pods reserved per wall-clock second of the window. */
  podsPerSecond(): number;
  /**
   * Measured pods bound per wall-clock second, from the same start to the last measured
   * pod's bind result and bound-pod update ingested: the window plus the bind results
   * that land after the last decision (0 when none was bound).
   */
  boundPerSecond(): number;
  /**
   * Measured pods reserved per second of this process's CPU time (user + system, all its
   * threads) over the window: what the wall-clock figure would be on a core of its own, a
   * little below it (GC threads count too). For machines shared with other work.
   */
  podsPerCpuSecond(): number;
}

/**
 * A window over the decisions of the pods `measured` selects (by `namespace/name`): it
 * opens when the cycle of the first such decision began and closes at the last one.
 */
export function decisionWindow(measured: (key: string) => boolean = () => true): DecisionWindow {
  let first = 0;
  let last = 0;
  let cpuFirst = 0;
  // process.cpuUsage() sums every thread of the process in the kernel: ~0.1 ms a call under
  // load, so it is sampled at most every `cpuSampleMs` of wall time (see podsPerCpuSecond).
  let cpuSampled = 0;
  let cpuSampledAt = 0;
  const cpuMs = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  let scheduled = 0;
  let unschedulable = 0;
  const decided = new Set<string>();
  const durations: number[] = [];
  // The first measured decision came in the cycle now running: when that cycle ends, the
  // window's start moves back to the cycle's start (its duration before the end; the cycle
  // is the main thread's work alone, so its CPU time is taken as the same).
  let openingCycle = false;
  const cycles = Object.assign([] as number[], {
    push(ms: number): number {
      durations.push(ms);
      if (openingCycle) {
        openingCycle = false;
        first = performance.now() - ms;
        cpuFirst = cpuMs() - ms;
      }
      return durations.length;
    },
  });
  let bound = 0;
  let lastBound = 0;
  const inspect = (phase: 'before' | 'after', env: Envelope) => {
    const e = env.event;
    if (phase === 'after') {
      if (e.type === 'BindSucceeded' && decided.has(e.uid)) {
        bound++;
        lastBound = performance.now();
      } else if (e.type === 'PodUpserted' && decided.has(e.pod.metadata.uid ?? '')) {
        if (e.pod.spec?.nodeName !== undefined) lastBound = performance.now();
      }
      return;
    }
    if (e.type !== 'PodReserved' && e.type !== 'PodUnschedulable') return;
    if (!measured(e.key)) return;
    if (first === 0) {
      // Until the cycle ends (a decision outside a cycle keeps these).
      first = performance.now();
      cpuFirst = cpuMs();
      openingCycle = true;
    }
    last = performance.now();
    if (last - cpuSampledAt >= cpuSampleMs) {
      cpuSampled = cpuMs();
      cpuSampledAt = performance.now();
    }
    if (decided.has(e.uid)) return;
    decided.add(e.uid);
    if (e.type === 'PodReserved') scheduled++;
    else unschedulable++;
  };
  // The CPU time at the last decision: the last sample, plus the wall time since it (at most
  // 20 ms) counted as the main thread's CPU time.
  const cpuLast = () => cpuSampled + Math.max(0, last - cpuSampledAt);
  return {
    cycles,
    inspect,
    durations,
    counts: () => ({ scheduled, unschedulable }),
    podsPerSecond: () => Math.round((scheduled / Math.max(last - first, 1e-9)) * 1000),
    boundPerSecond: () => Math.round((bound / Math.max(lastBound - first, 1e-9)) * 1000),
    podsPerCpuSecond: () => Math.round((scheduled / Math.max(cpuLast() - cpuFirst, 1e-9)) * 1000),
  };
}

/** How often, at most, the window reads the process's CPU time (ms of wall time). */
const cpuSampleMs = 20;

/** What `measureSimulation` reports of one in-process run. */
export interface MeasuredRun {
  perSecond: number;
  /** Pods reserved per CPU-second of the process (see `podsPerCpuSecond`). */
  perCpuSecond: number;
  scheduled: number;
  unschedulable: number;
  /** Every pod bound at the end (measured or not). */
  bound: number;
  p50: number;
  p99: number;
  /** Peak resident set size in MiB. */
  rssMiB: number;
  /** The run's decision digest. */
  decisionDigest: string;
}

/**
 * Runs `simulate` with `options` (seed 42, 5 ms bind latency, no bind failures) through a
 * decision window over the pods `measured` selects, and returns what it measured.
 */
export function measureSimulation(
  options: Pick<SimulationOptions, 'nodes' | 'pods' | 'objects' | 'config'>,
  measured?: (key: string) => boolean,
): MeasuredRun {
  const window = decisionWindow(measured);
  const summary = simulate({
    ...options,
    seed: 42,
    bindLatencyMs: 5,
    bindFailureRate: 0,
    cycleDurations: window.cycles,
    inspect: window.inspect,
  });
  const sorted = [...window.durations].sort((a, b) => a - b);
  return {
    perSecond: window.podsPerSecond(),
    perCpuSecond: window.podsPerCpuSecond(),
    ...window.counts(),
    bound: summary.scheduled,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    rssMiB: Math.round(process.resourceUsage().maxRSS / 1024),
    decisionDigest: summary.decisionDigest,
  };
}
