// Turns a scheduler_perf workload into `simulate`'s inputs: nodes, init pods, measured pods and churn on the virtual clock.
import type { ManifestObject } from '../../src/adapters/sim/manifests.ts';
import type { NodeObject, PodObject } from '../../src/model/objects.ts';
import type { ScriptedChange } from '../../src/runtime/simulate.ts';
import { podFrom } from './kube-templates.ts';
import type { Workload } from './scheduler-perf-workloads.ts';

/** A workload's simulation inputs, at some scale. */
export interface BuiltWorkload {
  nodes: NodeObject[];
  /** Init pods, then (without churn) the measured pods: all there when the run starts. */
  pods: PodObject[];
  /** With churn: the measured pods and the churn, interleaved in virtual time. */
  script: ScriptedChange[];
  objects?: ManifestObject[];
  initPods: number;
  measurePods: number;
  /** Churn ticks (pods the churn op creates). */
  churnTicks: number;
  /** Virtual ms after which nothing more is scripted. */
  lastScriptedMs: number;
}

/** When the measured pods start to arrive in a churn workload (init binds have long landed). */
export const measureStartMs = 1000;

/** `n` × `scale`, rounded, at least 1. */
export const scaled = (n: number, scale: number) => Math.max(1, Math.round(n * scale));

/**
 * How many churn ticks fall within the measured pods' scheduling in kube's own run at its
 * threshold: measured pods / threshold seconds, one tick per `intervalMs`.
 */
export function churnTicksAt(measurePods: number, threshold: number, intervalMs: number): number {
  return Math.max(1, Math.round(((measurePods / threshold) * 1000) / intervalMs));
}

/**
 * Builds `w` at `scale` (node and pod counts multiplied, e.g. 0.1 while developing).
 * Without churn every pod exists at the start, init pods first by creation time, as
 * scheduler_perf creates them (at QPS 5,000, far faster than a scheduler places them).
 * With churn the measured pods arrive in one batch per churn tick, so that as many
 * churn ticks fall among them as in kube's run at its threshold (`churnTicksAt`).
 */
export function buildWorkload(w: Workload, scale: number, schedulerName: string): BuiltWorkload {
  const nodes = w.makeNodes(scaled(w.nodes, scale));
  const pods: PodObject[] = [];
  let at = 0;
  for (const op of w.init) {
    const n = scaled(op.count, scale);
    for (let i = 0; i < n; i++)
      pods.push(podFrom(op.template, `init-${at}`, op.namespace, at++, schedulerName));
  }
  const initPods = pods.length;
  const measurePods = scaled(w.measure.count, scale);
  const measured = (i: number, atMs: number) =>
    podFrom(w.measure.template, `pod-${i}`, w.measure.namespace, atMs, schedulerName);
  const base = {
    nodes,
    initPods,
    measurePods,
    ...(w.objects === undefined ? {} : { objects: w.objects }),
  };
  const churn = w.churn;
  if (churn === undefined) {
    for (let i = 0; i < measurePods; i++) pods.push(measured(i, at++));
    return { ...base, pods, script: [], churnTicks: 0, lastScriptedMs: 0 };
  }
  const ticks = churnTicksAt(measurePods, w.threshold, churn.intervalMs);
  const batch = Math.ceil(measurePods / ticks);
  const script: ScriptedChange[] = [];
  let next = 0;
  for (let k = 0; k < ticks; k++) {
    const t = measureStartMs + k * churn.intervalMs;
    if (churn.mode === 'recreate' && k > 0) {
      script.push({ at: t, deletePod: `churn/churn-${k - 1}` });
      if (churn.node !== undefined) script.push({ at: t, deleteNode: `node-churn-${k - 1}` });
    }
    if (churn.node !== undefined) script.push({ at: t, addNode: churn.node(`node-churn-${k}`) });
    script.push({ at: t, createPod: podFrom(churn.pod, `churn-${k}`, 'churn', t, schedulerName) });
    for (const end = Math.min(measurePods, next + batch); next < end; next++)
      script.push({ at: t, createPod: measured(next, t) });
  }
  const lastScriptedMs = measureStartMs + (ticks - 1) * churn.intervalMs;
  return { ...base, pods, script, churnTicks: ticks, lastScriptedMs };
}
