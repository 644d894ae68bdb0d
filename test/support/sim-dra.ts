// Pods, templates and claims for tests of the simulated cluster's DRA (claims from templates, pod cleanup), on the manual-clock sim.
import type { ManifestObject } from '../../src/adapters/sim/manifests.ts';
import type { InputEvent } from '../../src/events/types.ts';
import type { AllocationResult } from '../../src/model/dra-types.ts';
import type { PodObject } from '../../src/model/objects.ts';
import type { JsonRecord } from '../../src/model/record.ts';
import { podObject } from './objects.ts';
import { manualSim } from './sim-harness.ts';

/** The device requests of the claims in these tests. */
export const claimSpec = {
  devices: {
    requests: [{ name: 'gpu', exactly: { deviceClassName: 'gpu.example.com', count: 2 } }],
  },
};
/** ResourceClaimTemplate `ml/two-gpus`, with labels and annotations for its claims. */
export const template: ManifestObject = {
  kind: 'ResourceClaimTemplate',
  object: {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'ResourceClaimTemplate',
    metadata: { name: 'two-gpus', namespace: 'ml' },
    spec: {
      metadata: {
        labels: { 'example.com/claim-of': 'two-gpus' },
        annotations: { 'example.com/note': 'copied' },
      },
      spec: claimSpec,
    },
  },
  origin: 'test',
};
/** One device on n1. */
export const allocation: AllocationResult = {
  devices: { results: [{ request: 'gpu', driver: 'gpu.example.com', pool: 'n1', device: 'g0' }] },
};
/** kube-scheduler's finalizer on the claims it allocates. */
export const finalizer = 'resource.kubernetes.io/delete-protection';

/** A pending pod in `ml` with the given `spec.resourceClaims`. */
export function claimPod(name: string, claims: JsonRecord[]): PodObject {
  const pod = podObject(name, { namespace: 'ml' });
  (pod.spec as JsonRecord).resourceClaims = claims;
  return pod;
}
/** A `spec.resourceClaims` entry made from a template. */
export const fromTemplate = (name = 'accel', templateName = 'two-gpus') => ({
  name,
  resourceClaimTemplateName: templateName,
});

/** A shared claim in `ml` as a manifest gives it. */
export function sharedClaim(name: string): ManifestObject {
  return {
    kind: 'ResourceClaim',
    object: { kind: 'ResourceClaim', metadata: { name, namespace: 'ml' }, spec: claimSpec },
    origin: 'test',
  };
}

/**
 * A started sim holding `pods` and `objects`, its start-up events cleared, with accessors
 * for the claims it holds and `bind(pod, claims, allocate)` (binds to n1 and lets it land).
 */
export function started(pods: PodObject[], objects: ManifestObject[] = [template]) {
  const t = manualSim({ pods, objects });
  t.sim.start();
  t.seen.length = 0;
  const claim = (name: string) =>
    t.sim.claimObjects().find((c) => (c.metadata as JsonRecord).name === name);
  const claimOf = (pod: string) =>
    t.sim.claimObjects().find((c) => {
      const owners = (c.metadata as JsonRecord).ownerReferences as JsonRecord[] | undefined;
      return owners?.[0]?.uid === t.uidOf(pod);
    });
  const claimUid = (name: string) =>
    (claim(name)?.metadata as JsonRecord | undefined)?.uid as string;
  const nameOf = (c: JsonRecord | undefined) => (c?.metadata as JsonRecord | undefined)?.name;
  /** Binds `pod` to n1 with its claims (allocating those in `allocate`) and lets it land. */
  const bind = (pod: string, claims: string[], allocate: string[] = claims) => {
    t.sim.execute({
      kind: 'bind',
      attempt: { uid: t.uidOf(pod), key: `ml/${pod}`, attempt: 1 },
      node: 'n1',
      claims: claims.map((n) => ({
        namespace: 'ml',
        name: n,
        uid: claimUid(n),
        ...(allocate.includes(n) ? { allocation } : {}),
      })),
    });
    t.advance(5);
  };
  return { ...t, claim, claimOf, claimUid, nameOf, bind };
}

/** Each event as one line: its type, kind and name. */
export function lines(seen: InputEvent[]): string[] {
  return seen.map((e) => {
    if (e.type === 'ObjectUpserted') return `${e.kind} ${(e.object.metadata as JsonRecord).name}`;
    if (e.type === 'ObjectDeleted') return `deleted ${e.key}`;
    if (e.type === 'PodUpserted') return `Pod ${e.pod.metadata.name}`;
    return e.type;
  });
}
