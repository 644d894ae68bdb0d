// The core's PreBind wait for DRA binding conditions: the held bind command, the Event, completion on the claim's update, the timeout, snapshots mid-wait and older configs.
import { describe, expect, it } from 'vitest';
import { bindingObjects, bindingPod } from '../../test/support/dra-binding.ts';
import { nodeObject } from '../../test/support/objects.ts';
import type { DecisionEvent, InputEvent } from '../events/types.ts';
import type { Profile } from '../framework/types.ts';
import type { ObjectKind } from '../model/kinds.ts';
import type { JsonRecord } from '../model/record.ts';
import { profileFromConfig } from '../plugins/registry.ts';
import type { Command } from './commands.ts';
import { type BerthConfig, defaultConfig } from './config.ts';
import { Scheduler } from './scheduler.ts';

const attempt = { uid: 'uid-p', key: 'ml/p', attempt: 1 };

/** A core that has seen n1, the DRA objects and pod ml/p, and decided its first cycle. */
function decided(config: BerthConfig = defaultConfig, from?: Scheduler, profile?: Profile) {
  const core =
    from ?? new Scheduler({ config, seed: 1, ...(profile === undefined ? {} : { profile }) });
  let now = 1_000_000;
  const commands: Command[] = [];
  const decisions: DecisionEvent[] = [];
  const take = (step: { commands: Command[]; decisions: { event: DecisionEvent }[] }) => {
    commands.push(...step.commands);
    decisions.push(...step.decisions.map((d) => d.event));
  };
  const feed = (e: InputEvent, at = now + 1) => {
    now = at;
    take(core.ingest(e, now));
  };
  if (from === undefined) {
    core.start(now);
    feed({ type: 'NodeUpserted', node: nodeObject('n1') });
    for (const o of bindingObjects())
      feed({ type: 'ObjectUpserted', kind: o.kind as ObjectKind, object: o.object });
    feed({ type: 'PodUpserted', pod: bindingPod() });
    take(core.cycle(++now));
  }
  return { core, commands, decisions, feed, now: () => now };
}

/** Claim ml/c1 as the driver leaves it: allocated to the pod, `conditions` on gpu-0. */
function claimWith(conditions: JsonRecord[], rv: string): JsonRecord {
  const o = bindingObjects().find((m) => m.kind === 'ResourceClaim')?.object as JsonRecord;
  return {
    ...o,
    metadata: { ...(o.metadata as JsonRecord), resourceVersion: rv },
    status: {
      allocation: {
        devices: {
          results: [
            {
              request: 'gpu',
              driver: 'fabric.example.com',
              pool: 'fabric',
              device: 'gpu-0',
              bindingConditions: ['Attached'],
              bindingFailureConditions: ['AttachFailed'],
            },
          ],
        },
        allocationTimestamp: '1970-01-12T13:46:40Z',
      },
      reservedFor: [{ resource: 'pods', name: 'p', uid: 'uid-p' }],
      devices: [{ driver: 'fabric.example.com', pool: 'fabric', device: 'gpu-0', conditions }],
    },
  };
}

const claimUpdate = (conditions: JsonRecord[], rv = '9'): InputEvent => ({
  type: 'ObjectUpserted',
  kind: 'ResourceClaim',
  object: claimWith(conditions, rv),
});

describe('core: PreBind waits for DRA binding conditions', () => {
  it('holds the bind after the claim writes, says so once the claims are written, and binds when the condition is True', () => {
    const t = decided();
    const bind = t.commands.find((c) => c.kind === 'bind');
    expect(bind).toMatchObject({ kind: 'bind', attempt, node: 'n1', awaitBindingConditions: true });
    t.commands.length = 0;
    t.feed({ type: 'ClaimsReserved', ...attempt, node: 'n1' });
    expect(t.commands).toEqual([
      {
        kind: 'armPodTimer',
        pod: { uid: 'uid-p', key: 'ml/p' },
        timer: 'bindingConditions',
        deadline: t.now() + 600_000,
      },
      { kind: 'reportBindingWait', pod: { uid: 'uid-p', key: 'ml/p' }, node: 'n1' },
    ]);
    t.commands.length = 0;
    t.feed(claimUpdate([{ type: 'Attached', status: 'False' }]));
    expect(t.decisions.map((d) => d.type)).not.toContain('BindingConditionsMet');
    t.feed(claimUpdate([{ type: 'Attached', status: 'True' }], '10'));
    expect(t.decisions.at(-1)).toEqual({ type: 'BindingConditionsMet', ...attempt, node: 'n1' });
    expect(t.commands).toContainEqual({
      kind: 'completeBind',
      attempt,
      node: 'n1',
      claims: [{ namespace: 'ml', name: 'c1', uid: 'uid-c1' }],
    });
    expect(t.commands).toContainEqual({
      kind: 'disarmPodTimer',
      uid: 'uid-p',
      timer: 'bindingConditions',
    });
  });

  it('abandons the bind on a failure condition, and reports kube’s PreBind error when the BindFailed comes back', () => {
    const t = decided();
    t.feed({ type: 'ClaimsReserved', ...attempt, node: 'n1' });
    t.commands.length = 0;
    t.feed(
      claimUpdate([{ type: 'AttachFailed', status: 'True', reason: 'NoPort', message: 'no port' }]),
    );
    const message = 'device binding failed: claim=c1, reason=NoPort, message="no port"';
    expect(t.decisions.at(-1)).toEqual({
      type: 'BindingConditionsFailed',
      ...attempt,
      node: 'n1',
      message,
    });
    expect(t.commands).toContainEqual({
      kind: 'completeBind',
      attempt,
      node: 'n1',
      claims: [{ namespace: 'ml', name: 'c1', uid: 'uid-c1' }],
      failure: { plugin: 'DynamicResources', message },
    });
    t.commands.length = 0;
    t.feed({
      type: 'BindFailed',
      ...attempt,
      node: 'n1',
      reason: 'Error',
      message,
      plugin: 'DynamicResources',
    });
    expect(t.commands).toContainEqual(
      expect.objectContaining({
        kind: 'reportUnschedulable',
        reason: 'SchedulerError',
        message: `running PreBind plugin "DynamicResources": ${message}`,
      }),
    );
  });

  it('gives up when the binding timer fires at its deadline, not before', () => {
    const t = decided();
    t.feed({ type: 'ClaimsReserved', ...attempt, node: 'n1' });
    const deadline = t.now() + 600_000;
    t.feed(
      { type: 'TimerFired', timer: 'bindingConditions', uid: 'uid-p', key: 'ml/p' },
      deadline - 1,
    );
    expect(t.decisions.map((d) => d.type)).not.toContain('BindingConditionsFailed');
    t.feed({ type: 'TimerFired', timer: 'bindingConditions', uid: 'uid-p', key: 'ml/p' }, deadline);
    expect(t.decisions.at(-1)).toMatchObject({
      type: 'BindingConditionsFailed',
      message: 'device binding timeout: context deadline exceeded',
    });
  });

  it('waits as long as the profile’s DynamicResourcesArgs bindingTimeout says', () => {
    const profile = profileFromConfig({
      pluginArgs: { DynamicResources: { bindingTimeout: '2s' } },
      bindingConditions: true,
    });
    const t = decided(defaultConfig, undefined, profile);
    t.feed({ type: 'ClaimsReserved', ...attempt, node: 'n1' });
    expect(t.commands).toContainEqual(
      expect.objectContaining({ timer: 'bindingConditions', deadline: t.now() + 2000 }),
    );
  });

  it('continues a wait from a snapshot taken mid-wait, timer armed again', () => {
    const t = decided();
    t.feed({ type: 'ClaimsReserved', ...attempt, node: 'n1' });
    const snapshot = JSON.parse(JSON.stringify(t.core.snapshot()));
    const { core, commands } = Scheduler.restore(snapshot, { config: defaultConfig, seed: 1 });
    expect(commands).toContainEqual(
      expect.objectContaining({ kind: 'armPodTimer', timer: 'bindingConditions' }),
    );
    const r = decided(defaultConfig, core);
    r.feed(claimUpdate([{ type: 'Attached', status: 'True' }]), t.now() + 1);
    expect(r.decisions).toEqual([{ type: 'BindingConditionsMet', ...attempt, node: 'n1' }]);
  });

  it('binds without waiting when replaying a log from before binding conditions', () => {
    const { bindingConditions: _, ...older } = defaultConfig;
    const t = decided(older);
    const bind = t.commands.find((c) => c.kind === 'bind');
    expect(bind).toBeDefined();
    expect(bind).not.toHaveProperty('awaitBindingConditions');
  });
});
