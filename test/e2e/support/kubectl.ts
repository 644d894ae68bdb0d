// kubectl as a child process: apply/create YAML from stdin, read objects as JSON, list events.
import { runProcess } from './process.ts';

/** The parts of a Pod the e2e tests read. */
export interface PodJson {
  metadata: {
    name: string;
    namespace: string;
    uid?: string;
    resourceVersion?: string;
    deletionTimestamp?: string;
    creationTimestamp?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  spec: {
    nodeName?: string;
    schedulerName?: string;
    nodeSelector?: Record<string, string>;
    schedulingGates?: { name: string }[];
    /** The core PodGroup the pod joins (gate GenericWorkload). */
    schedulingGroup?: { podGroupName?: string };
    containers: ContainerJson[];
    initContainers?: ContainerJson[];
    overhead?: Record<string, string>;
  };
  status?: {
    phase?: string;
    conditions?: { type: string; status: string; reason?: string; message?: string }[];
  };
}

/** An owner reference as the API serves it. */
export interface OwnerReferenceJson {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** A container's name and resource requests. */
export interface ContainerJson {
  name: string;
  restartPolicy?: string;
  resources?: { requests?: Record<string, string> };
}

/** The parts of a Node the e2e tests read. */
export interface NodeJson {
  metadata: { name: string; labels?: Record<string, string> };
  spec?: { taints?: { key: string; value?: string; effect: string }[]; unschedulable?: boolean };
  status?: {
    allocatable?: Record<string, string>;
    capacity?: Record<string, string>;
    conditions?: { type: string; status: string }[];
  };
}

/** An events.k8s.io/v1 Event. */
export interface EventJson {
  metadata: { name: string; namespace: string };
  reason?: string;
  note?: string;
  type?: string;
  action?: string;
  reportingController?: string;
  regarding?: { kind?: string; name?: string; namespace?: string; uid?: string };
  series?: { count?: number };
  eventTime?: string;
}

/** What a kubectl invocation returned. */
export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Lines kubectl prints that say nothing about the command (kubectl 1.32 vs apiserver 1.34). */
const noise = /^WARNING: version difference|version skew/;

/** Runs kubectl against one kubeconfig. */
export class Kubectl {
  constructor(readonly kubeconfig: string) {}

  /**
   * Runs `kubectl ARGS` (with `input` on stdin). Throws with the command and its stderr
   * on a non-zero exit unless `allowFailure`; the version-skew warning is filtered out.
   */
  async run(
    args: string[],
    opts: { input?: string; allowFailure?: boolean; timeoutMs?: number } = {},
  ): Promise<KubectlResult> {
    const full = ['--kubeconfig', this.kubeconfig, '--request-timeout=20s', ...args];
    const r = await runProcess('kubectl', full, {
      input: opts.input ?? '',
      timeoutMs: opts.timeoutMs ?? 60_000,
    });
    const stderr = r.stderr
      .split('\n')
      .filter((l) => !noise.test(l))
      .join('\n')
      .trim();
    const result = { code: r.code ?? 128, stdout: r.stdout, stderr };
    if (result.code !== 0 && !opts.allowFailure) {
      throw new Error(
        `kubectl ${args.join(' ')} failed (exit ${r.code ?? r.signal}): ${stderr.slice(0, 2000)}`,
      );
    }
    return result;
  }

  /** `kubectl apply -f -` with `yaml` on stdin. */
  async apply(yaml: string): Promise<void> {
    await this.run(['apply', '-f', '-'], { input: yaml });
  }

  /** `kubectl create -f -` with `yaml` on stdin (one POST per object: faster than apply). */
  async create(yaml: string): Promise<void> {
    await this.run(['create', '-f', '-'], { input: yaml, timeoutMs: 120_000 });
  }

  /** `kubectl get ARGS -o json`, parsed. */
  async getJson<T>(args: string[]): Promise<T> {
    const r = await this.run(['get', ...args, '-o', 'json']);
    return JSON.parse(r.stdout) as T;
  }

  /** `kubectl get --raw PATH`, parsed as JSON. */
  async raw<T>(path: string): Promise<T> {
    const r = await this.run(['get', '--raw', path]);
    return JSON.parse(r.stdout) as T;
  }

  /** All pods of `namespace` (or of every namespace when omitted). */
  async pods(namespace?: string): Promise<PodJson[]> {
    const path = namespace === undefined ? '/api/v1/pods' : `/api/v1/namespaces/${namespace}/pods`;
    return (await this.raw<{ items: PodJson[] }>(path)).items;
  }

  /** One pod, or undefined when it does not exist. */
  async pod(namespace: string, name: string): Promise<PodJson | undefined> {
    const r = await this.run(['get', 'pod', '-n', namespace, name, '-o', 'json'], {
      allowFailure: true,
    });
    if (r.code === 0) return JSON.parse(r.stdout) as PodJson;
    if (/NotFound|not found/.test(r.stderr)) return undefined;
    throw new Error(`kubectl get pod ${namespace}/${name}: ${r.stderr}`);
  }

  /** All nodes. */
  async nodes(): Promise<NodeJson[]> {
    return (await this.raw<{ items: NodeJson[] }>('/api/v1/nodes')).items;
  }

  /** events.k8s.io/v1 Events of `namespace`. */
  async events(namespace: string): Promise<EventJson[]> {
    return (
      await this.raw<{ items: EventJson[] }>(
        `/apis/events.k8s.io/v1/namespaces/${namespace}/events`,
      )
    ).items;
  }
}

/** The PodScheduled condition of `pod`, if set. */
export function podScheduledCondition(pod: PodJson | undefined) {
  return pod?.status?.conditions?.find((c) => c.type === 'PodScheduled');
}

/** Events of `reason` about the pod called `name`. */
export function eventsAbout(events: EventJson[], name: string, reason: string): EventJson[] {
  return events.filter(
    (e) => e.reason === reason && e.regarding?.kind === 'Pod' && e.regarding.name === name,
  );
}
