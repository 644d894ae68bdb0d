// Finds the first constraint in a pod spec that no berth plugin checks yet, so the pod is refused, not misplaced.
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
 * The reason a pod must wait because it asks for something no berth plugin checks yet
 * (`unsupportedReason` of the field's path, or a reason naming it), or undefined. Every
 * placement constraint berth reads has a plugin today (node selector and affinity, taints,
 * host ports, topology spread, inter-pod affinity and anti-affinity, volumes); DRA resource
 * claims do not. A constraint that Kubernetes gains before berth checks it belongs here.
 * Never throws.
 */
export function unsupportedConstraint(spec: unknown): string | undefined {
  if (!isRecord(spec)) return undefined;
  return resourceClaims(spec);
}
