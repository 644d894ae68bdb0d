// Volume plugins on a real control plane: a pre-bound local PV pins its pod for berth and kube-scheduler alike; unbound claims wait.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BerthRun, startBerth } from './support/berth.ts';
import { useCluster } from './support/cluster.ts';
import { type KubeScheduler, startKubeScheduler } from './support/kube-scheduler.ts';
import { type PodJson, podScheduledCondition } from './support/kubectl.ts';
import { kwokNode, type Manifest, namespace, pod, toYaml } from './support/manifests.ts';
import { waitFor } from './support/wait.ts';

const nodes = ['vol-a', 'vol-b', 'vol-c'].map((n) => kwokNode(n, { cpu: '4', memory: '8Gi' }));

const classes: Manifest[] = [
  {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name: 'e2e-immediate' },
    provisioner: 'kubernetes.io/no-provisioner',
    volumeBindingMode: 'Immediate',
  },
  {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name: 'e2e-wffc' },
    provisioner: 'kubernetes.io/no-provisioner',
    volumeBindingMode: 'WaitForFirstConsumer',
  },
];

/** A local PV that only `node` can mount, claimed by `ns/claim`. */
function localVolume(name: string, node: string, ns: string, claim: string): Manifest {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name },
    spec: {
      capacity: { storage: '1Gi' },
      accessModes: ['ReadWriteOnce'],
      storageClassName: 'e2e-wffc',
      local: { path: '/mnt/disk' },
      claimRef: { namespace: ns, name: claim },
      nodeAffinity: {
        required: {
          nodeSelectorTerms: [
            {
              matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [node] }],
            },
          ],
        },
      },
    },
  };
}

/**
 * A claim. `boundTo` makes it bound as the PV controller leaves it (volumeName and the
 * bind-completed annotation): no kube-controller-manager runs in these clusters.
 */
function claim(name: string, ns: string, storageClassName: string, boundTo?: string): Manifest {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {
      name,
      namespace: ns,
      ...(boundTo === undefined
        ? {}
        : // Any value: kube only asks whether the annotation is there ('yes' would be YAML 1.1's true).
          { annotations: { 'pv.kubernetes.io/bind-completed': 'completed' } }),
    },
    spec: {
      accessModes: ['ReadWriteOnce'],
      storageClassName,
      resources: { requests: { storage: '1Gi' } },
      ...(boundTo === undefined ? {} : { volumeName: boundTo }),
    },
  };
}

function withClaim(
  name: string,
  ns: string,
  claimName: string,
  schedulerName: string | null,
): Manifest {
  const p = pod(name, ns, { schedulerName });
  (p.spec as Manifest).volumes = [{ name: 'data', persistentVolumeClaim: { claimName } }];
  return p;
}

/** The objects of one namespace's run, for pods of `schedulerName` (null: kube's default). */
function workload(ns: string, schedulerName: string | null): Manifest[] {
  return [
    namespace(ns),
    localVolume(`${ns}-local`, 'vol-b', ns, 'local'),
    claim('local', ns, 'e2e-wffc', `${ns}-local`),
    claim('unbound', ns, 'e2e-immediate'),
    withClaim('on-local-pv', ns, 'local', schedulerName),
    withClaim('on-unbound', ns, 'unbound', schedulerName),
    withClaim('on-missing', ns, 'no-such-claim', schedulerName),
  ];
}

describe('volume plugins on real nodes', () => {
  const cluster = useCluster('volumes');
  let berth: BerthRun;
  let kube: KubeScheduler;

  beforeAll(async () => {
    const k = cluster().kubectl;
    await k.apply(toYaml([...nodes, ...classes]));
    await k.apply(toYaml(workload('vol-berth', 'berth').filter((o) => o.kind !== 'Pod')));
    await k.apply(toYaml(workload('vol-kube', null).filter((o) => o.kind !== 'Pod')));
    berth = await startBerth(cluster(), { name: 'berth' });
    kube = startKubeScheduler(cluster());
    await k.create(toYaml(workload('vol-berth', 'berth').filter((o) => o.kind === 'Pod')));
    await k.create(toYaml(workload('vol-kube', null).filter((o) => o.kind === 'Pod')));
  });

  afterAll(async () => {
    await berth?.stop('SIGKILL');
    await kube?.stop();
  });

  /** Waits until `on-local-pv` is bound and the two others are marked Unschedulable. */
  async function settled(ns: string): Promise<PodJson[]> {
    const seen = await waitFor(`${ns}: on-local-pv bound, the others Unschedulable`, async () => {
      berth.checkAlive();
      const ps = await cluster().kubectl.pods(ns);
      const local = ps.find((p) => p.metadata.name === 'on-local-pv');
      const others = ps.filter((p) => p.metadata.name !== 'on-local-pv');
      const ok =
        local?.spec.nodeName !== undefined &&
        others.length === 2 &&
        others.every((p) => podScheduledCondition(p)?.status === 'False');
      return { ok, seen: ps };
    });
    return seen;
  }

  const nodeOf = (ps: PodJson[], name: string) =>
    ps.find((p) => p.metadata.name === name)?.spec.nodeName;
  const messageOf = (ps: PodJson[], name: string) =>
    podScheduledCondition(ps.find((p) => p.metadata.name === name))?.message;

  it('puts the pod of a pre-bound local PV on that PV’s node, as kube-scheduler does', async () => {
    const ours = await settled('vol-berth');
    const theirs = await settled('vol-kube');
    expect(nodeOf(theirs, 'on-local-pv')).toBe('vol-b');
    expect(nodeOf(ours, 'on-local-pv')).toBe('vol-b');
  });

  it('keeps pods with an unbound or a missing claim pending, with kube-scheduler’s reasons', async () => {
    const ours = await settled('vol-berth');
    const theirs = await settled('vol-kube');
    for (const name of ['on-unbound', 'on-missing']) {
      const kubeMessage = messageOf(theirs, name);
      process.stderr.write(
        `[e2e] ${name}: berth: ${messageOf(ours, name)}\n[e2e] ${name}: kube: ${kubeMessage}\n`,
      );
      expect(nodeOf(ours, name)).toBeUndefined();
      // The whole message, the PostFilters' (DynamicResources, DefaultPreemption) part included.
      expect(messageOf(ours, name), name).toBe(kubeMessage);
    }
    // VolumeBinding's PreFilter stops the PreFilters before kube's DynamicResources writes
    // its state, so DynamicResources' PostFilter fails with "not found" (kube-scheduler 1.34).
    expect(messageOf(ours, 'on-unbound')).toBe(
      '0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims. not found',
    );
    expect(messageOf(ours, 'on-missing')).toBe(
      '0/3 nodes are available: persistentvolumeclaim "no-such-claim" not found. not found',
    );
  });

  it('keeps a pod whose WaitForFirstConsumer claim is unbound pending, naming the claim', async () => {
    const k = cluster().kubectl;
    await k.apply(toYaml([claim('delayed', 'vol-berth', 'e2e-wffc')]));
    await k.create(toYaml([withClaim('on-delayed', 'vol-berth', 'delayed', 'berth')]));
    const seen = await waitFor('on-delayed marked Unschedulable', async () => {
      const p = await k.pod('vol-berth', 'on-delayed');
      return { ok: podScheduledCondition(p)?.status === 'False', seen: p };
    });
    expect(seen?.spec.nodeName).toBeUndefined();
    expect(podScheduledCondition(seen)?.message).toBe(
      '0/3 nodes are available: berth does not bind or provision volumes yet: persistentvolumeclaim "vol-berth/delayed" is not bound.',
    );
  });
});
