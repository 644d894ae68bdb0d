// DRA device binding conditions end to end on the simulated cluster: the bind waits for the driver's conditions, fails on a failure condition or at the binding timeout, the claim is released, and each log replays.
import { describe, expect, it } from 'vitest';
import type { SimDeviceDriver } from '../../src/adapters/sim/sim-device-driver.ts';
import { defaultConfig } from '../../src/core/config.ts';
import { parseLog } from '../../src/events/reader.ts';
import type { BerthEvent, Envelope } from '../../src/events/types.ts';
import type { JsonRecord } from '../../src/model/record.ts';
import { replay } from '../../src/runtime/replay.ts';
import { simulate } from '../../src/runtime/simulate.ts';
import { bindingObjects, bindingPod } from '../support/dra-binding.ts';
import { nodeObject } from '../support/objects.ts';

function run(deviceDriver: SimDeviceDriver | undefined, horizonMs = 60_000) {
  const lines: string[] = [];
  const events: { time: number; event: BerthEvent }[] = [];
  const summary = simulate({
    nodes: [nodeObject('n1'), nodeObject('n2')],
    pods: [bindingPod()],
    objects: bindingObjects(),
    seed: 3,
    config: defaultConfig,
    bindLatencyMs: 5,
    bindFailureRate: 0,
    horizonMs,
    ...(deviceDriver === undefined ? {} : { deviceDriver }),
    record: (line) => {
      lines.push(line);
      const e = JSON.parse(line) as Partial<Envelope>;
      if (e.event !== undefined) events.push({ time: e.time as number, event: e.event });
    },
  });
  const types = events.map((e) => e.event.type);
  return { summary, events, types, log: `${lines.join('\n')}\n` };
}

/** The claim as the log shows it each time it changes: `pool|reservedFor|device conditions`. */
function claimHistory(events: { event: BerthEvent }[]): string[] {
  return events.flatMap(({ event: e }) => {
    if (e.type !== 'ObjectUpserted' || e.kind !== 'ResourceClaim') return [];
    const status = (e.object.status ?? {}) as JsonRecord;
    const alloc = status.allocation as { devices: { results: { pool: string }[] } } | undefined;
    const holders = ((status.reservedFor ?? []) as JsonRecord[]).map((r) => r.uid).join(',');
    const devices = ((status.devices ?? []) as { conditions?: JsonRecord[] }[])
      .flatMap((d) => d.conditions ?? [])
      .map((c) => `${c.type}=${c.status}`)
      .join(',');
    return [`${alloc?.devices.results[0]?.pool ?? '-'}|${holders}|${devices}`];
  });
}

const first = <T extends BerthEvent['type']>(r: ReturnType<typeof run>, type: T) =>
  r.events.find((e) => e.event.type === type) as
    | { time: number; event: Extract<BerthEvent, { type: T }> }
    | undefined;

describe('DRA binding conditions on the simulated cluster', () => {
  describe('a driver that attaches the device after 2 s', () => {
    const r = run({ outcome: 'ready', latencyMs: 2000 });

    it('binds only after the condition is True on the claim', () => {
      const reserved = first(r, 'ClaimsReserved');
      const met = first(r, 'BindingConditionsMet');
      const bound = first(r, 'BindSucceeded');
      expect(reserved?.event).toMatchObject({ key: 'ml/p', attempt: 1 });
      expect(met?.time).toBeGreaterThanOrEqual((reserved?.time ?? 0) + 2000);
      expect(r.types.indexOf('BindSucceeded')).toBeGreaterThan(
        r.types.indexOf('BindingConditionsMet'),
      );
      expect(bound?.time).toBeGreaterThan(met?.time ?? 0);
      expect(claimHistory(r.events)).toEqual([
        '-||', // listed
        '-||', // PreBind's finalizer
        'fabric|uid-p|', // allocation and reservation
        'fabric|uid-p|Attached=True', // the driver
      ]);
      expect(r.summary.placements['ml/p']).toBeDefined();
    });

    it('restricts the allocation to the chosen node (bindsToNode)', () => {
      const reservedOn = first(r, 'PodReserved')?.event;
      const alloc = reservedOn?.claims?.[0]?.allocation;
      expect(alloc?.nodeSelector).toEqual({
        nodeSelectorTerms: [
          { matchFields: [{ key: 'metadata.name', operator: 'In', values: [reservedOn?.node] }] },
        ],
      });
      expect(alloc?.devices.results[0]).toMatchObject({
        bindingConditions: ['Attached'],
        bindingFailureConditions: ['AttachFailed'],
      });
    });

    it('replays the recorded log to the same decisions', () => {
      expect(replay(parseLog(r.log)).matches).toBe(true);
    });
  });

  describe('a driver that reports a binding failure', () => {
    const r = run({ outcome: 'fail', latencyMs: 1000 }, 20_000);

    it('does not bind, fails the bind with kube’s error, and releases the claim', () => {
      expect(r.types).not.toContain('BindSucceeded');
      expect(first(r, 'BindingConditionsFailed')?.event.message).toBe(
        'device binding failed: claim=c1, reason=AttachFailed, message="the device could not be attached"',
      );
      expect(first(r, 'BindFailed')?.event).toMatchObject({
        reason: 'Error',
        plugin: 'DynamicResources',
      });
      // Unreserved, then deallocated by the next cycle's PostFilter (devices cleared too).
      expect(claimHistory(r.events).slice(0, 6)).toEqual([
        '-||',
        '-||',
        'fabric|uid-p|',
        'fabric|uid-p|AttachFailed=True',
        'fabric||AttachFailed=True',
        '-||',
      ]);
      const again = r.events.filter((e) => e.event.type === 'PodUnschedulable')[0]?.event;
      expect(again?.type === 'PodUnschedulable' && again.message).toContain(
        '2 resourceclaim not available on the node. deallocation of ResourceClaim completed',
      );
      expect(r.summary.placements['ml/p']).toBeUndefined();
    });

    it('replays the recorded log to the same decisions', () => {
      expect(replay(parseLog(r.log)).matches).toBe(true);
    });
  });

  describe('no driver: the binding timeout (600 s)', () => {
    const r = run(undefined, 700_000);

    it('gives up at the timeout, then the claim is released as timed out', () => {
      const reserved = first(r, 'ClaimsReserved');
      const failed = first(r, 'BindingConditionsFailed');
      expect(failed?.event.message).toBe('device binding timeout: context deadline exceeded');
      expect(failed?.time).toBe((reserved?.time ?? 0) + 600_000);
      expect(r.types).not.toContain('BindSucceeded');
      expect(first(r, 'ClaimDeallocationRequested')?.time).toBeGreaterThan(failed?.time ?? 0);
      expect(claimHistory(r.events).slice(0, 5)).toEqual([
        '-||',
        '-||',
        'fabric|uid-p|',
        'fabric||',
        '-||',
      ]);
    });

    it('replays the recorded log to the same decisions', () => {
      expect(replay(parseLog(r.log)).matches).toBe(true);
    });
  });
});
