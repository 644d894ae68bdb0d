// A ResourceSlice deleted between a pod's decision and its bind: the bind goes ahead as decided (as kube's PreBind does), and no device is handed out twice afterwards.
import { describe, expect, it } from 'vitest';
import { nodeObject, podObject } from '../../test/support/objects.ts';
import type { DecisionEvent, InputEvent } from '../events/types.ts';
import type { JsonRecord } from '../model/record.ts';
import type { ArmPodTimerCommand, BindCommand, Command } from './commands.ts';
import { defaultConfig, withFreshRunDefaults } from './config.ts';
import { Scheduler } from './scheduler.ts';

const driver = 'gpu.example.com';

function slice(devices: string[], generation: number): JsonRecord {
  return {
    metadata: { name: `n1-gpus-${generation}` },
    spec: {
      driver,
      nodeName: 'n1',
      pool: { name: 'n1', generation, resourceSliceCount: 1 },
      devices: devices.map((name) => ({ name })),
    },
  };
}

function claim(name: string, allocation?: JsonRecord): JsonRecord {
  return {
    metadata: { name, namespace: 'ml', uid: `uid-${name}`, resourceVersion: '1' },
    spec: { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: 'gpu' } }] } },
    ...(allocation === undefined ? {} : { status: { allocation, reservedFor: [] } }),
  };
}

function harness() {
  const core = new Scheduler({ config: withFreshRunDefaults(defaultConfig), seed: 1 });
  let now = 1000;
  const commands: Command[] = [];
  const decisions: DecisionEvent[] = [];
  const feed = (e: InputEvent) => commands.push(...core.ingest(e, ++now).commands);
  const cycles = () => {
    for (;;) {
      const step = core.cycle(++now);
      if (step.decisions.length === 0) return;
      commands.push(...step.commands);
      decisions.push(...step.decisions.map((d) => d.event));
    }
  };
  const podOf = (name: string, claimName: string, nodeName?: string) => {
    const pod = podObject(name, { namespace: 'ml', schedulerName: defaultConfig.schedulerName });
    pod.metadata.uid = `uid-${name}`;
    (pod.spec as JsonRecord).resourceClaims = [{ name: 'gpu', resourceClaimName: claimName }];
    if (nodeName !== undefined) (pod.spec as JsonRecord).nodeName = nodeName;
    return pod;
  };
  const addPod = (name: string, claimName: string) =>
    feed({ type: 'PodUpserted', pod: podOf(name, claimName) });
  const podBound = (name: string, claimName: string) =>
    feed({ type: 'PodUpserted', pod: podOf(name, claimName, 'n1') });
  core.start(now);
  feed({ type: 'NodeUpserted', node: nodeObject('n1') });
  const selectors = [{ cel: { expression: `device.driver == "${driver}"` } }];
  feed({
    type: 'ObjectUpserted',
    kind: 'DeviceClass',
    object: { metadata: { name: 'gpu' }, spec: { selectors } },
  });
  /** Lets `ms` pass, firing the pod timers (backoff) that fall due, as the runtime does. */
  const wait = (ms: number) => {
    now += ms;
    const armed = new Map<string, ArmPodTimerCommand>();
    for (const c of commands) {
      if (c.kind === 'armPodTimer') armed.set(`${c.pod.uid}/${c.timer}`, c);
      if (c.kind === 'disarmPodTimer') armed.delete(`${c.uid}/${c.timer}`);
    }
    for (const c of armed.values())
      if (c.deadline <= now && !fired.has(c)) {
        fired.add(c);
        feed({ type: 'TimerFired', ...c.pod, timer: c.timer });
      }
  };
  const fired = new Set<ArmPodTimerCommand>();
  return { core, feed, cycles, wait, addPod, podBound, commands, decisions };
}

const bindOf = (commands: Command[], uid: string) =>
  commands.find((c): c is BindCommand => c.kind === 'bind' && c.attempt.uid === uid);

describe('a ResourceSlice deleted after the decision, before the bind', () => {
  it('binds as decided, then places no one on the deleted devices, nor twice on a device held', () => {
    const h = harness();
    h.feed({ type: 'ObjectUpserted', kind: 'ResourceSlice', object: slice(['gpu-0', 'gpu-9'], 1) });
    h.feed({ type: 'ObjectUpserted', kind: 'ResourceClaim', object: claim('c1') });
    h.addPod('p1', 'c1');
    h.cycles();
    const bind = bindOf(h.commands, 'uid-p1');
    expect(bind?.node).toBe('n1');
    const allocation = bind?.claims?.[0]?.allocation as unknown as JsonRecord;
    expect(JSON.stringify(allocation)).toContain('"device":"gpu-0"');

    // The slice goes while the claim write and the Binding are on their way.
    h.feed({ type: 'ObjectDeleted', kind: 'ResourceSlice', key: 'n1-gpus-1' });
    h.feed({ type: 'ObjectUpserted', kind: 'ResourceClaim', object: claim('c1', allocation) });
    h.feed({ type: 'BindSucceeded', ...(bind as BindCommand).attempt, node: 'n1' });
    h.podBound('p1', 'c1');
    expect(h.core.machineState('uid-p1')).toBeUndefined(); // bound and forgotten
    expect(JSON.stringify([...h.core.pendingReasons()])).not.toContain('p1');

    // No slice: the next pod's claim cannot be allocated.
    h.feed({ type: 'ObjectUpserted', kind: 'ResourceClaim', object: claim('c2') });
    h.addPod('p2', 'c2');
    h.cycles();
    expect(bindOf(h.commands, 'uid-p2')).toBeUndefined();
    expect(JSON.stringify([...h.core.pendingReasons()])).toContain('cannot allocate all claims');

    // The pool comes back with gpu-0 (held by c1) and gpu-1: p2 gets gpu-1 only.
    h.feed({
      type: 'ObjectUpserted',
      kind: 'ResourceSlice',
      object: slice(['gpu-0', 'gpu-1'], 2),
    });
    h.wait(10_000);
    h.cycles();
    const second = bindOf(h.commands, 'uid-p2');
    expect(JSON.stringify(second?.claims?.[0]?.allocation)).toContain('"device":"gpu-1"');
  });
});
