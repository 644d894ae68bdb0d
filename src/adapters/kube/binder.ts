// The Kubernetes binder: carries out binds, preemptions and claim deallocations against the API server, fenced.
import type { Logger } from 'pino';
import type {
  BinderCommand,
  ClaimBinding,
  CommandHandler,
  CompleteBindCommand,
  DeallocateClaimCommand,
} from '../../core/commands.ts';
import type { AttemptRef, BindFailureReason, InputEvent, PodRef } from '../../events/types.ts';
import { describeApiError } from './api-error.ts';
import { type BindFenceIdentity, bindFenceAnnotations } from './bind-fence.ts';
import {
  type ClaimFailure,
  type ClaimPod,
  type ClaimWriter,
  type ReservedClaim,
  reserveClaims,
  unreserveClaims,
} from './claim-binding.ts';
import { deallocateClaim } from './claim-deallocation.ts';
import type { KubeClients } from './config.ts';
import { type CreatedClaim, deleteExtendedClaim } from './extended-claim-writes.ts';
import { type PreemptionWriter, runPreempt, splitKey } from './preemption-effects.ts';
import type { TokenBucket } from './rate-limiter.ts';
import type { SchedulingWrites } from './scheduling-writes.ts';
import { isFencedWrite } from './write-fence.ts';

/** What a KubeBinder is built with (see `kubeEffects`, which builds it beside KubeReports). */
export interface KubeBinderOptions {
  clients: KubeClients;
  /** Binds and a victim's condition and delete wait for a token here (reports never do). */
  limiter: TokenBucket;
  /** Where results go (BindSucceeded/BindFailed, PreemptionFailed in the log). */
  ingest: (event: InputEvent) => void;
  log: Logger;
  /** Tracks every bind and preemption until it settles; reports yield to them. */
  writes: SchedulingWrites;
  /** Timeout of each API write. */
  timeoutMs: number;
  /** Wall clock for the DisruptionTarget condition's timestamp. */
  now: () => Date;
  /**
   * Whether the node is still in the cluster as last watched. Asked after a bind has its
   * token, immediately before it is sent: the API server accepts a Binding to a node that no
   * longer exists, so a bind decided before its node was deleted fails here instead.
   */
  nodeExists?: (node: string) => boolean;
  /** Records the `Preempted` Event on `victim` (a report: KubeReports.recordPreempted). */
  recordPreempted: (victim: PodRef, preemptor: PodRef, node: string, group?: PodRef) => void;
  /**
   * The Lease and identity this replica binds under (leader election on): each Binding is
   * annotated with them, for the chart's admission policy to refuse it once another holds
   * the Lease (see bind-fence.ts). Absent: Bindings carry no annotations.
   */
  bindFence?: BindFenceIdentity;
}

/** The plugin whose PreBind writes the claims (kube's DynamicResources). */
const preBindPlugin = 'DynamicResources';

/** The BindFailed reason of an API status code. */
function bindFailureReason(code: number | undefined): BindFailureReason {
  // 409 also covers a uid mismatch: the pod was recreated under its name since the decision.
  if (code === 409) return 'Conflict';
  if (code === 404) return 'NotFound';
  return 'Error';
}

/**
 * Carries out binds and preemptions against the API server. A bind reports its outcome
 * through `ingest`, naming the attempt it answers, and so does a failed preemption. Each
 * write takes a token from `limiter`; a write refused by the fence (leadership gone) is
 * never sent and reports nothing. `execute` never throws or leaves a rejected promise behind.
 */
/** What a bind's PreBind wrote before it failed: the claims it reserved, the claim it created. */
interface ClaimsWritten {
  reserved: ReservedClaim[];
  created?: CreatedClaim | undefined;
}

export class KubeBinder implements CommandHandler<BinderCommand> {
  private readonly preemption: PreemptionWriter;
  private readonly claims: ClaimWriter;
  /** `annotations` for every Binding under a bind fence; empty without one. */
  private readonly fenceMetadata: { annotations?: Record<string, string> };
  private stopped = false;

  constructor(private readonly opts: KubeBinderOptions) {
    this.preemption = {
      clients: opts.clients,
      limiter: opts.limiter,
      ingest: opts.ingest,
      log: opts.log,
      timeoutMs: opts.timeoutMs,
      now: opts.now,
      stopped: () => this.stopped,
      recordPreempted: opts.recordPreempted,
    };
    this.claims = {
      http: opts.clients.http,
      limiter: opts.limiter,
      timeoutMs: opts.timeoutMs,
      stopped: () => this.stopped,
      now: opts.now,
      log: opts.log,
    };
    this.fenceMetadata =
      opts.bindFence === undefined ? {} : { annotations: bindFenceAnnotations(opts.bindFence) };
  }

  /**
   * `bind`: first its `claims`, if any (DRA PreBind: finalizer, allocation, reservedFor; see
   * claim-binding.ts), then POST pods/binding with the pod's uid (so the API server refuses it with a 409 if
   * the name now belongs to another pod) and, under a bind fence, the lease annotations (so
   * the chart's admission policy refuses it with a 403 once another replica holds the
   * Lease: an ordinary BindFailed); the result comes back through `ingest`. `preempt`:
   * DisruptionTarget condition, delete with the victim's uid as precondition, then the
   * `Preempted` Event (a report); a victim already gone is success, any other failure comes
   * back as PreemptionFailed. A no-op once stopped.
   */
  execute(command: BinderCommand): void {
    if (this.stopped) return;
    if (command.kind === 'bind') {
      const { uid, key, attempt: n } = command.attempt;
      const claims = command.claims ?? [];
      const hold = command.awaitBindingConditions === true;
      const run = this.runBind({ uid, key, attempt: n }, command.node, claims, hold);
      this.opts.writes.track('bind', run);
      return;
    }
    if (command.kind === 'completeBind') {
      this.opts.writes.track('bind', this.runComplete(command));
      return;
    }
    if (command.kind === 'deallocateClaim') {
      this.opts.writes.track('claim deallocation', this.runDeallocate(command));
      return;
    }
    const { preemptor, schedulerName, victim, node, observedGeneration } = command;
    const ref = { uid: preemptor.uid, key: preemptor.key, attempt: preemptor.attempt };
    const pod = { uid: victim.uid, key: victim.key };
    const group = command.preemptorGroup;
    this.opts.writes.track(
      'preemption',
      runPreempt(this.preemption, ref, schedulerName, pod, node, observedGeneration, group),
    );
  }

  /** Resolves when every scheduling write issued so far has settled, its result ingested. */
  idle(): Promise<void> {
    return this.opts.writes.idle();
  }

  /**
   * Makes later commands no-ops; writes still waiting for a token are not sent (nor the rest
   * of a preemption). Writes already sent are left to finish.
   */
  stop(): void {
    this.stopped = true;
  }

  /**
   * DRA PreBind (the claims, see claim-binding.ts), then the Binding. A failure after a claim
   * was reserved for the pod takes the pod out of it again (kube's Unreserve) before the
   * BindFailed is reported.
   */
  private async runBind(
    attempt: AttemptRef,
    node: string,
    claims: readonly ClaimBinding[],
    hold = false,
  ): Promise<void> {
    const { uid, key } = attempt;
    const { namespace, name } = splitKey(key);
    const pod: ClaimPod = { namespace, name, uid };
    let reserved: ReservedClaim[] = [];
    let created: CreatedClaim | undefined;
    if (claims.length > 0) {
      // Nothing is written for a node already gone.
      if (this.opts.nodeExists?.(node) === false)
        return this.nodeGone(attempt, node, pod, { reserved: [] });
      const pre = await reserveClaims(this.claims, pod, claims);
      reserved = pre.reserved;
      created = pre.created;
      if (pre.kind === 'ended') {
        if (pre.fenced !== undefined) this.fenced(attempt, node, pre.fenced);
        return;
      }
      // kube: a PreBind error is the scheduler's error (SchedulerError), whatever the status.
      if (pre.kind === 'failed')
        return this.fail(
          attempt,
          node,
          pod,
          { reserved, created },
          'Error',
          pre.failure,
          true,
          preBindPlugin,
        );
      // Devices with binding conditions: the core watches the claims and completes the bind.
      if (hold) return this.ingestResult({ type: 'ClaimsReserved', ...attempt, node });
    }
    return this.sendBinding(attempt, node, pod, { reserved, created });
  }

  /**
   * Ends a bind held for binding conditions: the Binding, or (with a failure) the pod taken
   * out of the claims' `reservedFor` and BindFailed with kube's PreBind error.
   */
  private async runComplete(command: CompleteBindCommand): Promise<void> {
    const { uid, key, attempt: n } = command.attempt;
    const attempt = { uid, key, attempt: n };
    const { namespace, name } = splitKey(key);
    const pod: ClaimPod = { namespace, name, uid };
    const reserved: ReservedClaim[] = command.claims.map((c) => ({ ...c }));
    if (command.failure === undefined)
      return this.sendBinding(attempt, command.node, pod, { reserved });
    const { plugin, message } = command.failure;
    if (this.stopped) return;
    return this.fail(attempt, command.node, pod, { reserved }, 'Error', { message }, true, plugin);
  }

  /** The Binding (after PreBind): its result comes back through `ingest`. */
  private async sendBinding(
    attempt: AttemptRef,
    node: string,
    pod: ClaimPod,
    written: ClaimsWritten,
  ): Promise<void> {
    const { namespace, name, uid } = pod;
    await this.opts.limiter.take();
    // Stopped while waiting: not sent; the pod stays pending for the next berth.
    if (this.stopped) return;
    if (this.opts.nodeExists?.(node) === false) return this.nodeGone(attempt, node, pod, written);
    try {
      const body = {
        apiVersion: 'v1',
        kind: 'Binding',
        metadata: { name, namespace, uid, ...this.fenceMetadata },
        target: { apiVersion: 'v1', kind: 'Node', name: node },
      };
      await this.opts.clients.http.request(
        'POST',
        `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(name)}/binding`,
        JSON.stringify(body),
        { timeoutMs: this.opts.timeoutMs },
      );
    } catch (err) {
      // Never sent: leadership is gone (the elector has said so), the next leader binds it.
      if (isFencedWrite(err)) return this.fenced(attempt, node, err.message);
      const f = describeApiError(err);
      const code = f.code === undefined ? {} : { code: f.code };
      return this.fail(attempt, node, pod, written, bindFailureReason(f.code), {
        message: f.message,
        ...code,
      });
    }
    this.ingestResult({ type: 'BindSucceeded', ...attempt, node });
  }

  private fenced(attempt: AttemptRef, node: string, err: string): void {
    const fields = { pod: attempt.key, uid: attempt.uid, attempt: attempt.attempt, node, err };
    this.opts.log.warn(fields, 'bind fenced');
  }

  private nodeGone(
    attempt: AttemptRef,
    node: string,
    pod: ClaimPod,
    written: ClaimsWritten,
  ): Promise<void> {
    const message = `node ${node} was deleted before the bind was sent`;
    const fields = { pod: attempt.key, uid: attempt.uid, attempt: attempt.attempt, node };
    this.opts.log.warn(fields, message);
    return this.fail(attempt, node, pod, written, 'NotFound', { message }, false);
  }

  /**
   * Unreserves the claims PreBind reserved and deletes the special claim it created (kube's
   * Unreserve; failures logged), then reports the BindFailed.
   */
  private async fail(
    attempt: AttemptRef,
    node: string,
    pod: ClaimPod,
    { reserved, created }: ClaimsWritten,
    reason: BindFailureReason,
    f: ClaimFailure,
    logged = true,
    plugin?: string,
  ): Promise<void> {
    if (logged) {
      const { key, uid, attempt: n } = attempt;
      const fields = { pod: key, uid, attempt: n, node, reason, code: f.code, err: f.message };
      this.opts.log.warn(fields, 'bind failed');
    }
    if (reserved.length > 0) await unreserveClaims(this.claims, pod, reserved);
    if (created !== undefined) {
      const out = await deleteExtendedClaim(this.claims, created);
      if (out.kind === 'failed') {
        const fields = {
          pod: attempt.key,
          uid: attempt.uid,
          claim: `${created.namespace}/${created.name}`,
        };
        this.opts.log.error({ ...fields, err: out.failure.message }, 'delete');
      }
    }
    const by = plugin === undefined ? {} : { plugin };
    this.ingestResult({ type: 'BindFailed', ...attempt, node, reason, ...f, ...by });
  }

  /**
   * The DynamicResources PostFilter's write (see claim-deallocation.ts); a refusal comes back
   * as ClaimDeallocationFailed naming the attempt, a fenced write reports nothing.
   */
  private async runDeallocate(command: DeallocateClaimCommand): Promise<void> {
    const { pod, claim } = command;
    const { namespace, name } = splitKey(claim.key);
    const target = { ...claim, namespace, name };
    if (claim.delete === true) return this.runDelete(command, target);
    const out = await deallocateClaim(this.claims, target, pod.uid);
    const fields = { pod: pod.key, uid: pod.uid, attempt: pod.attempt, claim: claim.key };
    if (out.kind === 'ended') {
      if (out.fenced !== undefined) this.opts.log.warn({ ...fields, err: out.fenced }, 'fenced');
      return;
    }
    if (out.kind === 'done') {
      this.opts.log.debug({ ...fields, wrote: out.wrote }, 'deallocated claim');
      return;
    }
    this.opts.log.warn({ ...fields, code: out.code, err: out.message }, 'deallocation failed');
    this.ingestResult({ type: 'ClaimDeallocationFailed', ...pod, claim, message: out.message });
  }

  /**
   * The DynamicResources PostFilter's deletion of the special claim an earlier attempt left
   * (kube's deleteClaim); a refusal comes back as ClaimDeallocationFailed, as a deallocation's.
   */
  private async runDelete(command: DeallocateClaimCommand, target: CreatedClaim): Promise<void> {
    const { pod, claim } = command;
    const out = await deleteExtendedClaim(this.claims, target);
    const fields = { pod: pod.key, uid: pod.uid, attempt: pod.attempt, claim: claim.key };
    if (out.kind === 'ended') {
      if (out.fenced !== undefined) this.opts.log.warn({ ...fields, err: out.fenced }, 'fenced');
      return;
    }
    if (out.kind === 'done') {
      this.opts.log.debug(fields, 'deleted claim');
      return;
    }
    const { message, code } = out.failure;
    this.opts.log.warn({ ...fields, code, err: message }, 'deletion failed');
    this.ingestResult({ type: 'ClaimDeallocationFailed', ...pod, claim, message });
  }

  /** Hands a bind result to the core; a failure there is logged, never thrown. */
  private ingestResult(result: InputEvent & { key: string }): void {
    try {
      this.opts.ingest(result);
    } catch (err) {
      this.opts.log.error(
        { pod: result.key, err: describeApiError(err).message },
        'ingesting a bind result failed',
      );
    }
  }
}
