// The "workload-gang-contest" e2e scenarios: competing core PodGroups, gang preemption, mixed members; and a watch of the groups' conditions.
import type { Api, Watch } from './api.ts';
import { type Manifest, pod } from './manifests.ts';
import { poolLabel } from './scenario-gang.ts';
import {
  type CorePodGroupJson,
  comparable,
  corePodGroup,
  corePodGroupApi,
  type GroupConditionJson,
  memberOfLabel,
} from './scenario-workload.ts';

/** The label the anti-affinity scenario's guard pod carries and its picky member avoids. */
export const guardLabel = 'e2e-role';

/** Core PodGroup `name` with a gang of `minCount`, of PriorityClass `priorityClassName` when given. */
export function contestGroup(
  namespace: string,
  name: string,
  minCount: number,
  priorityClassName?: string,
): Manifest {
  const pg = corePodGroup(namespace, name, minCount);
  if (priorityClassName !== undefined)
    (pg.spec as Record<string, unknown>).priorityClassName = priorityClassName;
  return pg;
}

/** What one member (or plain pod) of a scenario asks for. */
export interface ContestPodOptions {
  pool: string;
  cpu: string;
  schedulerName: string;
  priorityClassName?: string;
  /** Required anti-affinity (per node) to pods labelled `e2e-role: <value>`. */
  avoid?: string;
  labels?: Record<string, string>;
  /** Bound directly (spec.nodeName), not by a scheduler. */
  node?: string;
}

/** A pod `name` kept to pool `opts.pool`; a member of core PodGroup `group` when given. */
export function contestPod(
  namespace: string,
  name: string,
  group: string | undefined,
  opts: ContestPodOptions,
): Manifest {
  const p = pod(name, namespace, {
    cpu: opts.cpu,
    memory: '64Mi',
    schedulerName: opts.schedulerName,
    nodeSelector: { [poolLabel]: opts.pool },
    labels: { ...(group === undefined ? {} : { [memberOfLabel]: group }), ...opts.labels },
    ...(opts.avoid === undefined
      ? {}
      : {
          affinity: {
            podAntiAffinity: {
              requiredDuringSchedulingIgnoredDuringExecution: [
                {
                  labelSelector: { matchLabels: { [guardLabel]: opts.avoid } },
                  topologyKey: 'kubernetes.io/hostname',
                },
              ],
            },
          },
        }),
  });
  const spec = p.spec as Record<string, unknown>;
  if (group !== undefined) spec.schedulingGroup = { podGroupName: group };
  if (opts.priorityClassName !== undefined) spec.priorityClassName = opts.priorityClassName;
  if (opts.node !== undefined) spec.nodeName = opts.node;
  return p;
}

/** Members `${group}-${i}` of `group`, one per entry of `cpus` (its request), in that order. */
export function contestMembers(
  namespace: string,
  group: string,
  cpus: string[],
  opts: Omit<ContestPodOptions, 'cpu'>,
): Manifest[] {
  return cpus.map((cpu, i) => contestPod(namespace, `${group}-${i}`, group, { ...opts, cpu }));
}

/**
 * Watches the core PodGroups of a namespace and keeps, per group, every distinct
 * PodGroupInitiallyScheduled condition in the order seen (its time left out): a condition a
 * scheduler writes for a moment (e.g. while victims go) is kept even after it is replaced.
 */
export class GroupConditions {
  readonly seen = new Map<string, ReturnType<typeof comparable>[]>();
  private watch: Watch | undefined;

  constructor(
    private readonly api: Api,
    readonly namespace: string,
  ) {}

  async start(): Promise<void> {
    const path = `${corePodGroupApi}/namespaces/${this.namespace}/podgroups`;
    const rv = await this.api.listResourceVersion(path);
    this.watch = this.api.watch<CorePodGroupJson>(path, rv, (e) => {
      if (e.type === 'BOOKMARK' || e.type === 'ERROR') return;
      const cond = e.object.status?.conditions?.find(
        (c: GroupConditionJson) => c.type === 'PodGroupInitiallyScheduled',
      );
      if (cond === undefined) return;
      const list = this.seen.get(e.object.metadata.name) ?? [];
      const c = comparable(cond);
      if (JSON.stringify(list.at(-1)) !== JSON.stringify(c)) list.push(c);
      this.seen.set(e.object.metadata.name, list);
    });
  }

  /** The conditions group `name` has had, oldest first. */
  of(name: string): ReturnType<typeof comparable>[] {
    return this.seen.get(name) ?? [];
  }

  stop(): void {
    this.watch?.stop();
  }
}
