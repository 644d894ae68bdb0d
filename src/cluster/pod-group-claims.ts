// A core PodGroup's shared DRA claims (spec.resourceClaims, status.resourceClaimStatuses; DRAWorkloadResourceClaims), checked as the API server's validation words it.
import { isRecord } from './fields.ts';
import type { PodResourceClaim } from './pod-claims.ts';

/** kube's scheduling MaxPodGroupResourceClaims: `spec.resourceClaims` holds at most 4 entries. */
export const maxPodGroupResourceClaims = 4;

/** One `spec.resourceClaims` entry: its name in the group and the claim or template it names. */
export interface PodGroupClaim {
  name: string;
  /** `resourceClaimName`: an existing claim the group shares. */
  claimName?: string;
  /** `resourceClaimTemplateName`: a claim the resourceclaim controller makes for the group. */
  templateName?: string;
  /**
   * For a template: the claim `status.resourceClaimStatuses` names for this entry, null when
   * it says no claim is needed, absent while the controller has not made it yet.
   */
  generatedName?: string | null;
}

/** What berth reads of a PodGroup's claims: the well-formed entries and the validation errors. */
export interface PodGroupClaims {
  /** The PodGroup's uid, which a claim's `reservedFor` entry for the group carries. */
  podGroupUid?: string;
  /** The entries in spec order (those with a name; the rest are named in `problems`). */
  entries: PodGroupClaim[];
  /** The API server's validation errors, each as `field: ...` (empty: valid). */
  problems: string[];
}

/** The answer for a PodGroup without `spec.resourceClaims` (shared: never written). */
export const noPodGroupClaims: PodGroupClaims = Object.freeze({
  entries: Object.freeze([]) as unknown as PodGroupClaim[],
  problems: Object.freeze([]) as unknown as string[],
});

const labelFmt = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const labelRe = new RegExp(`^${labelFmt}$`);
const subdomainFmt = `${labelFmt}(\\.${labelFmt})*`;
const subdomainRe = new RegExp(`^${subdomainFmt}$`);

/** apimachinery's IsDNS1123Label messages (format k8s-short-name). */
function labelProblems(v: string): string[] {
  const out: string[] = [];
  if (v.length > 63) out.push('must be no more than 63 bytes');
  if (labelRe.test(v)) return out;
  out.push(
    subdomainRe.test(v)
      ? 'must not contain dots'
      : `a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '${labelFmt}')`,
  );
  return out;
}

/** apimachinery's IsDNS1123Subdomain messages (format k8s-long-name). */
function subdomainProblems(v: string): string[] {
  const out: string[] = [];
  if (v.length > 253) out.push('must be no more than 253 bytes');
  if (!subdomainRe.test(v))
    out.push(
      `a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '${subdomainFmt}')`,
    );
  return out;
}

/** field.Invalid's rendering: `path: Invalid value: "v": detail`. */
const invalid = (path: string, value: unknown, detail: string): string =>
  `${path}: Invalid value: ${JSON.stringify(value)}: ${detail}`;

/** One entry, checked as the generated validation does (format, union); undefined without a name. */
function readEntry(raw: unknown, path: string, problems: string[]): PodGroupClaim | undefined {
  if (!isRecord(raw)) {
    problems.push(invalid(path, raw, 'must be an object'));
    return undefined;
  }
  const { name, resourceClaimName: claim, resourceClaimTemplateName: template } = raw;
  if (typeof name !== 'string' || name === '') {
    problems.push(`${path}.name: Required value`);
    return undefined;
  }
  for (const p of labelProblems(name)) problems.push(invalid(`${path}.name`, name, p));
  const entry: PodGroupClaim = { name };
  const members: [string, unknown][] = [
    ['resourceClaimName', claim],
    ['resourceClaimTemplateName', template],
  ];
  const set = members.filter(([, v]) => v !== undefined && v !== null);
  const all = 'resourceClaimName, resourceClaimTemplateName';
  if (set.length === 0) problems.push(invalid(path, '', `must specify one of: ${all}`));
  if (set.length > 1)
    problems.push(
      invalid(path, `{${set.map(([k]) => k).join(', ')}}`, `must specify exactly one of: ${all}`),
    );
  for (const [field, v] of set) {
    if (typeof v !== 'string') {
      problems.push(invalid(`${path}.${field}`, v, 'must be a string'));
      continue;
    }
    for (const p of subdomainProblems(v)) problems.push(invalid(`${path}.${field}`, v, p));
  }
  if (typeof claim === 'string') entry.claimName = claim;
  if (typeof template === 'string') entry.templateName = template;
  return entry;
}

/** `status.resourceClaimStatuses` by entry name; a status naming no spec entry is a problem. */
function readStatuses(
  status: unknown,
  entries: readonly PodGroupClaim[],
  problems: string[],
): Map<string, string | null> {
  const out = new Map<string, string | null>();
  const list = isRecord(status) ? status.resourceClaimStatuses : undefined;
  if (!Array.isArray(list)) return out;
  list.forEach((s, i) => {
    if (!isRecord(s) || typeof s.name !== 'string') return;
    if (!entries.some((e) => e.name === s.name)) {
      const path = `status.resourceClaimStatuses[${i}].name`;
      problems.push(
        invalid(path, s.name, 'must match the name of an entry in `spec.resourceClaims`'),
      );
      return;
    }
    out.set(s.name, typeof s.resourceClaimName === 'string' ? s.resourceClaimName : null);
  });
  return out;
}

/**
 * A PodGroup's `spec.resourceClaims` with the claim names its status records for templates.
 * Never throws. What the API server would refuse (more than 4 entries, a name missing or not
 * a DNS label, a duplicate name, not exactly one of the claim and template names, a name not
 * a DNS subdomain, a status naming no entry) is in `problems`, worded as its validation words
 * it; entries with a name are kept either way.
 */
export function parsePodGroupClaims(spec: unknown, status: unknown, uid?: unknown): PodGroupClaims {
  const list = isRecord(spec) ? spec.resourceClaims : undefined;
  if (list === undefined || list === null) return noPodGroupClaims;
  const problems: string[] = [];
  if (!Array.isArray(list))
    return { entries: [], problems: [invalid('spec.resourceClaims', list, 'must be a list')] };
  if (list.length === 0) return noPodGroupClaims;
  if (list.length > maxPodGroupResourceClaims)
    problems.push(
      `spec.resourceClaims: Too many: ${list.length}: must have at most ${maxPodGroupResourceClaims} items`,
    );
  const entries: PodGroupClaim[] = [];
  list.forEach((raw, i) => {
    const path = `spec.resourceClaims[${i}]`;
    const entry = readEntry(raw, path, problems);
    if (entry === undefined) return;
    if (entries.some((e) => e.name === entry.name))
      problems.push(`${path}: Duplicate value: ${JSON.stringify(raw)}`);
    else entries.push(entry);
  });
  const generated = readStatuses(status, entries, problems);
  for (const e of entries) {
    const name = e.templateName === undefined ? undefined : generated.get(e.name);
    if (name !== undefined) e.generatedName = name;
  }
  return typeof uid === 'string' && uid !== ''
    ? { podGroupUid: uid, entries, problems }
    : { entries, problems };
}

/**
 * The PodGroup claim a pod's claim entry shares (kube's resourceclaim.BindTo): the entry of
 * the same name that names the same claim or the same template, and nothing else; undefined
 * when none does (the pod's claim is then its own, reserved for the pod).
 */
export function sharedGroupClaim(
  group: PodGroupClaims,
  podClaim: PodResourceClaim,
): PodGroupClaim | undefined {
  return group.entries.find(
    (e) =>
      e.name === podClaim.name &&
      e.claimName === podClaim.claimName &&
      e.templateName === podClaim.templateName,
  );
}

/**
 * Why berth will not schedule core PodGroup `groupName`'s members: its `spec.resourceClaims`
 * break the API's validation (worded as the API server words it). Undefined when they do not.
 */
export function podGroupClaimsRefusal(
  groupName: string,
  group: PodGroupClaims,
): string | undefined {
  if (group.problems.length === 0) return undefined;
  return `PodGroup ${groupName} (scheduling.k8s.io/v1beta1) is invalid: ${group.problems.join('; ')}`;
}
