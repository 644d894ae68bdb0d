// An in-process cluster: serves nodes and pods as events and applies binds after a latency.
import { type Observable, Subject } from 'rxjs';
import type { NodeObject, PodObject } from '../../cluster/objects.ts';
import type { InputEvent } from '../../events/types.ts';
import type { Rng } from '../../framework/rng.ts';
import { trimNode, trimPod } from '../trim.ts';

/** Schedules work at an absolute logical time (the run's clock). */
export interface SimTimers {
  now(): number;
  schedule(deadline: number, fire: () => void): void;
}

/** How the simulated API server behaves. */
export interface SimClusterOptions {
  nodes: NodeObject[];
  pods: PodObject[];
  timers: SimTimers;
  /** Delay between a bind command and its result. */
  bindLatencyMs: number;
  /** Probability in [0, 1] that a bind fails with an injected error. */
  bindFailureRate: number;
  /** Randomness for injected failures (not the core's generator). */
  rng: Rng;
}

function keyOf(pod: PodObject): string {
  return `${pod.metadata.namespace ?? 'default'}/${pod.metadata.name}`;
}

/**
 * A simulated API server. `events$` emits a relist of nodes and pods on `start()`, then
 * the results of binds (BindSucceeded/BindFailed, followed by the bound pod's update, as
 * a watch would show it).
 */
export class SimCluster {
  private readonly subject = new Subject<InputEvent>();
  private readonly pods = new Map<string, PodObject>();
  /** The simulated cluster's event stream. */
  readonly events$: Observable<InputEvent> = this.subject.asObservable();

  constructor(private readonly opts: SimClusterOptions) {
    for (const pod of opts.pods) this.pods.set(keyOf(pod), pod);
  }

  /** Emits the initial list of nodes and pods, as a reflector's first relist. */
  start(): void {
    this.subject.next({ type: 'ResyncStarted', kind: 'Node' });
    for (const node of this.opts.nodes)
      this.subject.next({ type: 'NodeUpserted', node: trimNode(node) });
    this.subject.next({ type: 'ResyncDone', kind: 'Node' });
    this.subject.next({ type: 'ResyncStarted', kind: 'Pod' });
    for (const pod of this.pods.values())
      this.subject.next({ type: 'PodUpserted', pod: trimPod(pod) });
    this.subject.next({ type: 'ResyncDone', kind: 'Pod' });
  }

  /** Adds or replaces a pod now, as if created through the API. */
  createPod(pod: PodObject): void {
    this.pods.set(keyOf(pod), pod);
    this.subject.next({ type: 'PodUpserted', pod: trimPod(pod) });
  }

  /** Adds or replaces a node now. */
  addNode(node: NodeObject): void {
    this.subject.next({ type: 'NodeUpserted', node: trimNode(node) });
  }

  /** Deletes a pod now. */
  deletePod(key: string): void {
    if (this.pods.delete(key)) this.subject.next({ type: 'PodDeleted', key });
  }

  /** Binds after the configured latency; the outcome arrives on `events$`. */
  bind(key: string, node: string): void {
    const { timers, bindLatencyMs } = this.opts;
    timers.schedule(timers.now() + bindLatencyMs, () => this.completeBind(key, node));
  }

  private completeBind(key: string, node: string): void {
    const pod = this.pods.get(key);
    if (pod === undefined) {
      this.subject.next({
        type: 'BindFailed',
        key,
        node,
        reason: 'NotFound',
        message: `pods "${key}" not found`,
      });
      return;
    }
    const current = pod.spec.nodeName;
    if (current !== undefined && current !== '') {
      const message = `pod ${key} is already assigned to node "${current}"`;
      this.subject.next({ type: 'BindFailed', key, node, reason: 'Conflict', message });
      return;
    }
    if (this.opts.bindFailureRate > 0 && this.opts.rng.nextFloat() < this.opts.bindFailureRate) {
      this.subject.next({
        type: 'BindFailed',
        key,
        node,
        reason: 'Error',
        message: 'injected bind failure',
      });
      return;
    }
    const bound: PodObject = {
      ...pod,
      spec: { ...pod.spec, nodeName: node },
      status: { ...pod.status, phase: 'Running' },
    };
    this.pods.set(key, bound);
    this.subject.next({ type: 'BindSucceeded', key, node });
    this.subject.next({ type: 'PodUpserted', pod: trimPod(bound) });
  }
}
