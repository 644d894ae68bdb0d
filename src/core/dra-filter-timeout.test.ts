// DynamicResources' filter timeout through the core: a node's allocator search past its budget fails the cycle with kube's Error; the pod backs off and is told; older logs search without limit.
import { describe, expect, it } from 'vitest';
import { nodeObject, podObject } from '../../test/support/objects.ts';
import type { DecisionEvent, InputEvent } from '../events/types.ts';
import type { Profile } from '../framework/types.ts';
import type { JsonRecord } from '../model/record.ts';
import { profileFromConfig } from '../plugins/registry.ts';
import type { Command } from './commands.ts';
import { defaultConfig } from './config.ts';
import { Scheduler } from './scheduler.ts';

const driver = 'numa.example.com';

/** n1's 40 devices with 4 numa values, and claim ml/c asking for 5 with distinct numa: hopeless. */
const objects: { kind: 'DeviceClass' | 'ResourceSlice' | 'ResourceClaim'; object: JsonRecord }[] = [
  {
    kind: 'DeviceClass',
    object: {
      metadata: { name: 'numa' },
      spec: { selectors: [{ cel: { expression: `device.driver == "${driver}"` } }] },
    },
  },
  {
    kind: 'ResourceSlice',
    object: {
      metadata: { name: 'n1-numa' },
      spec: {
        driver,
        nodeName: 'n1',
        pool: { name: 'n1', generation: 1, resourceSliceCount: 1 },
        devices: Array.from({ length: 40 }, (_, i) => ({
          name: `d-${i}`,
          attributes: { numa: { int: i % 4 } },
        })),
      },
    },
  },
  {
    kind: 'ResourceClaim',
    object: {
      metadata: { name: 'c', namespace: 'ml', uid: 'uid-c', resourceVersion: '3' },
      spec: {
        devices: {
          requests: [
            {
              name: 'r',
              exactly: { deviceClassName: 'numa', allocationMode: 'ExactCount', count: 5 },
            },
          ],
          constraints: [{ distinctAttribute: `${driver}/numa` }],
        },
      },
    },
  },
];

function firstCycle(profile: Profile, config = defaultConfig) {
  const core = new Scheduler({ config, seed: 1, profile });
  let now = 1000;
  const commands: Command[] = [];
  const decisions: DecisionEvent[] = [];
  const feed = (e: InputEvent) => {
    const step = core.ingest(e, ++now);
    commands.push(...step.commands);
  };
  core.start(now);
  feed({ type: 'NodeUpserted', node: nodeObject('n1') });
  for (const o of objects) feed({ type: 'ObjectUpserted', kind: o.kind, object: o.object });
  const pod = podObject('p', { namespace: 'ml', schedulerName: 'berth' });
  pod.metadata.uid = 'uid-p';
  (pod.spec as JsonRecord).resourceClaims = [{ name: 'r', resourceClaimName: 'c' }];
  feed({ type: 'PodUpserted', pod });
  const step = core.cycle(++now);
  commands.push(...step.commands);
  decisions.push(...step.decisions.map((d) => d.event));
  return { commands, decisions };
}

const withTimeout = (filterTimeout: string, on = true) =>
  profileFromConfig({
    pluginArgs: { DynamicResources: { filterTimeout } },
    bindingConditions: true,
    draFilterTimeout: on,
  });

describe('core: DynamicResources filter timeout (search budget)', () => {
  it('fails the cycle with kube’s Error when the node’s search outlasts filterTimeout', () => {
    // 50 ms buys 5,000 steps; proving the claim hopeless takes 14,641.
    const t = firstCycle(withTimeout('50ms'));
    expect(t.decisions).toEqual([
      expect.objectContaining({
        type: 'CycleFailed',
        plugin: 'DynamicResources',
        message: 'node n1: timed out trying to allocate devices',
      }),
    ]);
    const told = t.commands.find((c) => c.kind === 'reportUnschedulable');
    expect(told).toMatchObject({ reason: 'SchedulerError' });
    expect(told?.kind === 'reportUnschedulable' && told.message).toContain(
      'node n1: timed out trying to allocate devices',
    );
  });

  it('reports the node unschedulable as before when the search ends within its budget, or without the feature', () => {
    for (const profile of [withTimeout('10s'), withTimeout('50ms', false), withTimeout('0')]) {
      const t = firstCycle(profile);
      expect(t.decisions.map((d) => d.type)).toEqual(['PodUnschedulable']);
    }
  });
});
