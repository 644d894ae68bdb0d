// The ResourceClaim kube's resourceclaim controller makes from a pod's template: its generated name (deterministic in the sim) and its content.

import { podClaimNameAnnotation } from '../../cluster/dra-objects.ts';
import { seededRng } from '../../framework/rng.ts';
import type { PodObject } from '../../model/objects.ts';
import { isRecord, type JsonRecord } from '../../model/record.ts';

/** The API server's generateName alphabet (no vowels, no look-alikes). */
const suffixAlphabet = 'bcdfghjklmnpqrstvwxz2456789';
const suffixLength = 5;
/** The API server cuts a generateName to this length before the suffix (63 - 5). */
const maxGeneratedBase = 58;
/** The controller leaves room for a hyphen and the suffix (its `maxBaseLen`). */
const maxBaseLen = 57;

/**
 * kube's generateName for a pod's claim: `<pod>-<claim>-`, or, when longer than 57
 * characters, both names cut in proportion to their lengths and joined by one hyphen.
 */
export function generateNameFor(podName: string, claimName: string): string {
  const base = `${podName}-${claimName}-`;
  if (base.length <= maxBaseLen) return base;
  const pod = podName.slice(0, Math.floor((podName.length * maxBaseLen) / base.length));
  const claim = claimName.slice(0, Math.floor((claimName.length * maxBaseLen) / base.length));
  return `${pod}-${claim}`;
}

/** FNV-1a over UTF-16 code units: a stable 32-bit seed from text. */
function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/**
 * The claim's name: its generateName and five characters of the API server's alphabet,
 * drawn from a generator seeded by the pod (namespace, name, uid) and the entry's name, so
 * that the same run makes the same names. A name `taken` is drawn again, as kube's
 * controller retries a create refused with AlreadyExists.
 */
export function generatedClaimName(
  pod: PodObject,
  claimName: string,
  taken: (name: string) => boolean,
): string {
  const seed = `${pod.metadata.namespace ?? 'default'}/${pod.metadata.name}/${pod.metadata.uid}/${claimName}`;
  return generatedName(generateNameFor(pod.metadata.name, claimName), seed, taken);
}

/**
 * What the API server makes of `generateName` (cut to 58 characters) in the sim: five
 * characters of its alphabet drawn from a generator seeded by `seed`, drawn again while
 * `taken` (kube's writers retry a create refused with AlreadyExists).
 */
export function generatedName(
  generateName: string,
  seed: string,
  taken: (name: string) => boolean,
): string {
  const base = generateName.slice(0, maxGeneratedBase);
  const rng = seededRng(fnv1a(seed));
  for (;;) {
    let suffix = '';
    for (let i = 0; i < suffixLength; i++)
      suffix += suffixAlphabet[rng.nextInt(suffixAlphabet.length)];
    const name = base + suffix;
    if (!taken(name)) return name;
  }
}

/**
 * The claim kube's controller creates for entry `claimName` of `pod` from `template`: the
 * template's spec, labels and annotations, the `resource.kubernetes.io/pod-claim-name`
 * annotation, and the pod as its controlling owner.
 */
export function templateClaim(
  pod: PodObject,
  claimName: string,
  name: string,
  template: JsonRecord,
): JsonRecord {
  const tspec = isRecord(template.spec) ? template.spec : {};
  const tmeta = isRecord(tspec.metadata) ? tspec.metadata : {};
  const annotations = {
    ...(isRecord(tmeta.annotations) ? tmeta.annotations : {}),
    [podClaimNameAnnotation]: claimName,
  };
  const owner = {
    apiVersion: 'v1',
    kind: 'Pod',
    name: pod.metadata.name,
    uid: pod.metadata.uid,
    controller: true,
  };
  return {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'ResourceClaim',
    metadata: {
      name,
      generateName: generateNameFor(pod.metadata.name, claimName),
      namespace: pod.metadata.namespace ?? 'default',
      ownerReferences: [owner],
      annotations,
      ...(isRecord(tmeta.labels) ? { labels: { ...tmeta.labels } } : {}),
    },
    spec: structuredClone(isRecord(tspec.spec) ? tspec.spec : {}),
  };
}
