// A DRA driver the simulated cluster plays: it answers devices' binding conditions on the claims the scheduler allocated.
import { podKey } from '../../model/keys.ts';
import type { JsonRecord } from '../../model/record.ts';
import { claimMeta, claimStatus, type SimClaims, withStatus } from './sim-claims.ts';

/**
 * What the driver does once a claim's allocation (with binding conditions) is written:
 * `ready` sets every binding condition True, `fail` sets the first binding-failure condition
 * True (reason `AttachFailed`), `never` does nothing (the scheduler's wait times out).
 */
export interface SimDeviceDriver {
  outcome: 'ready' | 'fail' | 'never';
  /** How long after the claim's allocation was written the driver writes its status. */
  latencyMs: number;
}

/** The failure condition's reason and message the `fail` driver writes. */
export const driverFailure = {
  reason: 'AttachFailed',
  message: 'the device could not be attached',
};

interface ResultView {
  driver: string;
  pool: string;
  device: string;
  bindingConditions?: string[];
  bindingFailureConditions?: string[];
}

function resultsOf(claim: JsonRecord): ResultView[] {
  const allocation = claimStatus(claim).allocation as
    | { devices?: { results?: ResultView[] } }
    | undefined;
  return allocation?.devices?.results ?? [];
}

/** True when some allocated device of `claim` has binding conditions. */
export function needsDriver(claim: JsonRecord): boolean {
  return resultsOf(claim).some((r) => (r.bindingConditions?.length ?? 0) > 0);
}

/**
 * The driver's status write on claim `key` (still the claim of `uid`, still allocated): a
 * `status.devices` entry per device with binding conditions, as `outcome` says. Returns
 * whether it wrote.
 */
export function playDriver(
  claims: SimClaims,
  key: string,
  uid: string,
  outcome: SimDeviceDriver['outcome'],
  timestamp: string,
): boolean {
  const claim = claims.get(key);
  if (outcome === 'never' || claim === undefined || claimMeta(claim).uid !== uid) return false;
  const devices = resultsOf(claim)
    .filter((r) => (r.bindingConditions?.length ?? 0) > 0)
    .map((r) => {
      const conditions =
        outcome === 'ready'
          ? (r.bindingConditions ?? []).map((type) => condition(type, 'Ready', '', timestamp))
          : (r.bindingFailureConditions ?? [])
              .slice(0, 1)
              .map((type) =>
                condition(type, driverFailure.reason, driverFailure.message, timestamp),
              );
      return { driver: r.driver, pool: r.pool, device: r.device, conditions };
    });
  if (devices.length === 0) return false;
  claims.update(withStatus(claim, { ...claimStatus(claim), devices }));
  return true;
}

function condition(type: string, reason: string, message: string, at: string): JsonRecord {
  return { type, status: 'True', reason, message, lastTransitionTime: at };
}

/**
 * The driver's answer, after its latency, on each claim just `written` that needs one;
 * `changed` hears of each claim it writes.
 */
export function driveClaims(
  claims: SimClaims,
  opts: {
    readonly timers: { now(): number; schedule(deadline: number, fire: () => void): void };
    readonly deviceDriver?: SimDeviceDriver;
  },
  written: readonly { namespace: string; name: string; uid: string }[],
  timestamp: () => string,
  changed: (keys: string[]) => void,
): void {
  const { deviceDriver: driver, timers } = opts;
  if (driver === undefined || driver.outcome === 'never') return;
  for (const c of written) {
    const key = podKey(c.namespace, c.name);
    const claim = claims.get(key);
    if (claim === undefined || !needsDriver(claim)) continue;
    timers.schedule(timers.now() + driver.latencyMs, () => {
      if (playDriver(claims, key, c.uid, driver.outcome, timestamp())) changed([key]);
    });
  }
}
