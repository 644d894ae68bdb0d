// Preemption's API writes: evicting a victim (DisruptionTarget, delete) and nominating a pod.
import type { Logger } from 'pino';
import type { AttemptRef, InputEvent, PodRef } from '../../events/types.ts';
import { type ApiFailure, describeApiError } from './api-error.ts';
import type { KubeClients } from './config.ts';
import { disruptionAbandoned, disruptionTarget, refused } from './disruption-target.ts';
import type { TokenBucket } from './rate-limiter.ts';
import { PatchType, timeoutOptions } from './request-options.ts';

/** What the preemption writes need from the effect adapter that runs them. */
export interface PreemptionWriter {
  clients: KubeClients;
  /** The bind limiter: victim writes are scheduling work, one token per API call. */
  limiter: TokenBucket;
  ingest: (event: InputEvent) => void;
  log: Logger;
  timeoutMs: number;
  now: () => Date;
  /** True once the adapter was stopped: nothing new may be sent. */
  stopped: () => boolean;
  /** Records the `Preempted` Event on `victim` (a report: through the report queue). */
  recordPreempted: (victim: PodRef, preemptor: PodRef, node: string, group?: PodRef) => void;
}

export function splitKey(key: string): { namespace: string; name: string } {
  const slash = key.indexOf('/');
  return slash < 0
    ? { namespace: 'default', name: key }
    : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

/**
 * The write was refused because the pod it names is gone: NotFound, or a uid precondition
 * that failed (the name now belongs to another pod; a patch carrying `metadata.uid` is
 * refused with 422 "field is immutable", a delete with 409 "Precondition failed").
 */
function podGone(f: ApiFailure): boolean {
  if (f.code === 404) return true;
  return (f.code === 409 || f.code === 422) && /\buid\b/i.test(f.message);
}

/** What a nomination needs: the bind limiter, the client and the log, and whether to stop. */
export type NominationWriter = Pick<
  PreemptionWriter,
  'clients' | 'limiter' | 'log' | 'timeoutMs' | 'stopped'
>;

/** What `write` answers when berth stopped while it waited for a token: nothing was sent. */
const notSent = 'not sent';

/**
 * Takes a bind-limiter token, then runs `call` unless the writer stopped meanwhile:
 * undefined on success, `notSent`, or what went wrong. Never rejects.
 */
async function write(
  w: Pick<PreemptionWriter, 'limiter' | 'stopped'>,
  call: () => Promise<unknown>,
): Promise<ApiFailure | undefined | typeof notSent> {
  await w.limiter.take();
  if (w.stopped()) return notSent;
  return attempt(call);
}

/** Runs `call`; undefined on success, else what went wrong. Never rejects. */
async function attempt(call: () => Promise<unknown>): Promise<ApiFailure | undefined> {
  try {
    await call();
    return undefined;
  } catch (err) {
    return describeApiError(err);
  }
}

/**
 * Evicts `victim` from `node` for `preemptor`'s attempt, as kube 1.34's DefaultPreemption
 * (PreemptPod) does: (1) status condition DisruptionTarget=True, reason
 * PreemptionByScheduler, by a strategic merge patch of pods/status that carries the victim's
 * uid (as the kubelet's status patches do), so that it never lands on a pod recreated under
 * the name; (2) delete with the uid as precondition; (3) the `Preempted` Event. A victim
 * already gone (NotFound, or another uid under its name) is success, with no Event, as in
 * kube. Any other failure of (1) or (2) comes back as PreemptionFailed naming the attempt,
 * and a failed (2) first takes (1) back (see `abandon`): a victim that stays never keeps
 * saying it is being preempted. Each write waits for a token of the bind limiter; once
 * stopped, nothing more is sent and nothing is ingested. Never rejects.
 */
export async function runPreempt(
  w: PreemptionWriter,
  preemptor: AttemptRef,
  schedulerName: string,
  victim: PodRef,
  node: string,
  observedGeneration?: number,
  group?: PodRef,
): Promise<void> {
  const { namespace, name } = splitKey(victim.key);
  const options = timeoutOptions(w.timeoutMs, PatchType.StrategicMerge);
  const context = {
    preemptor: preemptor.key,
    uid: preemptor.uid,
    attempt: preemptor.attempt,
    victim: victim.key,
    victimUid: victim.uid,
    node,
  };
  const by = group === undefined ? 'pod' : 'podgroup';
  const condition = disruptionTarget(schedulerName, w.now(), observedGeneration, by);
  let answer: unknown;
  const patched = await write(w, async () => {
    answer = await w.clients.core.patchNamespacedPodStatus(
      {
        name,
        namespace,
        body: { metadata: { uid: victim.uid }, status: { conditions: [condition] } },
      },
      options,
    );
  });
  if (patched === notSent) return;
  if (patched !== undefined) {
    if (podGone(patched)) {
      w.log.debug({ ...context, code: patched.code }, 'preemption victim is already gone');
      return;
    }
    fail(w, preemptor, victim, node, 'could not add the DisruptionTarget condition', patched);
    return;
  }
  const deleted = await write(w, () =>
    w.clients.core.deleteNamespacedPod(
      { name, namespace, body: { preconditions: { uid: victim.uid } } },
      timeoutOptions(w.timeoutMs),
    ),
  );
  if (deleted === notSent) return;
  if (deleted !== undefined) {
    // With the uid as precondition a 409 can only mean that this victim is gone.
    if (deleted.code === 404 || deleted.code === 409) {
      w.log.debug({ ...context, code: deleted.code }, 'preemption victim is already gone');
      return;
    }
    const undo = { schedulerName, observedGeneration, resourceVersion: resourceVersionOf(answer) };
    await abandon(w, victim, context, deleted, undo);
    fail(w, preemptor, victim, node, 'could not delete the victim', deleted);
    return;
  }
  w.log.info(context, 'preempted a victim');
  if (!w.stopped()) w.recordPreempted(victim, preemptor, node, group);
}

/** `metadata.resourceVersion` of a patch's answer (the pod as the patch left it), if any. */
function resourceVersionOf(answer: unknown): string | undefined {
  const meta = (answer as { metadata?: { resourceVersion?: unknown } } | undefined)?.metadata;
  return typeof meta?.resourceVersion === 'string' ? meta.resourceVersion : undefined;
}

/**
 * After the victim's delete failed, replaces its DisruptionTarget=True with False (reason
 * PreemptionAbandoned) by a strategic merge patch carrying the uid. When the API server
 * refused the delete (4xx) nothing was deleted, so the patch goes unconditionally. When the
 * outcome is unknown (5xx, timeout) the delete may have landed, so the patch also carries
 * the resourceVersion the condition patch left: if the pod changed since (its deletion
 * did), the server refuses it and the condition stays. No version known: nothing is sent.
 * A failure is logged; never rejects.
 */
async function abandon(
  w: PreemptionWriter,
  victim: PodRef,
  context: Record<string, unknown>,
  failure: ApiFailure,
  undo: { schedulerName: string; observedGeneration?: number; resourceVersion?: string },
): Promise<void> {
  const certain = refused(failure);
  if (!certain && undo.resourceVersion === undefined) {
    w.log.warn(context, 'DisruptionTarget left on the victim: its delete may have landed');
    return;
  }
  const { namespace, name } = splitKey(victim.key);
  const { schedulerName, observedGeneration, resourceVersion } = undo;
  const condition = disruptionAbandoned(schedulerName, w.now(), failure, observedGeneration);
  const metadata = certain ? { uid: victim.uid } : { uid: victim.uid, resourceVersion };
  const undone = await write(w, () =>
    w.clients.core.patchNamespacedPodStatus(
      { name, namespace, body: { metadata, status: { conditions: [condition] } } },
      timeoutOptions(w.timeoutMs, PatchType.StrategicMerge),
    ),
  );
  if (undone === undefined) w.log.info(context, 'DisruptionTarget taken back from the victim');
  else if (undone === notSent) return;
  else if (podGone(undone)) w.log.debug({ ...context, code: undone.code }, 'victim is gone');
  else
    w.log.warn(
      { ...context, code: undone.code, err: undone.message },
      'could not take DisruptionTarget back from the victim',
    );
}

function fail(
  w: PreemptionWriter,
  preemptor: AttemptRef,
  victim: PodRef,
  node: string,
  what: string,
  f: ApiFailure,
): void {
  w.log.warn(
    {
      preemptor: preemptor.key,
      uid: preemptor.uid,
      attempt: preemptor.attempt,
      victim: victim.key,
      victimUid: victim.uid,
      node,
      code: f.code,
      err: f.message,
    },
    `preemption failed: ${what}`,
  );
  const { uid, key, attempt: n } = preemptor;
  const event: InputEvent = {
    type: 'PreemptionFailed',
    uid,
    key,
    attempt: n,
    node,
    victim: { uid: victim.uid, key: victim.key },
    message: f.message,
  };
  try {
    w.ingest(event);
  } catch (err) {
    w.log.error(
      { preemptor: key, err: describeApiError(err).message },
      'ingesting a preemption result failed',
    );
  }
}

/**
 * Sets `status.nominatedNodeName` of `pod` to `node`, or clears it (`null` in a merge patch)
 * when `node` is undefined. The patch carries the pod's uid, so a pod recreated under the
 * name is left alone. Waits for a bind-limiter token; a failure is only logged (the watch
 * shows the outcome). Never rejects.
 */
export async function runNominate(
  w: NominationWriter,
  pod: PodRef,
  node: string | undefined,
): Promise<void> {
  const { namespace, name } = splitKey(pod.key);
  const failed = await write(w, () =>
    w.clients.core.patchNamespacedPodStatus(
      {
        name,
        namespace,
        body: { metadata: { uid: pod.uid }, status: { nominatedNodeName: node ?? null } },
      },
      timeoutOptions(w.timeoutMs, PatchType.Merge),
    ),
  );
  if (failed === undefined || failed === notSent) return;
  const fields = { pod: pod.key, uid: pod.uid, node, code: failed.code, err: failed.message };
  if (podGone(failed)) w.log.debug(fields, 'nominated pod is already gone');
  else if (node === undefined) w.log.warn(fields, "Cannot clear 'NominatedNodeName' field");
  else w.log.warn(fields, "Cannot set 'NominatedNodeName' field");
}
