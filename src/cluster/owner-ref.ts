// A pod's controller reference (the ownerReference with controller: true), totally parsed.
import { isRecord, nonEmptyString } from './fields.ts';

/** The workload that controls a pod: PodTopologySpread's default selector looks it up. */
export interface ControllerRef {
  /** `apiVersion` as written (e.g. `apps/v1`, `v1`). */
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
}

/**
 * The first entry of `metadata.ownerReferences` with `controller: true` (kube's
 * GetControllerOf), or undefined when there is none or it lacks apiVersion, kind or name.
 * Never throws.
 */
export function parseControllerRef(v: unknown): ControllerRef | undefined {
  if (!Array.isArray(v)) return undefined;
  for (const ref of v) {
    if (!isRecord(ref) || ref.controller !== true) continue;
    const apiVersion = nonEmptyString(ref.apiVersion);
    const kind = nonEmptyString(ref.kind);
    const name = nonEmptyString(ref.name);
    if (apiVersion === undefined || kind === undefined || name === undefined) return undefined;
    return { apiVersion, kind, name };
  }
  return undefined;
}
