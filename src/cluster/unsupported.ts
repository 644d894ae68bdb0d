// Finds the first constraint in a pod spec that no berth plugin checks yet, so the pod is refused, not misplaced.
import { isRecord } from './fields.ts';

/** The one-line reason for a field berth cannot honour yet. */
export function unsupportedReason(field: string): string {
  return `berth does not support ${field} yet`;
}

const REQUIRED = 'requiredDuringSchedulingIgnoredDuringExecution';

/** Required terms are present unless the field is absent, null or an empty list. */
function hasTerms(v: unknown): boolean {
  return v !== undefined && v !== null && !(Array.isArray(v) && v.length === 0);
}

function requiredPodAffinity(spec: Record<string, unknown>): string | undefined {
  const affinity = spec.affinity;
  if (!isRecord(affinity)) return undefined;
  for (const kind of ['podAffinity', 'podAntiAffinity']) {
    const a = affinity[kind];
    if (isRecord(a) && hasTerms(a[REQUIRED])) return `spec.affinity.${kind}.${REQUIRED}`;
  }
  return undefined;
}

/**
 * The reason a pod must wait because it asks for something no berth plugin checks yet, or
 * undefined. Checks, in order, and names the first field found: required pod affinity,
 * required pod anti-affinity. Preferred pod affinity only affects scoring and passes. Never throws; a non-object spec has nothing to refuse.
 */
export function unsupportedConstraint(spec: unknown): string | undefined {
  if (!isRecord(spec)) return undefined;
  const field = requiredPodAffinity(spec);
  return field === undefined ? undefined : unsupportedReason(field);
}
