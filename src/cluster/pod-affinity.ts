// A pod's `spec.affinity.podAffinity` / `podAntiAffinity` terms (kube's AffinityTerm): total parser, matching, identity keys.
import type { ParsedField } from './constraints.ts';
import { isRecord } from './fields.ts';
import type { LabeledPod } from './labeled-pod.ts';
import {
  type LabelRequirement,
  nothingSelector,
  type PodLabelSelector,
  parseLabelSelector,
  selectorMatches,
} from './spread-constraints.ts';

/**
 * One pod (anti-)affinity term, as kube's framework.AffinityTerm holds it: a pod matches
 * when its namespace is in `namespaces` or selected by `namespaceSelector` (read against
 * the labels of that Namespace), and `selector` selects its labels.
 */
export interface AffinityTerm {
  /**
   * The namespaces the term names; the owning pod's own namespace when the term has
   * neither `namespaces` nor a `namespaceSelector` (kube's getNamespacesFromPodAffinityTerm).
   */
  readonly namespaces: readonly string[];
  /**
   * `namespaceSelector`: absent or null is labels.Nothing() (selects no namespace);
   * `{}` has no requirements and selects every namespace.
   */
  readonly namespaceSelector: PodLabelSelector;
  /** `labelSelector` (absent: selects no pod), with matchLabelKeys/mismatchLabelKeys merged. */
  readonly selector: PodLabelSelector;
  readonly topologyKey: string;
}

/** A preferred term with its `weight` (an integer 1–100). */
export interface WeightedAffinityTerm extends AffinityTerm {
  readonly weight: number;
}

/** A pod's inter-pod affinity terms, by kind, each list in spec order (kube's PodInfo fields). */
export interface PodAffinityTerms {
  readonly requiredAffinityTerms: readonly AffinityTerm[];
  readonly requiredAntiAffinityTerms: readonly AffinityTerm[];
  readonly preferredAffinityTerms: readonly WeightedAffinityTerm[];
  readonly preferredAntiAffinityTerms: readonly WeightedAffinityTerm[];
}

const matchKeys = new WeakMap<AffinityTerm, string>();
const termKeys = new WeakMap<AffinityTerm, string>();

const selectorParts = (s: PodLabelSelector) =>
  s.nothing ? null : s.requirements.map((r) => [r.key, r.operator, r.values]);

/**
 * A string naming what decides which pods a term matches: its namespaces, namespaceSelector
 * and label selector. Equal strings, equal matches. Memoised per term object (terms are
 * never mutated).
 */
export function matchKey(t: AffinityTerm): string {
  let k = matchKeys.get(t);
  if (k === undefined) {
    k = JSON.stringify([
      t.namespaces,
      selectorParts(t.namespaceSelector),
      selectorParts(t.selector),
    ]);
    matchKeys.set(t, k);
  }
  return k;
}

/** `matchKey` with the topology key and (preferred terms) the weight: a group's identity. */
export function termKey(t: AffinityTerm): string {
  let k = termKeys.get(t);
  if (k === undefined) {
    const weight = (t as Partial<WeightedAffinityTerm>).weight ?? 0;
    k = `${weight}\n${JSON.stringify(t.topologyKey)}\n${matchKey(t)}`;
    termKeys.set(t, k);
  }
  return k;
}

const noNsLabels: Record<string, string> = Object.freeze(Object.create(null));

/**
 * kube's AffinityTerm.Matches: `pod` is in one of the term's namespaces, or its namespace's
 * labels (`nsLabels`; empty when unknown) are selected by the term's namespaceSelector, and
 * the term's label selector selects the pod's labels.
 */
export function termMatches(
  term: AffinityTerm,
  pod: LabeledPod,
  nsLabels: Record<string, string> = noNsLabels,
): boolean {
  if (
    !term.namespaces.includes(pod.namespace) &&
    !selectorMatches(term.namespaceSelector, nsLabels)
  )
    return false;
  return selectorMatches(term.selector, pod.labels);
}

/** kube's podMatchesAllAffinityTerms: false without terms; else every term matches `pod`. */
export function matchesAllTerms(terms: readonly AffinityTerm[], pod: LabeledPod): boolean {
  if (terms.length === 0) return false;
  for (let i = 0; i < terms.length; i++) {
    if (!termMatches(terms[i] as AffinityTerm, pod)) return false;
  }
  return true;
}

const noTerms = Object.freeze([]) as readonly never[];

/** A pod without pod (anti-)affinity terms (shared, frozen). */
export const noPodAffinity: PodAffinityTerms = Object.freeze({
  requiredAffinityTerms: noTerms,
  requiredAntiAffinityTerms: noTerms,
  preferredAffinityTerms: noTerms,
  preferredAntiAffinityTerms: noTerms,
});

/** True when the pod has any pod affinity or anti-affinity term (kube's PodsWithAffinity). */
export function hasPodAffinityTerms(t: PodAffinityTerms): boolean {
  return (
    t.requiredAffinityTerms.length > 0 ||
    t.requiredAntiAffinityTerms.length > 0 ||
    t.preferredAffinityTerms.length > 0 ||
    t.preferredAntiAffinityTerms.length > 0
  );
}

/**
 * Terms restored from a snapshot: absent (older snapshots) or without any term becomes the
 * shared `noPodAffinity`, so that restored pods share it as parsed ones do.
 */
export function restoredPodAffinity(t: PodAffinityTerms | undefined): PodAffinityTerms {
  return t === undefined || t === null || !hasPodAffinityTerms(t) ? noPodAffinity : t;
}

const absent = (v: unknown): v is undefined | null => v === undefined || v === null;

const REQUIRED = 'requiredDuringSchedulingIgnoredDuringExecution';
const PREFERRED = 'preferredDuringSchedulingIgnoredDuringExecution';

function stringList(v: unknown, path: string): ParsedField<readonly string[]> {
  if (absent(v)) return { ok: true, value: noTerms };
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string'))
    return { ok: false, error: `${path} is not a list of strings` };
  return { ok: true, value: v as string[] };
}

/**
 * The API server's merge of matchLabelKeys (`key In [value]`) and mismatchLabelKeys
 * (`key NotIn [value]`) into a present label selector, for each key the pod carries;
 * labels.Nothing() stays Nothing. A key the selector already constrains was merged by the
 * API server when the pod was created (its validation refuses such a key otherwise): it is
 * left alone, so a later label change does not add a second, conflicting requirement.
 */
function mergeLabelKeys(
  sel: PodLabelSelector,
  match: readonly string[],
  mismatch: readonly string[],
  podLabels: Record<string, string>,
): PodLabelSelector {
  if (sel.nothing) return sel;
  const merged = (key: string) => sel.requirements.some((r) => r.key === key);
  const added: LabelRequirement[] = [];
  for (const key of match) {
    if (Object.hasOwn(podLabels, key) && !merged(key))
      added.push({ key, operator: 'In', values: [podLabels[key] as string] });
  }
  for (const key of mismatch) {
    if (Object.hasOwn(podLabels, key) && !merged(key))
      added.push({ key, operator: 'NotIn', values: [podLabels[key] as string] });
  }
  if (added.length === 0) return sel;
  return { nothing: false, requirements: [...sel.requirements, ...added] };
}

/** The pod whose terms are parsed: its namespace and labels. */
interface Owner {
  namespace: string;
  labels: Record<string, string>;
}

function parseTerm(v: unknown, at: string, owner: Owner): ParsedField<AffinityTerm> {
  if (!isRecord(v)) return { ok: false, error: `${at} is not an object` };
  if (typeof v.topologyKey !== 'string' || v.topologyKey === '')
    return { ok: false, error: `${at}.topologyKey is not a non-empty string` };
  const sel = parseLabelSelector(v.labelSelector, `${at}.labelSelector`);
  if (!sel.ok) return sel;
  const namespaces = stringList(v.namespaces, `${at}.namespaces`);
  if (!namespaces.ok) return namespaces;
  const nsSel = absent(v.namespaceSelector)
    ? ({ ok: true, value: nothingSelector } as const)
    : parseLabelSelector(v.namespaceSelector, `${at}.namespaceSelector`);
  if (!nsSel.ok) return nsSel;
  const match = stringList(v.matchLabelKeys, `${at}.matchLabelKeys`);
  if (!match.ok) return match;
  const mismatch = stringList(v.mismatchLabelKeys, `${at}.mismatchLabelKeys`);
  if (!mismatch.ok) return mismatch;
  const own = namespaces.value.length === 0 && absent(v.namespaceSelector);
  return {
    ok: true,
    value: {
      namespaces: own ? [owner.namespace] : namespaces.value,
      namespaceSelector: nsSel.value,
      selector: mergeLabelKeys(sel.value, match.value, mismatch.value, owner.labels),
      topologyKey: v.topologyKey,
    },
  };
}

function parseWeighted(v: unknown, at: string, owner: Owner): ParsedField<WeightedAffinityTerm> {
  if (!isRecord(v)) return { ok: false, error: `${at} is not an object` };
  const w = v.weight;
  if (typeof w !== 'number' || !Number.isInteger(w) || w < 1 || w > 100)
    return { ok: false, error: `${at}.weight is not an integer 1–100` };
  const term = parseTerm(v.podAffinityTerm, `${at}.podAffinityTerm`, owner);
  if (!term.ok) return term;
  return { ok: true, value: { ...term.value, weight: w } };
}

function parseList<T>(
  v: unknown,
  path: string,
  owner: Owner,
  one: (e: unknown, at: string, owner: Owner) => ParsedField<T>,
): ParsedField<readonly T[]> {
  if (absent(v)) return { ok: true, value: noTerms };
  if (!Array.isArray(v)) return { ok: false, error: `${path} is not a list` };
  if (v.length === 0) return { ok: true, value: noTerms };
  const out: T[] = [];
  for (let i = 0; i < v.length; i++) {
    const parsed = one(v[i], `${path}[${i}]`, owner);
    if (!parsed.ok) return parsed;
    out.push(parsed.value);
  }
  return { ok: true, value: out };
}

/** A parse that keeps what it could read, and the first error met. */
export interface PodAffinityParse {
  readonly value: PodAffinityTerms;
  readonly error: string | undefined;
}

/**
 * `spec.affinity.podAffinity` and `podAntiAffinity` of a pod in `namespace` with `labels`,
 * as kube's PodInfo holds them: namespaces defaulted to the pod's own when a term names
 * none and has no namespaceSelector, matchLabelKeys/mismatchLabelKeys merged into the
 * label selector from the pod's labels (what the API server does at creation; keys it
 * already merged are not merged twice). A malformed list is dropped
 * whole, as kube's NewPodInfo drops the list it fails to parse, and `error` names the
 * first bad field (the pod is then invalid). Never throws.
 */
export function parsePodAffinity(
  affinity: unknown,
  namespace: string,
  labels: Record<string, string>,
  path = 'spec.affinity',
): PodAffinityParse {
  if (!isRecord(affinity)) return { value: noPodAffinity, error: undefined };
  const owner: Owner = { namespace, labels };
  let error: string | undefined;
  const side = (kind: 'podAffinity' | 'podAntiAffinity') => {
    const v = affinity[kind];
    const at = `${path}.${kind}`;
    if (absent(v)) return { required: noTerms, preferred: noTerms };
    if (!isRecord(v)) {
      error ??= `${at} is not an object`;
      return { required: noTerms, preferred: noTerms };
    }
    const required = parseList(v[REQUIRED], `${at}.${REQUIRED}`, owner, parseTerm);
    if (!required.ok) error ??= required.error;
    const preferred = parseList(v[PREFERRED], `${at}.${PREFERRED}`, owner, parseWeighted);
    if (!preferred.ok) error ??= preferred.error;
    return {
      required: required.ok ? required.value : noTerms,
      preferred: preferred.ok ? preferred.value : noTerms,
    };
  };
  const aff = side('podAffinity');
  const anti = side('podAntiAffinity');
  if (
    aff.required.length + aff.preferred.length + anti.required.length + anti.preferred.length ===
    0
  )
    return { value: noPodAffinity, error };
  return {
    value: {
      requiredAffinityTerms: aff.required,
      requiredAntiAffinityTerms: anti.required,
      preferredAffinityTerms: aff.preferred,
      preferredAntiAffinityTerms: anti.preferred,
    },
    error,
  };
}
