// The Kubernetes effect adapter: binds pods, sets PodScheduled, records Events, rate-limited.
import { PatchStrategy, V1MicroTime } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { BindFailureReason, InputEvent } from '../../events/types.ts';
import type { EffectPort } from '../../runtime/scheduler.ts';
import { describeApiError } from './api-error.ts';
import type { KubeClients } from './config.ts';
import type { TokenBucket } from './rate-limiter.ts';
import { timeoutOptions } from './request-options.ts';

/** What a KubeEffects is built with. */
export interface KubeEffectsOptions {
  clients: KubeClients;
  /** Every write waits for a token here first. */
  limiter: TokenBucket;
  /** Where bind results go (they become BindSucceeded/BindFailed in the log). */
  ingest: (event: InputEvent) => void;
  logger: Logger;
  /** `reportingController` of the Events (default `berth`). */
  reportingController?: string;
  /** `reportingInstance` of the Events (e.g. `berth-<hostname>`). */
  reportingInstance: string;
  schedulerName: string;
  /** UID of a pod by key, when known: lets `kubectl describe pod` find the Events. */
  uidOf?: (key: string) => string | undefined;
  /** Timeout of each API write (default 30 s). */
  requestTimeoutMs?: number;
  /** How many pods' last unschedulable message to remember (default 10,000). */
  maxRemembered?: number;
  /** Wall clock for condition and event timestamps (default `new Date()`). */
  now?: () => Date;
}

/** The events.k8s.io/v1 `note` limit (1 kB); longer notes are rejected by the API. */
const noteLimit = 1024;

function splitKey(key: string): { namespace: string; name: string } {
  const slash = key.indexOf('/');
  return slash < 0
    ? { namespace: 'default', name: key }
    : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

function truncateBytes(text: string, limit: number): string {
  if (Buffer.byteLength(text) <= limit) return text;
  let out = text.slice(0, limit);
  while (Buffer.byteLength(out) > limit - 3) out = out.slice(0, -1);
  return `${out}...`;
}

function bindFailureReason(code: number | undefined): BindFailureReason {
  if (code === 409) return 'Conflict';
  if (code === 404) return 'NotFound';
  return 'Error';
}

/**
 * Carries out berth's commands against the API server. `bind` reports its outcome through
 * `ingest`; reports (condition, Events) are fire-and-forget and only logged on failure.
 * No method throws or leaves a rejected promise behind.
 */
export class KubeEffects implements EffectPort {
  private readonly inFlight = new Set<Promise<void>>();
  /** Last unschedulable message per pod, oldest first (Map keeps insertion order). */
  private readonly lastUnschedulable = new Map<string, string>();
  private stopped = false;
  /** Makes event names unique within one millisecond. */
  private eventSeq = 0;
  private readonly log: Logger;

  constructor(private readonly opts: KubeEffectsOptions) {
    this.log = opts.logger.child({ effects: 'kube' });
  }

  /** Binds pod `key` to `node` (POST pods/binding); the result comes back through `ingest`. */
  bind(key: string, node: string): void {
    if (this.stopped) return;
    this.track(this.runBind(key, node));
  }

  /** Sets PodScheduled=False/Unschedulable and records FailedScheduling, once per message. */
  reportUnschedulable(key: string, message: string): void {
    if (this.stopped || this.lastUnschedulable.get(key) === message) return;
    this.remember(key, message);
    const { namespace, name } = splitKey(key);
    const condition = {
      type: 'PodScheduled',
      status: 'False',
      reason: 'Unschedulable',
      message,
      lastTransitionTime: this.now().toISOString(),
    };
    this.write(
      'patch PodScheduled',
      key,
      () =>
        this.opts.clients.core.patchNamespacedPodStatus(
          { name, namespace, body: { status: { conditions: [condition] } } },
          timeoutOptions(this.timeoutMs, PatchStrategy.StrategicMergePatch),
        ),
      message,
    );
    this.recordEvent(key, 'Warning', 'FailedScheduling', 'Scheduling', message, message);
  }

  /** Records the `Scheduled` Event for pod `key` on `node`. */
  reportScheduled(key: string, node: string): void {
    this.lastUnschedulable.delete(key);
    if (this.stopped) return;
    this.recordEvent(
      key,
      'Normal',
      'Scheduled',
      'Binding',
      `Successfully assigned ${key} to ${node}`,
    );
  }

  /** Resolves when every write issued so far (and any issued meanwhile) has settled. */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  /** Makes later calls no-ops; writes still waiting for a token are dropped, not sent. */
  stop(): void {
    this.stopped = true;
  }

  private get timeoutMs(): number {
    return this.opts.requestTimeoutMs ?? 30_000;
  }

  private now(): Date {
    return this.opts.now?.() ?? new Date();
  }

  private async runBind(key: string, node: string): Promise<void> {
    const { namespace, name } = splitKey(key);
    await this.opts.limiter.take();
    // Stopped while waiting: not sent; the pod stays pending for the next berth.
    if (this.stopped) return;
    let result: InputEvent;
    try {
      await this.opts.clients.core.createNamespacedPodBinding(
        {
          name,
          namespace,
          body: {
            apiVersion: 'v1',
            kind: 'Binding',
            metadata: { name, namespace },
            target: { apiVersion: 'v1', kind: 'Node', name: node },
          },
        },
        timeoutOptions(this.timeoutMs),
      );
      result = { type: 'BindSucceeded', key, node };
    } catch (err) {
      const f = describeApiError(err);
      const reason = bindFailureReason(f.code);
      this.log.warn({ pod: key, node, reason, code: f.code, err: f.message }, 'bind failed');
      result = { type: 'BindFailed', key, node, reason, message: f.message };
    }
    try {
      this.opts.ingest(result);
    } catch (err) {
      this.log.error(
        { pod: key, err: describeApiError(err).message },
        'ingesting a bind result failed',
      );
    }
  }

  private recordEvent(
    key: string,
    type: string,
    reason: string,
    action: string,
    note: string,
    unschedulable?: string,
  ): void {
    const { namespace, name } = splitKey(key);
    const uid = this.opts.uidOf?.(key);
    const time = this.now().getTime();
    const body = {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: this.eventName(name, time), namespace },
      // A plain Date would serialise with milliseconds; the API wants MicroTime (6 digits).
      eventTime: new V1MicroTime(time),
      reportingController: this.opts.reportingController ?? 'berth',
      reportingInstance: this.opts.reportingInstance,
      action,
      reason,
      type,
      note: truncateBytes(note, noteLimit),
      regarding: { apiVersion: 'v1', kind: 'Pod', name, namespace, ...(uid ? { uid } : {}) },
    };
    this.write(
      `event ${reason}`,
      key,
      () =>
        this.opts.clients.events.createNamespacedEvent(
          { namespace, body },
          timeoutOptions(this.timeoutMs),
        ),
      unschedulable,
    );
  }

  /**
   * `<pod>.<hex time>`, as client-go's event recorder names events. (`generateName: '<pod>.'`
   * is rejected: events.k8s.io validates the prefix as a DNS subdomain, which cannot end in
   * a dot.)
   */
  private eventName(pod: string, timeMs: number): string {
    this.eventSeq = (this.eventSeq + 1) % 1_000_000;
    const suffix = (BigInt(timeMs) * 1_000_000n + BigInt(this.eventSeq)).toString(16);
    return `${pod.slice(0, 253 - suffix.length - 1)}.${suffix}`;
  }

  /**
   * Runs a fire-and-forget write through the limiter; failures are logged and dropped. A
   * failed unschedulable report is forgotten so that the next identical one is sent again.
   */
  private write(what: string, key: string, call: () => Promise<unknown>, message?: string): void {
    const run = async () => {
      await this.opts.limiter.take();
      if (this.stopped) return;
      try {
        await call();
      } catch (err) {
        const f = describeApiError(err);
        this.log.warn({ pod: key, write: what, code: f.code, err: f.message }, 'report failed');
        if (message !== undefined && this.lastUnschedulable.get(key) === message)
          this.lastUnschedulable.delete(key);
      }
    };
    this.track(run());
  }

  private track(promise: Promise<void>): void {
    const settled = promise.catch((err) => {
      this.log.error({ err: describeApiError(err).message }, 'unexpected failure in an API write');
    });
    this.inFlight.add(settled);
    void settled.finally(() => this.inFlight.delete(settled));
  }

  private remember(key: string, message: string): void {
    this.lastUnschedulable.delete(key);
    this.lastUnschedulable.set(key, message);
    const max = this.opts.maxRemembered ?? 10_000;
    while (this.lastUnschedulable.size > max) {
      const oldest = this.lastUnschedulable.keys().next().value;
      if (oldest === undefined) break;
      this.lastUnschedulable.delete(oldest);
    }
  }
}
