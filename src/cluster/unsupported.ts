// What berth refused before it checked a constraint (DRA resource claims), kept so logs recorded then replay alike.
import { isRecord } from './fields.ts';

/** The one-line reason for a field berth cannot honour yet. */
export function unsupportedReason(field: string): string {
  return `berth does not support ${field} yet`;
}

/**
 * The reason for a pod with DRA resource claims (`spec.resourceClaims`, which kube's
 * DynamicResources plugin allocates), naming the first claim, or undefined.
 */
function resourceClaims(spec: Record<string, unknown>): string | undefined {
  const claims = spec.resourceClaims;
  if (!Array.isArray(claims) || claims.length === 0) return undefined;
  const first: unknown = claims[0];
  const name = isRecord(first) && typeof first.name === 'string' ? first.name : '';
  return `berth does not support dynamic resource allocation yet: spec.resourceClaims[0] (${name})`;
}

/**
 * The reason berth refused a pod before it checked what the pod asks for, or undefined.
 * Every placement constraint berth reads has a plugin today (node selector and affinity,
 * taints, host ports, topology spread, inter-pod affinity and anti-affinity, volumes, DRA
 * resource claims); the claims' old refusal is still named here because a log recorded
 * before DynamicResources allocated them (no `resourceClaims` in its config) replays it
 * (UnsupportedConstraints answers with it only then). A constraint that Kubernetes gains
 * before berth checks it belongs here too. Never throws.
 */
export function unsupportedConstraint(spec: unknown): string | undefined {
  if (!isRecord(spec)) return undefined;
  return resourceClaims(spec);
}
