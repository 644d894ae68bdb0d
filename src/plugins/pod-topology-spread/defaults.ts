// PodTopologySpread's cluster-level default constraints: its args, and the selector kube deduces per pod.
import type { ObjectStoreView } from '../../cluster/cluster-objects.ts';
import { isRecord } from '../../cluster/fields.ts';
import type {
  LabelRequirement,
  PodLabelSelector,
  SpreadConstraint,
} from '../../cluster/spread-constraints.ts';
import type { ClusterSnapshot, PodInfo } from '../../cluster/types.ts';
import { labelHostname } from './common.ts';

/** kube's well-known zone label, the second system default constraint's key. */
export const labelZone = 'topology.kubernetes.io/zone';

/** How the default constraints are chosen (kube's PodTopologySpreadConstraintsDefaulting). */
export type DefaultingType = 'System' | 'List';

/** A configured default constraint: no selector (it is deduced per pod). */
export interface DefaultConstraint {
  readonly maxSkew: number;
  readonly topologyKey: string;
  readonly whenUnsatisfiable: 'DoNotSchedule' | 'ScheduleAnyway';
}

/** The plugin's arguments, validated. */
export interface SpreadArgs {
  readonly defaultingType: DefaultingType;
  /** The constraints pods without their own get (System: kube's built-in two). */
  readonly defaultConstraints: readonly DefaultConstraint[];
}

/** kube's system defaults: hostname maxSkew 3 and zone maxSkew 5, both ScheduleAnyway. */
export const systemDefaultConstraints: readonly DefaultConstraint[] = Object.freeze([
  Object.freeze({ maxSkew: 3, topologyKey: labelHostname, whenUnsatisfiable: 'ScheduleAnyway' }),
  Object.freeze({ maxSkew: 5, topologyKey: labelZone, whenUnsatisfiable: 'ScheduleAnyway' }),
]) as readonly DefaultConstraint[];

/** kube's default arguments: System defaulting. */
export const defaultSpreadArgs: SpreadArgs = Object.freeze({
  defaultingType: 'System',
  defaultConstraints: systemDefaultConstraints,
});

const argKeys = new Set(['defaultConstraints', 'defaultingType', 'apiVersion', 'kind']);
const constraintKeys = new Set(['maxSkew', 'topologyKey', 'whenUnsatisfiable']);

function parseConstraint(v: unknown, at: string): DefaultConstraint {
  if (!isRecord(v)) throw new Error(`${at} must be an object`);
  if (v.labelSelector !== undefined)
    throw new Error(`${at}.labelSelector: not allowed, the selector is deduced for each pod`);
  for (const key of Object.keys(v))
    if (!constraintKeys.has(key)) throw new Error(`${at}: unknown field "${key}"`);
  const { maxSkew, topologyKey, whenUnsatisfiable } = v;
  if (typeof maxSkew !== 'number' || !Number.isInteger(maxSkew) || maxSkew < 1)
    throw new Error(`${at}.maxSkew must be an integer ≥ 1, got ${JSON.stringify(maxSkew)}`);
  if (typeof topologyKey !== 'string' || topologyKey === '')
    throw new Error(`${at}.topologyKey must be a non-empty string`);
  if (whenUnsatisfiable !== 'DoNotSchedule' && whenUnsatisfiable !== 'ScheduleAnyway')
    throw new Error(
      `${at}.whenUnsatisfiable must be DoNotSchedule or ScheduleAnyway, got ${JSON.stringify(whenUnsatisfiable)}`,
    );
  return { maxSkew, topologyKey, whenUnsatisfiable };
}

/**
 * Validates PodTopologySpreadArgs as kube does: `defaultingType` System (default) or List;
 * System takes no `defaultConstraints`; each constraint has maxSkew ≥ 1, a topologyKey, a
 * valid whenUnsatisfiable and no labelSelector; no (topologyKey, whenUnsatisfiable) pair
 * twice. Throws an Error naming the field.
 */
export function parseSpreadArgs(raw: unknown): SpreadArgs {
  if (raw === undefined || raw === null) return defaultSpreadArgs;
  if (!isRecord(raw)) throw new Error('PodTopologySpread args must be an object');
  for (const key of Object.keys(raw))
    if (!argKeys.has(key)) throw new Error(`PodTopologySpread args: unknown field "${key}"`);
  const type = raw.defaultingType ?? 'System';
  if (type !== 'System' && type !== 'List')
    throw new Error(
      `PodTopologySpread args defaultingType must be System or List, got ${JSON.stringify(type)}`,
    );
  const list = raw.defaultConstraints ?? [];
  if (!Array.isArray(list))
    throw new Error('PodTopologySpread args defaultConstraints must be a list');
  if (type === 'System') {
    if (list.length > 0)
      throw new Error(
        'PodTopologySpread args defaultConstraints must be empty when defaultingType is System',
      );
    return defaultSpreadArgs;
  }
  const seen = new Set<string>();
  const constraints = list.map((c, i) => {
    const parsed = parseConstraint(c, `PodTopologySpread args defaultConstraints[${i}]`);
    const pair = `${parsed.topologyKey} ${parsed.whenUnsatisfiable}`;
    if (seen.has(pair))
      throw new Error(
        `PodTopologySpread args defaultConstraints[${i}]: {${parsed.topologyKey}, ${parsed.whenUnsatisfiable}} is listed twice`,
      );
    seen.add(pair);
    return parsed;
  });
  return { defaultingType: 'List', defaultConstraints: constraints };
}

const inReq = (key: string, value: string): LabelRequirement => ({
  key,
  operator: 'In',
  values: [value],
});

/**
 * kube's DefaultSelector: the labels of every Service in the pod's namespace whose
 * selector matches the pod, merged; then the pod's controller (by its ownerReference): a
 * ReplicationController adds its selector's labels, a ReplicaSet or StatefulSet its
 * selector's requirements. Undefined when the result is empty (no default constraints).
 */
export function defaultSelector(
  pod: PodInfo,
  objects: ObjectStoreView,
): PodLabelSelector | undefined {
  const merged = new Map<string, string>();
  for (const svc of objects.Service.values()) {
    if (svc.namespace !== pod.namespace || svc.selector === undefined) continue;
    if (!matchesMap(svc.selector, pod.labels)) continue;
    for (const r of svc.selector.requirements) merged.set(r.key, r.values[0] as string);
  }
  const extra: LabelRequirement[] = [];
  const owner = pod.controllerRef;
  if (owner !== undefined) {
    const key = `${pod.namespace}/${owner.name}`;
    if (owner.apiVersion === 'v1' && owner.kind === 'ReplicationController') {
      const rc = objects.ReplicationController.get(key);
      for (const r of rc?.selector?.requirements ?? []) merged.set(r.key, r.values[0] as string);
    } else if (owner.apiVersion === 'apps/v1' && owner.kind === 'ReplicaSet') {
      for (const r of objects.ReplicaSet.get(key)?.selector?.requirements ?? []) extra.push(r);
    } else if (owner.apiVersion === 'apps/v1' && owner.kind === 'StatefulSet') {
      for (const r of objects.StatefulSet.get(key)?.selector?.requirements ?? []) extra.push(r);
    }
  }
  if (merged.size === 0 && extra.length === 0) return undefined;
  const requirements: LabelRequirement[] = [];
  for (const [k, v] of merged) requirements.push(inReq(k, v));
  for (const r of extra) requirements.push(r);
  return { nothing: false, requirements };
}

/** A map selector (every requirement `In [one value]`) against a pod's labels. */
function matchesMap(sel: PodLabelSelector, labels: Record<string, string>): boolean {
  for (const r of sel.requirements) if (labels[r.key] !== r.values[0]) return false;
  return true;
}

/**
 * The constraints of `pod` for one action (`hard`: DoNotSchedule, `soft`: ScheduleAnyway),
 * as kube's PreFilter and PreScore take them: the pod's own when it has any at all;
 * otherwise the default constraints of that action with the deduced selector (none when
 * the selector is empty), each with minDomains 1, nodeAffinityPolicy Honor and
 * nodeTaintsPolicy Ignore.
 */
export function constraintsFor(
  pod: PodInfo,
  snapshot: ClusterSnapshot,
  args: SpreadArgs,
  action: 'hard' | 'soft',
): readonly SpreadConstraint[] {
  const own = pod.spreadConstraints;
  if (own.hard.length > 0 || own.soft.length > 0) return own[action];
  const wanted = action === 'hard' ? 'DoNotSchedule' : 'ScheduleAnyway';
  let any = false;
  for (const c of args.defaultConstraints) if (c.whenUnsatisfiable === wanted) any = true;
  if (!any) return noConstraints;
  const selector = defaultSelector(pod, snapshot.objects);
  if (selector === undefined) return noConstraints;
  const out: SpreadConstraint[] = [];
  for (const c of args.defaultConstraints) {
    if (c.whenUnsatisfiable !== wanted) continue;
    out.push({
      maxSkew: c.maxSkew,
      topologyKey: c.topologyKey,
      selector,
      minDomains: 1,
      nodeAffinityPolicy: 'Honor',
      nodeTaintsPolicy: 'Ignore',
    });
  }
  return out;
}

/**
 * kube's requireAllTopologies for scoring: nodes missing a topology key are left out of
 * scoring unless the constraints are the system defaults applied to a pod without its own
 * (then such nodes still score on the keys they have).
 */
export function requiresAllTopologies(pod: PodInfo, args: SpreadArgs): boolean {
  const own = pod.spreadConstraints;
  return own.hard.length > 0 || own.soft.length > 0 || args.defaultingType !== 'System';
}

const noConstraints: readonly SpreadConstraint[] = Object.freeze([]);
