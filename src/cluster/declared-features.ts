// Node declared features: those a pod's spec needs (kube 1.37.2's inference) and those a node declares.
import { isRecord } from './fields.ts';

/** Needs a pod-level restart rule on the node: a container rule with this action. */
export const restartAllContainers = 'RestartAllContainersOnContainerExits';
/** Host networking inside a user namespace (`hostNetwork: true`, `hostUsers: false`). */
export const userNamespacesHostNetwork = 'UserNamespacesHostNetworkSupport';
/** Extra bind mount options on a volume mount (kube 1.37, alpha field). */
export const volumeBindMountOptions = 'VolumeBindMountOptions';

/** A shared empty list: most pods need no feature and most nodes declare none. */
export const NO_FEATURES: readonly string[] = Object.freeze([]);

function records(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

function restartsAll(containers: unknown): boolean {
  return records(containers).some((c) =>
    records(c.restartPolicyRules).some((r) => r.action === 'RestartAllContainers'),
  );
}

function hasBindMountOptions(containers: unknown): boolean {
  return records(containers).some((c) =>
    records(c.volumeMounts).some(
      (m) => Array.isArray(m.bindMountOptions) && m.bindMountOptions.length > 0,
    ),
  );
}

/**
 * The node features `spec` needs, as kube 1.37.2's NodeDeclaredFeatures framework infers
 * them for scheduling (sorted by name, as kube's registry is): a container or init
 * container restart rule with action `RestartAllContainers`; `hostNetwork` with
 * `hostUsers: false`; a container, init or ephemeral container volume mount with
 * `bindMountOptions`. Which of them a release checks is the plugin's business. Never throws.
 */
export function requiredNodeFeatures(spec: unknown): readonly string[] {
  if (!isRecord(spec)) return NO_FEATURES;
  const needs: string[] = [];
  if (restartsAll(spec.containers) || restartsAll(spec.initContainers))
    needs.push(restartAllContainers);
  if (spec.hostNetwork === true && spec.hostUsers === false) needs.push(userNamespacesHostNetwork);
  if (
    hasBindMountOptions(spec.containers) ||
    hasBindMountOptions(spec.initContainers) ||
    hasBindMountOptions(spec.ephemeralContainers)
  )
    needs.push(volumeBindMountOptions);
  return needs.length === 0 ? NO_FEATURES : needs;
}

/**
 * `status.declaredFeatures` as the node lists them (the API server keeps the list sorted and
 * unique); entries that are not strings are left out, anything but a list is none.
 */
export function parseDeclaredFeatures(value: unknown): readonly string[] {
  if (!Array.isArray(value) || value.length === 0) return NO_FEATURES;
  return value.filter((f): f is string => typeof f === 'string');
}

/** True when two declared-feature lists are equal entry by entry (kube's slices.Equal). */
export function sameFeatures(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((f, i) => f === b[i]);
}
