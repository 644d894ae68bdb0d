// An in-process cluster: serves nodes and pods as events and applies binds, evictions and nominations.

import { type Observable, Subject } from 'rxjs';
import { objectKinds } from '../../cluster/cluster-objects.ts';
import type {
  BinderCommand,
  ClaimBinding,
  CommandHandler,
  CompleteBindCommand,
  ReportCommand,
} from '../../core/commands.ts';
import type { GroupReport } from '../../core/ports.ts';
import type { AttemptRef, ClaimToDeallocate, InputEvent, PodRef } from '../../events/types.ts';
import type { Rng } from '../../framework/rng.ts';
import { podKey } from '../../model/keys.ts';
import type { NodeObject, PodObject } from '../../model/objects.ts';
import type { JsonRecord } from '../../model/record.ts';
import { trimNode, trimObject, trimPod } from '../trim.ts';
import { bindEventsInOrder, boundPodOf } from './bind-result.ts';
import { type SimGroupEvent, SimGroupReports } from './group-reports.ts';
import type { ManifestObject } from './manifests.ts';
import { bindRefusal, claimPodOf, terminatingPod } from './pod-writes.ts';
import { SimClaimController } from './sim-claim-controller.ts';
import { type ClaimRefusal, SimClaims } from './sim-claims.ts';
import { driveClaims, type SimDeviceDriver } from './sim-device-driver.ts';

export type { SimGroupEvent } from './group-reports.ts';

/** Schedules work at an absolute logical time (the run's clock). */
export interface SimTimers {
  now(): number;
  schedule(deadline: number, fire: () => void): void;
}

/** How the simulated API server behaves. */
export interface SimClusterOptions {
  nodes: NodeObject[];
  pods: PodObject[];
  /**
   * Namespaces, workloads, volume and DRA objects, served before nodes and pods, and
   * ResourceClaimTemplates (kept by the sim's resourceclaim controller, never served).
   */
  objects?: readonly ManifestObject[];
  timers: SimTimers;
  /** Delay between a bind command and its result; also the resourceclaim controller's. */
  bindLatencyMs: number;
  /** Probability in [0, 1] that a bind fails with an injected error. */
  bindFailureRate: number;
  /**
   * Probability in [0, 1] that a successful bind's watch update is delivered before the
   * bind's own result (both orders happen on a real cluster).
   */
  watchFirstRate?: number;
  /** Randomness for injected failures and orderings (not the core's generator). */
  rng: Rng;
  /**
   * The DRA driver played on claims whose devices have binding conditions (absent: none;
   * such a bind waits until its binding timeout).
   */
  deviceDriver?: SimDeviceDriver;
}

function keyOf(pod: PodObject): string {
  return podKey(pod.metadata.namespace, pod.metadata.name);
}

/**
 * A simulated API server. `events$` emits a relist of nodes and pods on `start()`, then
 * what changes: scripted creations, updates and deletions, and the results of binds
 * (BindSucceeded/BindFailed and the bound pod's watch update, in either order). Like the
 * real one it gives every pod a uid, refuses a Binding whose uid is not the current pod's
 * (Conflict), a Binding of a gated pod (Conflict) or of a missing pod (NotFound). Preemption's
 * writes (a victim's eviction, a nomination) land after the same latency as binds. A bind
 * writes its ResourceClaims first (see SimClaims), and kube-controller-manager's resourceclaim
 * controller runs beside it (see SimClaimController), after the same latency.
 */
export class SimCluster implements CommandHandler<BinderCommand | ReportCommand> {
  private readonly subject = new Subject<InputEvent>();
  private readonly pods = new Map<string, PodObject>();
  private readonly nodes = new Map<string, NodeObject>();
  private uids = 0;
  /** The last status berth wrote per PodGroup (reports; never fed back as watch events). */
  private readonly groupReports = new SimGroupReports();
  /** The ResourceClaims (kept apart from `objects`: binds and the controller write them). */
  private readonly claims: SimClaims;
  private readonly controller: SimClaimController;
  /** Whether ResourceClaims are relisted: some were given, or templates may make some. */
  private readonly servesClaims: boolean;
  /** The simulated cluster's event stream. */
  readonly events$: Observable<InputEvent> = this.subject.asObservable();

  constructor(private readonly opts: SimClusterOptions) {
    for (const node of opts.nodes) this.nodes.set(node.metadata.name, node);
    for (const pod of opts.pods) this.pods.set(keyOf(pod), this.withUid(pod));
    const ofKind = (kind: string): JsonRecord[] =>
      (opts.objects ?? []).filter((o) => o.kind === kind).map((o) => o.object);
    const templates = ofKind('ResourceClaimTemplate');
    this.claims = new SimClaims((e) => this.subject.next(e), ofKind('ResourceClaim'));
    this.servesClaims = templates.length > 0 || this.claims.all().length > 0;
    this.controller = new SimClaimController(
      {
        pod: (key) => this.pods.get(key),
        setClaimStatuses: (key, statuses) => this.setClaimStatuses(key, statuses),
        later: (work) => opts.timers.schedule(opts.timers.now() + opts.bindLatencyMs, work),
        timestamp: () => this.timestamp(),
      },
      this.claims,
      templates,
    );
  }

  /**
   * Emits the initial list of nodes and pods, as a reflector's first relist; the
   * resourceclaim controller then looks at every pod.
   */
  start(): void {
    this.relist();
    for (const pod of this.pods.values()) this.controller.podChanged(pod);
  }

  /** Emits a relist of nodes and pods (as after a watch expiry). */
  relist(): void {
    const objects = this.opts.objects ?? [];
    for (const kind of objectKinds) {
      const ofKind =
        kind === 'ResourceClaim'
          ? this.claims.all()
          : objects.filter((o) => o.kind === kind).map((o) => o.object);
      if (ofKind.length === 0 && !(kind === 'ResourceClaim' && this.servesClaims)) continue;
      this.subject.next({ type: 'ResyncStarted', kind });
      for (const o of ofKind)
        this.subject.next({ type: 'ObjectUpserted', kind, object: trimObject(kind, o) });
      this.subject.next({ type: 'ResyncDone', kind });
    }
    this.subject.next({ type: 'ResyncStarted', kind: 'Node' });
    for (const node of this.nodes.values())
      this.subject.next({ type: 'NodeUpserted', node: trimNode(node) });
    this.subject.next({ type: 'ResyncDone', kind: 'Node' });
    this.subject.next({ type: 'ResyncStarted', kind: 'Pod' });
    for (const pod of this.pods.values())
      this.subject.next({ type: 'PodUpserted', pod: trimPod(pod) });
    this.subject.next({ type: 'ResyncDone', kind: 'Pod' });
  }

  /**
   * Creates a pod now, with a fresh uid. A pod of the same name is deleted first (as a
   * StatefulSet recreates its pods): the new one is another pod.
   */
  createPod(pod: PodObject): void {
    const key = keyOf(pod);
    const old = this.pods.get(key);
    if (old !== undefined) this.deletePod(key);
    const created = this.withUid({ ...pod, metadata: { ...pod.metadata, uid: undefined } });
    this.pods.set(key, created);
    this.subject.next({ type: 'PodUpserted', pod: trimPod(created) });
    this.controller.podChanged(created);
  }

  /**
   * Updates an existing pod's labels, spec and phase from `pod`, keeping its uid and its
   * node (a binding cannot be undone). Ignored when no pod has that name.
   */
  updatePod(pod: PodObject): void {
    const key = keyOf(pod);
    const current = this.pods.get(key);
    if (current === undefined) return;
    const nodeName = current.spec.nodeName;
    const updated: PodObject = {
      ...pod,
      metadata: { ...pod.metadata, uid: current.metadata.uid },
      spec: { ...pod.spec, ...(nodeName === undefined ? {} : { nodeName }) },
    };
    this.pods.set(key, updated);
    this.subject.next({ type: 'PodUpserted', pod: trimPod(updated) });
    this.controller.podChanged(updated);
  }

  /** Adds or replaces a node now. */
  addNode(node: NodeObject): void {
    this.nodes.set(node.metadata.name, node);
    this.subject.next({ type: 'NodeUpserted', node: trimNode(node) });
  }

  /** Deletes a node now. */
  deleteNode(name: string): void {
    if (this.nodes.delete(name)) this.subject.next({ type: 'NodeDeleted', name });
  }

  /** Deletes a pod now. */
  deletePod(key: string): void {
    const pod = this.pods.get(key);
    if (pod === undefined) return;
    this.pods.delete(key);
    this.subject.next({ type: 'PodDeleted', uid: pod.metadata.uid as string, key });
    this.controller.podDeleted(pod);
  }

  /** The pods the simulated API server holds (for oracles in tests). */
  podObjects(): PodObject[] {
    return [...this.pods.values()];
  }

  /** The nodes the simulated API server holds (for oracles in tests). */
  nodeObjects(): NodeObject[] {
    return [...this.nodes.values()];
  }

  /** The ResourceClaims the simulated API server holds, untrimmed (for oracles in tests). */
  claimObjects(): JsonRecord[] {
    return this.claims.all();
  }

  /**
   * Carries out a command as the API server would: a bind, an eviction, a claim deallocation
   * or a nomination lands after the bind latency (see `bind`, `preempt`, `deallocate`,
   * `nominate`); a PodGroup report is kept
   * (see `groupStatus`). Pod conditions and Events are not kept: nothing reads them back.
   */
  execute(command: BinderCommand | ReportCommand): void {
    if (command.kind === 'bind')
      this.bind(
        command.attempt,
        command.node,
        command.claims ?? [],
        command.awaitBindingConditions,
      );
    else if (command.kind === 'completeBind') this.completeHeld(command);
    else if (command.kind === 'preempt')
      this.preempt(command.schedulerName, command.victim, command.preemptorGroup !== undefined);
    else if (command.kind === 'deallocateClaim') this.deallocate(command.claim, command.pod.uid);
    else if (command.kind === 'nominate') this.nominate(command.pod, command.node);
    else if (command.kind === 'reportGroup') this.reportGroup(command.report);
  }

  /** Writes the claims and binds after the configured latency; the outcome arrives on `events$`. */
  private bind(
    attempt: AttemptRef,
    node: string,
    claims: readonly ClaimBinding[],
    hold?: true,
  ): void {
    const { timers, bindLatencyMs } = this.opts;
    timers.schedule(timers.now() + bindLatencyMs, () =>
      this.completeBind(attempt, node, claims, hold === true),
    );
  }

  /**
   * A bind held for binding conditions, after the bind latency: abandoned (the pod out of
   * its claims' `reservedFor`, BindFailed with the core's PreBind error) or bound.
   */
  private completeHeld(command: CompleteBindCommand): void {
    const { timers, bindLatencyMs } = this.opts;
    const { attempt, node, claims, failure } = command;
    const bindings: ClaimBinding[] = claims.map((c) => ({ ...c }));
    timers.schedule(timers.now() + bindLatencyMs, () => {
      if (failure === undefined) return this.finishBind(attempt, node, bindings);
      this.controller.claimsChanged(this.claims.unreserve(claimPodOf(attempt), bindings));
      this.subject.next({
        type: 'BindFailed',
        ...attempt,
        node,
        reason: 'Error',
        message: failure.message,
        plugin: failure.plugin,
      });
    });
  }

  /**
   * Evicts `victim` after the bind latency, as the API server deletes it: if the pod of that
   * uid still exists, its update with the DisruptionTarget condition and a deletionTimestamp,
   * then its deletion. A victim already gone (or replaced under its name) is success: nothing
   * is emitted. Never fails.
   */
  private preempt(schedulerName: string, victim: PodRef, byGroup: boolean): void {
    const { timers, bindLatencyMs } = this.opts;
    const ref = { uid: victim.uid, key: victim.key };
    timers.schedule(timers.now() + bindLatencyMs, () => this.evict(ref, schedulerName, byGroup));
  }

  /** Deallocates `claim` after the bind latency (see SimClaims.deallocate); never fails. */
  private deallocate(claim: ClaimToDeallocate, podUid: string): void {
    const { timers, bindLatencyMs } = this.opts;
    timers.schedule(timers.now() + bindLatencyMs, () => {
      if (claim.delete === true) {
        // kube's deleteClaim of a special claim an earlier attempt left (same uid only).
        const stored = this.claims.get(claim.key);
        if (stored !== undefined && (stored.metadata as { uid?: unknown }).uid === claim.uid)
          this.claims.deleteCreated(claim.key, this.timestamp());
        return;
      }
      if (this.claims.deallocate(claim.key, claim.uid, podUid))
        this.controller.claimsChanged([claim.key]);
    });
  }

  /**
   * Sets (or, with `node` undefined, clears) the pod's `status.nominatedNodeName` after the
   * bind latency, and emits its update, if the pod of that uid still exists, is unbound and
   * the value changes (the API sends no watch event for a patch that changes nothing).
   */
  private nominate(pod: PodRef, node: string | undefined): void {
    const { timers, bindLatencyMs } = this.opts;
    const ref = { uid: pod.uid, key: pod.key };
    timers.schedule(timers.now() + bindLatencyMs, () => this.setNomination(ref, node));
  }

  /**
   * Keeps the report as the group's PodGroup status, and its Event, if any. Like the real
   * one it writes only the status subresource, which berth does not read back: no watch
   * event is emitted.
   */
  private reportGroup(report: GroupReport): void {
    this.groupReports.write(report, this.opts.timers.now());
  }

  /** The last status written for PodGroup `key` (`namespace/name`), without its Event. */
  groupStatus(key: string): Readonly<GroupReport> | undefined {
    return this.groupReports.status(key);
  }

  /** The Events written about PodGroups, oldest first. */
  groupEvents(): readonly SimGroupEvent[] {
    return this.groupReports.events();
  }

  private evict(victim: PodRef, schedulerName: string, byGroup = false): void {
    const pod = this.pods.get(victim.key);
    if (pod === undefined || pod.metadata.uid !== victim.uid) return;
    const by = byGroup ? 'podgroup' : 'pod';
    const terminating = terminatingPod(pod, schedulerName, this.timestamp(), by);
    this.pods.delete(victim.key);
    this.subject.next({ type: 'PodUpserted', pod: trimPod(terminating) });
    this.subject.next({ type: 'PodDeleted', uid: victim.uid, key: victim.key });
    this.controller.podDeleted(pod);
  }

  /** The resourceclaim controller's apply of `status.resourceClaimStatuses`. */
  private setClaimStatuses(
    key: string,
    resourceClaimStatuses: { name: string; resourceClaimName: string }[],
  ): void {
    const pod = this.pods.get(key);
    if (pod === undefined) return;
    const updated: PodObject = { ...pod, status: { ...pod.status, resourceClaimStatuses } };
    this.pods.set(key, updated);
    this.subject.next({ type: 'PodUpserted', pod: trimPod(updated) });
  }

  private setNomination(ref: PodRef, node: string | undefined): void {
    const pod = this.pods.get(ref.key);
    if (pod === undefined || pod.metadata.uid !== ref.uid) return;
    const bound = pod.spec.nodeName !== undefined && pod.spec.nodeName !== '';
    if (bound || (pod.status?.nominatedNodeName ?? undefined) === node) return;
    const { nominatedNodeName: _, ...status } = pod.status ?? {};
    const updated: PodObject = {
      ...pod,
      status: node === undefined ? status : { ...status, nominatedNodeName: node },
    };
    this.pods.set(ref.key, updated);
    this.subject.next({ type: 'PodUpserted', pod: trimPod(updated) });
  }

  /** The run's logical time as an RFC 3339 timestamp (seconds, as the API writes them). */
  private timestamp(): string {
    const seconds = Math.floor(this.opts.timers.now() / 1000);
    return new Date(seconds * 1000).toISOString().replace('.000Z', 'Z');
  }

  private withUid(pod: PodObject): PodObject {
    const uid = pod.metadata.uid;
    if (typeof uid === 'string' && uid !== '') return pod;
    this.uids += 1;
    const suffix = this.uids.toString(16).padStart(12, '0');
    return { ...pod, metadata: { ...pod.metadata, uid: `00000000-0000-4000-8000-${suffix}` } };
  }

  private fail(
    attempt: AttemptRef,
    node: string,
    reason: 'Conflict' | 'NotFound' | 'Error',
    message: string,
  ): void {
    this.subject.next({ type: 'BindFailed', ...attempt, node, reason, message });
  }

  /**
   * Writes the bind's claims (PreBind), then binds the pod. Any refusal takes the pod out of
   * those claims' `reservedFor` again (Unreserve) before BindFailed is emitted.
   */
  private completeBind(
    attempt: AttemptRef,
    node: string,
    given: readonly ClaimBinding[],
    hold: boolean,
  ): void {
    const pod = claimPodOf(attempt);
    // kube's PreBind creates the special claim of DRA-backed extended resources first.
    const special = given.find((c) => c.extended !== undefined);
    const created =
      special === undefined || !this.pods.has(attempt.key)
        ? undefined
        : this.claims.createExtended(pod, special, this.timestamp());
    const claims = given.map((c) => (c === special && created !== undefined ? created : c));
    const written =
      claims.length > 0 ? this.claims.reserve(pod, claims, this.timestamp()) : undefined;
    if (written === undefined && hold) {
      this.subject.next({ type: 'ClaimsReserved', ...attempt, node });
      const changed = (keys: string[]) => this.controller.claimsChanged(keys);
      driveClaims(this.claims, this.opts, claims, () => this.timestamp(), changed);
      return;
    }
    this.finishBind(attempt, node, claims, { created, special, refusal: written });
  }

  /** The Binding; a refusal (PreBind's or its own) undoes PreBind's claim writes. */
  private finishBind(
    attempt: AttemptRef,
    node: string,
    claims: readonly ClaimBinding[],
    pre: { created?: ClaimBinding; special?: ClaimBinding; refusal?: ClaimRefusal } = {},
  ): void {
    const pod = claimPodOf(attempt);
    const { created, special } = pre;
    const refusal = pre.refusal ?? bindRefusal(this.pods.get(attempt.key), attempt, this.opts);
    if (refusal !== undefined) {
      const others = claims.filter((c) => c !== created);
      if (others.length > 0) this.controller.claimsChanged(this.claims.unreserve(pod, others));
      if (created !== undefined)
        this.claims.deleteCreated(podKey(created.namespace, created.name), this.timestamp());
      this.fail(attempt, node, refusal.reason, refusal.message);
      return;
    }
    const extended =
      created === undefined
        ? undefined
        : { requestMappings: special?.extended?.mappings ?? [], resourceClaimName: created.name };
    const boundPod = boundPodOf(this.pods.get(attempt.key) as PodObject, node, extended);
    this.pods.set(attempt.key, boundPod);
    const result: InputEvent = { type: 'BindSucceeded', ...attempt, node };
    const watch: InputEvent = { type: 'PodUpserted', pod: trimPod(boundPod) };
    for (const e of bindEventsInOrder<InputEvent>(result, watch, this.opts)) this.subject.next(e);
  }
}
