// The JSONL log's line kinds: header, snapshot, event, segment-end, digest (docs/log-format.md).
import type { SealInfo } from './seal.ts';
import type { Envelope } from './types.ts';

/**
 * Version of the log format; bumped on any incompatible change. 2: pods are identified by
 * uid, decisions are lists naming their attempt (reserve, permit, bind), the trim keeps
 * every field a default plugin reads. 3: preemption (PodNominated, VictimPreempted,
 * NominationCleared, PreemptionFailed) and the PostFilters in the header's config. 4: gang
 * scheduling (PodGroup objects, `ResyncDone.unavailable`, `gangs` in the header's config).
 * 5: DRA (ResourceClaim, DeviceClass, ResourceSlice and DeviceTaintRule objects, the
 * claims a `PodReserved` allocates, `resourceClaims` in the header's config, claim
 * deallocation: ClaimDeallocationRequested, ClaimDeallocationFailed). 6: DRA device binding
 * conditions (ClaimsReserved, BindingConditionsMet, BindingConditionsFailed, the
 * `bindingConditions` pod timer, `BindFailed.plugin`, claims' `status.devices`, and
 * `bindingConditions` in the header's config), and extended resources backed by DRA
 * (`extendedResourceClaims` in the header's config, a `PodReserved` claim's `extended`
 * spec of the special claim made at PreBind). 7: Kubernetes' own gangs (`CorePodGroup`
 * objects, scheduling.k8s.io/v1beta1 PodGroups with their topology, priority, preemption
 * policy and disruption mode; pods' `spec.schedulingGroup`), gang
 * preemption (`gangs.preemption` in the header's config; a blocked group's members get
 * PodNominated, its victims VictimPreempted, as single-pod preemption's), the gang step's
 * search past one pass (`gangs.search`), and
 * topology-aware gangs (a PodGroup's `berth.dev/topology-key` annotation is kept by the
 * trim). Older logs hold none of these (the trim dropped `spec.schedulingGroup` and
 * PodGroup annotations) and replay as recorded.
 */
export const logFormatVersion = 7;

/**
 * The oldest format this berth replays: a format 2 log has no PostFilters in its config and
 * replays without them, as it was recorded.
 */
export const oldestReadableFormat = 2;

/** First line of every log (and of every segment): what produced it and how to replay it. */
export interface LogHeader {
  kind: 'header';
  format: number;
  berthVersion: string;
  /** Seed of the core's random generator (tie-breaks between equal-scoring nodes). */
  seed: number;
  /** The scheduler configuration in force (profile, backoff, scheduler name, ...). */
  config: Record<string, unknown>;
  /**
   * Number of this segment in a rotated recording (1, 2, …). Absent in a log that was not
   * rotated; a segment numbered 2 or more has a snapshot line right after the header.
   */
  segment?: number;
  /**
   * Present when the log is sealed (`--record-key`): every line then ends with a `"mac"`
   * member, the HMAC-SHA-256 of the previous line's MAC and the line (docs/log-format.md).
   */
  seal?: SealInfo;
}

/**
 * Closing line of a log or of the last segment: the digest of every decision in it. The
 * optional `logDigest` (SHA-256 over every line before this one, each with its newline)
 * lets replay notice edited inputs that change no decision (e.g. a BindSucceeded made a
 * BindFailed); logs written before it existed have none and skip that check.
 */
export interface LogDigest {
  kind: 'digest';
  decisions: number;
  digest: string;
  logDigest?: string;
}

/** One bind command recorded (BindRequested) whose result is not recorded yet. */
export interface OpenBind {
  uid: string;
  key: string;
  attempt: number;
  node: string;
}

/**
 * Second line of a segment numbered 2 or more: where the previous segment left off. `seq`
 * and `time` are those of the previous segment's last event (this segment's first event is
 * `seq + 1`); `openBinds` are the binds requested and not yet answered; `state` is the
 * core's snapshot (`Scheduler.snapshot()`), from which the segment replays on its own.
 */
export interface SnapshotLine {
  kind: 'snapshot';
  seq: number;
  time: number;
  openBinds: OpenBind[];
  state: unknown;
}

/**
 * Closing line of every segment but the last: the segment's digests (as in LogDigest,
 * over this segment's decisions and lines only), its last seq and the next segment's
 * file name (a bare name, in the same directory).
 */
export interface SegmentEnd {
  kind: 'segment-end';
  next: string;
  lastSeq: number;
  decisions: number;
  digest: string;
  logDigest: string;
}

/** Encodes the header line (without the trailing newline). */
export function encodeHeader(header: LogHeader): string {
  return JSON.stringify(header);
}

/** Encodes one event line (without the trailing newline). */
export function encodeEnvelope(env: Envelope): string {
  return JSON.stringify(env);
}

/** Encodes the closing digest line (without the trailing newline). */
export function encodeDigest(digest: LogDigest): string {
  return JSON.stringify(digest);
}

/** Encodes a segment's snapshot line (without the trailing newline). */
export function encodeSnapshot(snapshot: SnapshotLine): string {
  return JSON.stringify(snapshot);
}

/** Encodes a segment's closing line (without the trailing newline). */
export function encodeSegmentEnd(end: SegmentEnd): string {
  return JSON.stringify(end);
}
