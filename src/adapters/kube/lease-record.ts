// The pure parts of leader election: config checks, the Lease's record, MicroTime text.
import type { V1Lease } from '@kubernetes/client-node';

/** Timing and identity of an election (kube-scheduler's defaults: 15 s, 10 s, 2 s). */
export interface LeaderElectionConfig {
  namespace: string;
  name: string;
  identity: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
}

/** client-go's JitterFactor for the acquire retry: waits are retryPeriod × (1 + [0, 1.2)). */
export const acquireJitterFactor = 1.2;

/**
 * Throws an Error naming the offending `--leader-elect-…` flag unless the config is usable:
 * names and identity non-empty, every duration a positive number, the lease at least one
 * second (a Lease holds whole seconds), and leaseDuration > renewDeadline > retryPeriod × 1.2
 * (client-go's checks: the leader must give up before anyone may take over, and must get
 * more than one retry inside its renew deadline).
 */
export function validateLeaderElectionConfig(config: LeaderElectionConfig): void {
  const { leaseDurationMs: lease, renewDeadlineMs: renew, retryPeriodMs: retry } = config;
  if (config.name === '') throw new Error('--leader-elect-resource-name must not be empty');
  if (config.namespace === '')
    throw new Error('--leader-elect-resource-namespace must not be empty');
  if (config.identity === '') throw new Error('the leader election identity must not be empty');
  const durations: [string, number][] = [
    ['--leader-elect-lease-duration', lease],
    ['--leader-elect-renew-deadline', renew],
    ['--leader-elect-retry-period', retry],
  ];
  for (const [flag, ms] of durations)
    if (!Number.isFinite(ms) || ms <= 0)
      throw new Error(`${flag} must be greater than zero (got ${ms} ms)`);
  if (lease < 1000)
    throw new Error(`--leader-elect-lease-duration must be at least 1s (got ${lease} ms)`);
  if (lease <= renew)
    throw new Error(
      `--leader-elect-lease-duration (${lease} ms) must be greater than --leader-elect-renew-deadline (${renew} ms)`,
    );
  if (renew <= retry * acquireJitterFactor)
    throw new Error(
      `--leader-elect-renew-deadline (${renew} ms) must be greater than --leader-elect-retry-period × ${acquireJitterFactor} (${retry * acquireJitterFactor} ms)`,
    );
}

/** What a Lease's spec says, with times as the API's MicroTime text ('' when absent). */
export interface LeaseRecord {
  holderIdentity: string;
  leaseDurationSeconds: number;
  acquireTime: string;
  renewTime: string;
  leaseTransitions: number;
}

/**
 * `date` as a MicroTime: RFC 3339 in UTC with exactly six fractional digits, the only form
 * kube-apiserver accepts in a Lease (`2026-11-23T10:00:00.123000Z`; a Date's own three digits
 * are refused with 400 "cannot parse ".959Z" as ".000000"").
 */
export function formatMicroTime(date: Date): string {
  // Date's own method: a MicroTime's toISOString is this function.
  return `${Date.prototype.toISOString.call(date).slice(0, -1)}000Z`;
}

/**
 * A Date that serialises as a MicroTime (six fractional digits), as a Lease's times and an
 * events.k8s.io Event's `eventTime` must be written.
 */
export class MicroTime extends Date {
  override toISOString(): string {
    return formatMicroTime(this);
  }
}

/**
 * A MicroTime that serialises to exactly the text it was made from. A Lease read back is
 * parsed JSON (its times are the server's strings) and a write sends whatever `toJSON`
 * gives, so this keeps the server's microseconds on a renew.
 */
class MicroTimeText extends MicroTime {
  constructor(private readonly text: string) {
    super(text);
  }

  override toISOString(): string {
    return this.text;
  }
}

/** A MicroTime's text from a Lease field (the server's string, a Date, or nothing). */
function microTimeText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) return '';
  return value instanceof MicroTime ? value.toISOString() : formatMicroTime(value);
}

function wholeNumber(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? Math.trunc(value) : 0;
}

/** The election record of a Lease (client-go's LeaseSpecToLeaderElectionRecord). */
export function recordOf(lease: V1Lease): LeaseRecord {
  const spec = lease.spec ?? {};
  return {
    holderIdentity: typeof spec.holderIdentity === 'string' ? spec.holderIdentity : '',
    leaseDurationSeconds: wholeNumber(spec.leaseDurationSeconds),
    acquireTime: microTimeText(spec.acquireTime),
    renewTime: microTimeText(spec.renewTime),
    leaseTransitions: wholeNumber(spec.leaseTransitions),
  };
}

/** The whole record as one string: two observations differ exactly when these differ. */
export function recordText(record: LeaseRecord): string {
  const r = record;
  return JSON.stringify([
    r.holderIdentity,
    r.leaseDurationSeconds,
    r.acquireTime,
    r.renewTime,
    r.leaseTransitions,
  ]);
}

/**
 * The Lease to write: `base`'s metadata (its resourceVersion makes the PUT conditional) or a
 * new one named `namespace/name`, and a spec holding exactly `record` (fields the elector
 * does not manage, such as `strategy`, are cleared, as client-go does).
 */
export function leaseWith(
  base: V1Lease | undefined,
  target: { namespace: string; name: string },
  record: LeaseRecord,
): V1Lease {
  const metadata = base?.metadata ?? { namespace: target.namespace, name: target.name };
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata,
    spec: {
      holderIdentity: record.holderIdentity,
      leaseDurationSeconds: record.leaseDurationSeconds,
      leaseTransitions: record.leaseTransitions,
      ...(record.acquireTime === '' ? {} : { acquireTime: new MicroTimeText(record.acquireTime) }),
      ...(record.renewTime === '' ? {} : { renewTime: new MicroTimeText(record.renewTime) }),
    },
  };
}
