// PodDisruptionBudgets as preemption reads them: the parsed view, its snapshot form, and kube's PDB-violation split.
import { isRecord, nonEmptyString } from './fields.ts';
import type { LabeledPod } from './labeled-pod.ts';
import {
  type PodLabelSelector,
  parseLabelSelector,
  selectorIsEmpty,
  selectorMatches,
} from './spread-constraints.ts';

/**
 * A policy/v1 PodDisruptionBudget, reduced to what DefaultPreemption reads. Not quite plain
 * JSON: `disruptedPods` is a Set, which snapshots write as a list (`disruptionBudgetData`).
 */
export interface DisruptionBudget {
  /** `namespace/name`, its key in the object store. */
  key: string;
  namespace: string;
  name: string;
  /**
   * The parsed `spec.selector`; undefined when it is missing (kube: labels.Nothing()) or
   * invalid (LabelSelectorAsSelector fails). Either way it matches no pod.
   */
  selector: PodLabelSelector | undefined;
  /** The selector is present but has no requirements: kube's filter skips it (matches nothing). */
  selectorEmpty: boolean;
  /** `status.disruptionsAllowed`; 0 when absent or not an integer. */
  disruptionsAllowed: number;
  /** The names (keys) of `status.disruptedPods`: evictions the API server already processed. */
  disruptedPods: ReadonlySet<string>;
}

/** A DisruptionBudget as a snapshot holds it: `disruptedPods` as a list, in set order. */
export type DisruptionBudgetData = Omit<DisruptionBudget, 'disruptedPods'> & {
  disruptedPods: string[];
};

const noDisruptedPods: ReadonlySet<string> = new Set<string>();

function intOr0(v: unknown): number {
  return typeof v === 'number' && Number.isSafeInteger(v) ? v : 0;
}

/**
 * Parses a PodDisruptionBudget. Never throws; rejects only an object without
 * `metadata.name`. A malformed selector selects nothing, as kube skips it; a malformed
 * `disruptionsAllowed` is 0 (no disruption allowed).
 */
export function parseDisruptionBudget(
  raw: unknown,
): { value: DisruptionBudget } | { rejected: string } {
  const meta = isRecord(raw) && isRecord(raw.metadata) ? raw.metadata : undefined;
  const name = meta === undefined ? undefined : nonEmptyString(meta.name);
  if (meta === undefined || name === undefined)
    return { rejected: 'PodDisruptionBudget has no metadata.name' };
  const obj = raw as Record<string, unknown>;
  const namespace = nonEmptyString(meta.namespace) ?? 'default';
  const spec = isRecord(obj.spec) ? obj.spec : undefined;
  const status = isRecord(obj.status) ? obj.status : undefined;
  let selector: PodLabelSelector | undefined;
  const rawSelector = spec?.selector;
  if (rawSelector !== undefined && rawSelector !== null) {
    const parsed = parseLabelSelector(rawSelector, 'spec.selector');
    selector = parsed.ok ? parsed.value : undefined;
  }
  const disrupted = status?.disruptedPods;
  return {
    value: {
      key: `${namespace}/${name}`,
      namespace,
      name,
      selector,
      selectorEmpty: selector !== undefined && selectorIsEmpty(selector),
      disruptionsAllowed: intOr0(status?.disruptionsAllowed),
      disruptedPods:
        isRecord(disrupted) && Object.keys(disrupted).length > 0
          ? new Set(Object.keys(disrupted))
          : noDisruptedPods,
    },
  };
}

/** The snapshot form of a budget (plain JSON data). */
export function disruptionBudgetData(b: DisruptionBudget): DisruptionBudgetData {
  return { ...b, disruptedPods: [...b.disruptedPods] };
}

/**
 * A budget from its snapshot form (or its JSON round trip); undefined when `data` is not
 * one (the caller names the place).
 */
export function restoreDisruptionBudget(data: unknown): DisruptionBudget | undefined {
  if (!isRecord(data)) return undefined;
  const { key, namespace, name, selector, selectorEmpty, disruptionsAllowed, disruptedPods } = data;
  if (typeof key !== 'string' || typeof namespace !== 'string' || typeof name !== 'string')
    return undefined;
  if (typeof selectorEmpty !== 'boolean' || typeof disruptionsAllowed !== 'number')
    return undefined;
  if (selector !== undefined && selector !== null && !isRecord(selector)) return undefined;
  if (!Array.isArray(disruptedPods) || !disruptedPods.every((p) => typeof p === 'string'))
    return undefined;
  return {
    key,
    namespace,
    name,
    selector: (selector ?? undefined) as PodLabelSelector | undefined,
    selectorEmpty,
    disruptionsAllowed,
    disruptedPods: disruptedPods.length === 0 ? noDisruptedPods : new Set(disruptedPods),
  };
}

/** What `budgetsOf` reads of a snapshot (a ClusterSnapshot is one). */
export interface BudgetSource {
  readonly objects: { readonly PodDisruptionBudget: ReadonlyMap<string, DisruptionBudget> };
}

/** Every PodDisruptionBudget of the snapshot, ordered by key (kube lists them in cache order). */
export function budgetsOf(snapshot: BudgetSource): readonly DisruptionBudget[] {
  const store = snapshot.objects.PodDisruptionBudget;
  const keys = [...store.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return keys.map((k) => store.get(k) as DisruptionBudget);
}

/** Whether `budget` covers `pod` (its namespace, a valid non-empty selector that matches). */
function covers(budget: DisruptionBudget, pod: LabeledPod): boolean {
  return (
    budget.namespace === pod.namespace &&
    budget.selector !== undefined &&
    !budget.selectorEmpty &&
    selectorMatches(budget.selector, pod.labels)
  );
}

/**
 * kube 1.34's filterPodsWithPDBViolation: walks `pods` in order, each matching budget's
 * allowance (from `disruptionsAllowed`) paying for the pod unless the pod is already in
 * its `disruptedPods`; a pod that drives any allowance below zero is violating. A pod
 * without labels matches no budget. Both lists keep the input order. The budgets' order
 * does not matter (each allowance is its own).
 */
export function splitByBudgetViolation<P extends LabeledPod & { readonly name: string }>(
  pods: readonly P[],
  budgets: readonly DisruptionBudget[],
): { violating: P[]; nonViolating: P[] } {
  const allowed = budgets.map((b) => b.disruptionsAllowed);
  const violating: P[] = [];
  const nonViolating: P[] = [];
  for (const pod of pods) {
    let violates = false;
    if (Object.keys(pod.labels).length !== 0) {
      for (let i = 0; i < budgets.length; i++) {
        const budget = budgets[i] as DisruptionBudget;
        if (!covers(budget, pod) || budget.disruptedPods.has(pod.name)) continue;
        const left = (allowed[i] as number) - 1;
        allowed[i] = left;
        if (left < 0) violates = true;
      }
    }
    (violates ? violating : nonViolating).push(pod);
  }
  return { violating, nonViolating };
}
