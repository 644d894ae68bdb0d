// Kubernetes name syntax the configuration checks: qualified (label) names and label values.

const namePart = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const dnsSubdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/**
 * Why `name` is not a qualified name (kube's IsQualifiedName, what label keys and topology
 * keys must be: an optional DNS-subdomain prefix and `/`, then 1–63 alphanumerics, `-`,
 * `_`, `.`), or undefined when it is one.
 */
export function qualifiedNameProblem(name: string): string | undefined {
  const parts = name.split('/');
  if (parts.length > 2) return 'must have at most one "/"';
  const [prefix, last] = parts.length === 2 ? parts : [undefined, parts[0]];
  if (prefix !== undefined) {
    if (prefix === '') return 'has an empty prefix before "/"';
    if (prefix.length > 253 || !dnsSubdomain.test(prefix))
      return `has a prefix ${JSON.stringify(prefix)} that is not a DNS subdomain`;
  }
  if (last === undefined || last === '') return 'must have a name part';
  if (last.length > 63) return 'has a name part longer than 63 characters';
  if (!namePart.test(last))
    return 'must start and end with an alphanumeric character and hold only alphanumerics, "-", "_" or "."';
  return undefined;
}

/** Why `value` is not a valid label value (empty, or a name part), or undefined. */
export function labelValueProblem(value: string): string | undefined {
  if (value === '') return undefined;
  if (value.length > 63) return 'is longer than 63 characters';
  if (!namePart.test(value))
    return 'must start and end with an alphanumeric character and hold only alphanumerics, "-", "_" or "."';
  return undefined;
}
