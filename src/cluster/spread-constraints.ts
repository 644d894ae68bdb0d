// Total parser for `spec.topologySpreadConstraints` and the pod label selectors they carry.
import type { ParsedField } from './constraints.ts';
import { isRecord } from './fields.ts';

/** The operators of a pod label selector's `matchExpressions` (metav1.LabelSelectorOperator). */
export type LabelSelectorOperator = 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';

/** One requirement of a parsed label selector; `matchLabels` entries become `In [value]`. */
export interface LabelRequirement {
  readonly key: string;
  readonly operator: LabelSelectorOperator;
  readonly values: readonly string[];
}

/**
 * A parsed pod label selector, as kube's `metav1.LabelSelectorAsSelector` builds it:
 * `nothing` for an absent selector (labels.Nothing(): matches no pod), otherwise the
 * requirements, all of which must hold. No requirements is labels.Everything(): it matches
 * every pod but is "empty", and kube's spreading counts no pod for an empty selector.
 */
export interface PodLabelSelector {
  readonly nothing: boolean;
  readonly requirements: readonly LabelRequirement[];
}

/** kube's NodeInclusionPolicy: whether a node-eligibility rule limits the spreading domains. */
export type NodeInclusionPolicy = 'Honor' | 'Ignore';

/** One spread constraint, defaults applied, selector parsed and merged with matchLabelKeys. */
export interface SpreadConstraint {
  /** `maxSkew`, an integer ≥ 1. */
  readonly maxSkew: number;
  readonly topologyKey: string;
  readonly selector: PodLabelSelector;
  /** `minDomains`, 1 when absent (only DoNotSchedule constraints may set it). */
  readonly minDomains: number;
  /** Honor (default): only nodes matching the pod's nodeSelector/required affinity count. */
  readonly nodeAffinityPolicy: NodeInclusionPolicy;
  /** Ignore (default); Honor: nodes with a NoSchedule/NoExecute taint the pod does not tolerate do not count. */
  readonly nodeTaintsPolicy: NodeInclusionPolicy;
}

/**
 * A pod's own spread constraints split by `whenUnsatisfiable`: `hard` (DoNotSchedule, the
 * Filter's) and `soft` (ScheduleAnyway, the Score's), each in spec order.
 */
export interface SpreadConstraints {
  readonly hard: readonly SpreadConstraint[];
  readonly soft: readonly SpreadConstraint[];
}

/** A pod without spread constraints (shared, frozen). */
export const noSpreadConstraints: SpreadConstraints = Object.freeze({
  hard: Object.freeze([]) as readonly SpreadConstraint[],
  soft: Object.freeze([]) as readonly SpreadConstraint[],
});

/** labels.Nothing(): the selector of a constraint without `labelSelector`. */
export const nothingSelector: PodLabelSelector = Object.freeze({
  nothing: true,
  requirements: Object.freeze([]) as readonly LabelRequirement[],
});

const absent = (v: unknown): v is undefined | null => v === undefined || v === null;
const maxInt32 = 2 ** 31 - 1;

function hasValue(values: readonly string[], v: string): boolean {
  for (let i = 0; i < values.length; i++) if (values[i] === v) return true;
  return false;
}

/** True when `labels` satisfy `r` (kube's labels.Requirement.Matches). */
function requirementMatches(r: LabelRequirement, labels: Record<string, string>): boolean {
  const has = Object.hasOwn(labels, r.key);
  switch (r.operator) {
    case 'In':
      return has && hasValue(r.values, labels[r.key] as string);
    case 'NotIn':
      return !has || !hasValue(r.values, labels[r.key] as string);
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
    default: {
      const unreachable: never = r.operator;
      return unreachable;
    }
  }
}

/** True when a pod with `labels` is selected by `sel` (kube's Selector.Matches). */
export function selectorMatches(sel: PodLabelSelector, labels: Record<string, string>): boolean {
  if (sel.nothing) return false;
  const reqs = sel.requirements;
  for (let i = 0; i < reqs.length; i++) {
    if (!requirementMatches(reqs[i] as LabelRequirement, labels)) return false;
  }
  return true;
}

/** kube's Selector.Empty(): a present selector with no requirements (labels.Nothing() is not empty). */
export function selectorIsEmpty(sel: PodLabelSelector): boolean {
  return !sel.nothing && sel.requirements.length === 0;
}

const OPERATORS: ReadonlySet<string> = new Set(['In', 'NotIn', 'Exists', 'DoesNotExist']);

function parseExpressions(v: unknown, path: string, out: LabelRequirement[]): string | undefined {
  if (absent(v)) return undefined;
  if (!Array.isArray(v)) return `${path} is not a list`;
  for (let i = 0; i < v.length; i++) {
    const e: unknown = v[i];
    const at = `${path}[${i}]`;
    if (!isRecord(e)) return `${at} is not an object`;
    if (typeof e.key !== 'string' || e.key === '') return `${at}.key is not a non-empty string`;
    if (typeof e.operator !== 'string' || !OPERATORS.has(e.operator))
      return `${at}.operator is not a valid label selector operator`;
    const operator = e.operator as LabelSelectorOperator;
    let values: string[] = [];
    if (!absent(e.values)) {
      if (!Array.isArray(e.values) || !e.values.every((x) => typeof x === 'string'))
        return `${at}.values is not a list of strings`;
      values = [...(e.values as string[])];
    }
    // labels.NewRequirement's rules: a selector breaking them fails to parse in kube.
    const set = operator === 'In' || operator === 'NotIn';
    if (set && values.length === 0) return `${at}.values must be non-empty for ${operator}`;
    if (!set && values.length > 0) return `${at}.values must be empty for ${operator}`;
    out.push({ key: e.key, operator, values });
  }
  return undefined;
}

/**
 * A pod label selector (`matchLabels` and `matchExpressions` In/NotIn/Exists/DoesNotExist),
 * with labels.NewRequirement's rules; absent or null is labels.Nothing(). Label key and
 * value syntax is not re-validated (the API server already did). Never throws.
 */
export function parseLabelSelector(v: unknown, path: string): ParsedField<PodLabelSelector> {
  if (absent(v)) return { ok: true, value: nothingSelector };
  if (!isRecord(v)) return { ok: false, error: `${path} is not an object` };
  const requirements: LabelRequirement[] = [];
  const ml = v.matchLabels;
  if (!absent(ml)) {
    if (!isRecord(ml)) return { ok: false, error: `${path}.matchLabels is not an object` };
    for (const key of Object.keys(ml)) {
      const value = ml[key];
      if (typeof value !== 'string')
        return { ok: false, error: `${path}.matchLabels[${JSON.stringify(key)}] is not a string` };
      requirements.push({ key, operator: 'In', values: [value] });
    }
  }
  const err = parseExpressions(v.matchExpressions, `${path}.matchExpressions`, requirements);
  if (err !== undefined) return { ok: false, error: err };
  return { ok: true, value: { nothing: false, requirements } };
}

/**
 * kube's mergeLabelSetWithSelector for matchLabelKeys: each listed key the pod has adds
 * `key In [its value]`; keys the pod lacks are skipped; labels.Nothing() stays Nothing.
 */
function mergeMatchLabelKeys(
  sel: PodLabelSelector,
  keys: readonly string[],
  podLabels: Record<string, string>,
): PodLabelSelector {
  if (sel.nothing) return sel;
  const added: LabelRequirement[] = [];
  for (const key of keys) {
    if (Object.hasOwn(podLabels, key))
      added.push({ key, operator: 'In', values: [podLabels[key] as string] });
  }
  if (added.length === 0) return sel;
  return { nothing: false, requirements: [...added, ...sel.requirements] };
}

function parsePolicy(v: unknown, path: string): ParsedField<NodeInclusionPolicy> | undefined {
  if (absent(v)) return undefined;
  if (v === 'Honor' || v === 'Ignore') return { ok: true, value: v };
  return { ok: false, error: `${path} is not Honor or Ignore` };
}

function isInt32AtLeast1(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= maxInt32;
}

/** One constraint; `hard` says whether it is DoNotSchedule. */
function parseConstraint(
  c: unknown,
  at: string,
  podLabels: Record<string, string>,
): ParsedField<{ hard: boolean; constraint: SpreadConstraint }> {
  if (!isRecord(c)) return { ok: false, error: `${at} is not an object` };
  if (!isInt32AtLeast1(c.maxSkew))
    return { ok: false, error: `${at}.maxSkew is not an integer greater than zero` };
  if (typeof c.topologyKey !== 'string' || c.topologyKey === '')
    return { ok: false, error: `${at}.topologyKey is not a non-empty string` };
  const when = c.whenUnsatisfiable;
  if (!absent(when) && when !== 'DoNotSchedule' && when !== 'ScheduleAnyway')
    return { ok: false, error: `${at}.whenUnsatisfiable is not DoNotSchedule or ScheduleAnyway` };
  const hard = when !== 'ScheduleAnyway';
  let minDomains = 1;
  if (!absent(c.minDomains)) {
    if (!isInt32AtLeast1(c.minDomains))
      return { ok: false, error: `${at}.minDomains is not an integer greater than zero` };
    if (!hard)
      return { ok: false, error: `${at}.minDomains requires whenUnsatisfiable DoNotSchedule` };
    minDomains = c.minDomains;
  }
  const affinity = parsePolicy(c.nodeAffinityPolicy, `${at}.nodeAffinityPolicy`);
  if (affinity !== undefined && !affinity.ok) return affinity;
  const taints = parsePolicy(c.nodeTaintsPolicy, `${at}.nodeTaintsPolicy`);
  if (taints !== undefined && !taints.ok) return taints;
  const sel = parseLabelSelector(c.labelSelector, `${at}.labelSelector`);
  if (!sel.ok) return sel;
  let keys: readonly string[] = [];
  if (!absent(c.matchLabelKeys)) {
    const k = c.matchLabelKeys;
    if (!Array.isArray(k) || !k.every((x) => typeof x === 'string'))
      return { ok: false, error: `${at}.matchLabelKeys is not a list of strings` };
    keys = k as string[];
  }
  const constraint: SpreadConstraint = {
    maxSkew: c.maxSkew,
    topologyKey: c.topologyKey,
    selector: mergeMatchLabelKeys(sel.value, keys, podLabels),
    minDomains,
    nodeAffinityPolicy: affinity?.value ?? 'Honor',
    nodeTaintsPolicy: taints?.value ?? 'Ignore',
  };
  return { ok: true, value: { hard, constraint } };
}

/**
 * `spec.topologySpreadConstraints` of a pod whose labels are `podLabels`, defaults applied
 * as kube 1.34's scheduler does (whenUnsatisfiable DoNotSchedule, minDomains 1,
 * nodeAffinityPolicy Honor, nodeTaintsPolicy Ignore) and `matchLabelKeys` merged into the
 * selector from the pod's own labels (the API server also merges them at creation since
 * 1.34; merging again adds the same requirements, which changes nothing). Absent, null or
 * an empty list gives `noSpreadConstraints`. A malformed entry is an error naming the field
 * (never dropped: dropping a constraint would let the pod go where it must not). Never throws.
 */
export function parseSpreadConstraints(
  v: unknown,
  podLabels: Record<string, string>,
  path = 'spec.topologySpreadConstraints',
): ParsedField<SpreadConstraints> {
  if (absent(v)) return { ok: true, value: noSpreadConstraints };
  if (!Array.isArray(v)) return { ok: false, error: `${path} is not a list` };
  if (v.length === 0) return { ok: true, value: noSpreadConstraints };
  const hard: SpreadConstraint[] = [];
  const soft: SpreadConstraint[] = [];
  for (let i = 0; i < v.length; i++) {
    const parsed = parseConstraint(v[i], `${path}[${i}]`, podLabels);
    if (!parsed.ok) return parsed;
    (parsed.value.hard ? hard : soft).push(parsed.value.constraint);
  }
  return { ok: true, value: { hard, soft } };
}
