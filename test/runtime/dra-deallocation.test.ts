// DynamicResources PostFilter end to end on the simulated cluster: a claim pinned to a node the pod cannot use is deallocated, the pod requeued and placed elsewhere with a new allocation, the log replayed.
import { describe, expect, it } from 'vitest';
import type { ManifestObject } from '../../src/adapters/sim/manifests.ts';
import { defaultConfig } from '../../src/core/config.ts';
import { parseLog } from '../../src/events/reader.ts';
import type { BerthEvent, Envelope } from '../../src/events/types.ts';
import type { JsonRecord } from '../../src/model/record.ts';
import { replay } from '../../src/runtime/replay.ts';
import { simulate } from '../../src/runtime/simulate.ts';
import { pinnedObjects, pinnedPod } from '../support/dra-pinned.ts';
import { nodeObject } from '../support/objects.ts';

const manifest = (object: JsonRecord): ManifestObject => ({
  kind: object.kind as ManifestObject['kind'],
  object,
  origin: 'test',
});

const objects = (holders: JsonRecord[] = []) => pinnedObjects(holders).map(manifest);

function run(holders: JsonRecord[] = []) {
  const lines: string[] = [];
  const events: BerthEvent[] = [];
  const summary = simulate({
    nodes: [nodeObject('n1'), nodeObject('n2')],
    pods: [pinnedPod()],
    objects: objects(holders),
    seed: 3,
    config: defaultConfig,
    bindLatencyMs: 5,
    bindFailureRate: 0,
    script: [],
    record: (line) => {
      lines.push(line);
      const e = (JSON.parse(line) as Partial<Envelope>).event;
      if (e !== undefined) events.push(e);
    },
  });
  return { summary, events, log: `${lines.join('\n')}\n` };
}

/** The claim objects the log shows, in order, as `pool reservedFor-uids` (`-` when unallocated). */
function claimHistory(events: BerthEvent[]): string[] {
  return events.flatMap((e) => {
    if (e.type !== 'ObjectUpserted' || e.kind !== 'ResourceClaim') return [];
    const status = (e.object.status ?? {}) as JsonRecord;
    const alloc = status.allocation as { devices: { results: { pool: string }[] } } | undefined;
    const holders = ((status.reservedFor ?? []) as JsonRecord[]).map((r) => r.uid).join(',');
    return [`${alloc?.devices.results[0]?.pool ?? '-'} ${holders}`];
  });
}

describe('DynamicResources PostFilter on the simulated cluster', () => {
  const { summary, events, log } = run();
  const types = events.map((e) => e.type);

  it('deallocates the claim after the failed cycle, saying so in the pod’s message', () => {
    const failed = events.find((e) => e.type === 'PodUnschedulable');
    expect(failed?.type === 'PodUnschedulable' && failed.message).toBe(
      "0/2 nodes are available: 1 node(s) didn't satisfy plugin(s) [NodeAffinity], 1 resourceclaim not available on the node. deallocation of ResourceClaim completed, preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.",
    );
    const asked = events.find((e) => e.type === 'ClaimDeallocationRequested');
    expect(asked).toMatchObject({
      key: 'ml/p',
      uid: 'uid-p',
      attempt: 1,
      claim: { key: 'ml/c1', uid: 'uid-c1', resourceVersion: '7' },
    });
    expect(types.indexOf('ClaimDeallocationRequested')).toBeGreaterThan(
      types.indexOf('PodUnschedulable'),
    );
  });

  it('requeues the pod on the claim’s update and allocates it anew on n2, where it is bound', () => {
    // Listed, deallocated, PreBind's finalizer update, then its allocation with the pod.
    expect(claimHistory(events)).toEqual(['n1 ', '- ', '- ', 'n2 uid-p']);
    const reserved = events.find((e) => e.type === 'PodReserved');
    expect(reserved).toMatchObject({ attempt: 2, node: 'n2', claims: [{ key: 'ml/c1' }] });
    expect(summary.placements['ml/p']).toBe('n2');
  });

  it('replays the recorded log to the same decisions', () => {
    const r = replay(parseLog(log));
    expect(r.matches).toBe(true);
    expect(r.summary.placements['ml/p']).toBe('n2');
  });

  it('leaves a claim another pod holds: no deallocation, the pod stays pending', () => {
    const held = run([{ resource: 'pods', name: 'other', uid: 'uid-other' }]);
    expect(held.events.some((e) => e.type === 'ClaimDeallocationRequested')).toBe(false);
    expect(held.summary.placements['ml/p']).toBeUndefined();
    expect(claimHistory(held.events)).toEqual(['n1 uid-other']);
  });
});
