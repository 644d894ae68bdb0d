// The "job-gang" e2e scenarios: a batch Job that kube's Job controller (WorkloadWithJob) turns into a Workload, a PodGroup and member pods.
import type { Api } from './api.ts';
import type { OwnerReferenceJson, PodJson } from './kubectl.ts';
import type { Manifest } from './manifests.ts';
import { poolLabel } from './scenario-gang.ts';
import { corePodGroupApi, workloadApiFlags } from './scenario-workload.ts';

/** The gates the Job controller's Workload integration needs (WorkloadWithJob needs GenericWorkload). */
export const jobGangGates = '--feature-gates=GenericWorkload=true,WorkloadWithJob=true';

/**
 * kube-apiserver flags: the Workload API served, and both gates (the Job's `spec.scheduling`
 * is dropped without WorkloadWithJob, and kube's bootstrap role for the job controller
 * grants workloads and podgroups only with it).
 */
export const jobGangApiserverFlags = [
  ...workloadApiFlags.filter((f) => !f.startsWith('--feature-gates=')),
  jobGangGates,
];

/** The label the Job controller puts on its pods, naming the Job. */
export const jobNameLabel = 'batch.kubernetes.io/job-name';
/** The label (and annotation) holding an Indexed Job pod's completion index. */
export const completionIndexLabel = 'batch.kubernetes.io/job-completion-index';

/** The parts of a Workload the scenarios read. */
export interface WorkloadJson {
  metadata: { name: string; uid: string; ownerReferences?: OwnerReferenceJson[] };
  spec: {
    controllerRef?: { apiGroup?: string; kind: string; name: string };
    podGroupTemplates: { name: string; schedulingPolicy: Record<string, unknown> }[];
  };
}

/** The parts of a PodGroup the scenarios read (the Job controller's). */
export interface JobPodGroupJson {
  metadata: { name: string; uid: string; ownerReferences?: OwnerReferenceJson[] };
  spec: {
    schedulingPolicy: Record<string, unknown>;
    workloadRef?: { workloadName: string; templateName: string };
  };
}

/** A Job pod with its owner references (PodJson leaves them out). */
export type JobPodJson = PodJson & { metadata: { ownerReferences?: OwnerReferenceJson[] } };

/**
 * An Indexed Job `name`: parallelism = completions = `size`, a gang of `minCount` (no
 * `spec.scheduling` when undefined: the controller's default, a basic group), pods of `cpu`
 * for scheduler `schedulerName`, kept to pool `pool`'s nodes.
 */
export function indexedJob(
  namespace: string,
  name: string,
  opts: { size: number; minCount?: number; cpu: string; pool: string; schedulerName: string },
): Manifest {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, namespace },
    spec: {
      completionMode: 'Indexed',
      parallelism: opts.size,
      completions: opts.size,
      ...(opts.minCount === undefined
        ? {}
        : { scheduling: { schedulingPolicy: { gang: { minCount: opts.minCount } } } }),
      template: {
        spec: {
          schedulerName: opts.schedulerName,
          restartPolicy: 'Never',
          terminationGracePeriodSeconds: 0,
          nodeSelector: { [poolLabel]: opts.pool },
          containers: [
            {
              name: 'worker',
              image: 'registry.k8s.io/pause:3.10',
              resources: { requests: { cpu: opts.cpu, memory: '64Mi' } },
            },
          ],
        },
      },
    },
  };
}

/** The pods of Job `job` in `namespace`, by completion index. */
export async function jobPods(api: Api, namespace: string, job: string): Promise<JobPodJson[]> {
  const selector = encodeURIComponent(`${jobNameLabel}=${job}`);
  const list = await api.ok<{ items: JobPodJson[] }>(
    'GET',
    `/api/v1/namespaces/${namespace}/pods?labelSelector=${selector}`,
  );
  const index = (p: PodJson) => Number(p.metadata.labels?.[completionIndexLabel] ?? -1);
  return list.items
    .filter((p) => !p.metadata.deletionTimestamp)
    .sort((a, b) => index(a) - index(b));
}

/** The Workloads of `namespace` (the Job controller's and any other). */
export async function workloads(api: Api, namespace: string): Promise<WorkloadJson[]> {
  const path = `${corePodGroupApi}/namespaces/${namespace}/workloads`;
  return (await api.ok<{ items: WorkloadJson[] }>('GET', path)).items;
}

/** The core PodGroups of `namespace`. */
export async function podGroups(api: Api, namespace: string): Promise<JobPodGroupJson[]> {
  const path = `${corePodGroupApi}/namespaces/${namespace}/podgroups`;
  return (await api.ok<{ items: JobPodGroupJson[] }>('GET', path)).items;
}
