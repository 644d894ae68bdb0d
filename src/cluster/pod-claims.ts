// A pod's DRA resource claims (`spec.resourceClaims`) with the claim each one names, as the resourceclaim controller reported it.
import { isRecord } from './fields.ts';

/** One entry of `spec.resourceClaims`, with what names its ResourceClaim. */
export interface PodResourceClaim {
  /** `spec.resourceClaims[].name`: how the containers refer to it. */
  name: string;
  /** `resourceClaimName`: an existing claim the pod shares. */
  claimName?: string;
  /** `resourceClaimTemplateName`: a claim made for this pod from the template. */
  templateName?: string;
  /**
   * For a template: the claim `status.resourceClaimStatuses` names for this entry, null when
   * it says no claim is needed, absent while the controller has not made it yet.
   */
  generatedName?: string | null;
}

/**
 * The pod's claims in spec order; undefined when it has none (the common case: no list
 * per pod). Entries that are not objects or have no name are dropped (the API server
 * refuses them).
 */
export function parsePodResourceClaims(
  spec: Record<string, unknown>,
  status: Record<string, unknown>,
): PodResourceClaim[] | undefined {
  const claims = spec.resourceClaims;
  if (!Array.isArray(claims) || claims.length === 0) return undefined;
  const generated = new Map<string, string | null>();
  if (Array.isArray(status.resourceClaimStatuses))
    for (const s of status.resourceClaimStatuses)
      if (isRecord(s) && typeof s.name === 'string')
        generated.set(s.name, typeof s.resourceClaimName === 'string' ? s.resourceClaimName : null);
  const out: PodResourceClaim[] = [];
  for (const c of claims) {
    if (!isRecord(c) || typeof c.name !== 'string' || c.name === '') continue;
    const entry: PodResourceClaim = { name: c.name };
    if (typeof c.resourceClaimName === 'string') entry.claimName = c.resourceClaimName;
    if (typeof c.resourceClaimTemplateName === 'string') {
      entry.templateName = c.resourceClaimTemplateName;
      const name = generated.get(c.name);
      if (name !== undefined) entry.generatedName = name;
    }
    out.push(entry);
  }
  return out.length > 0 ? out : undefined;
}
