// DynamicResources in the core: pods wait, gated, for their claims; claims are allocated on reserve, for gangs too; old logs refuse.
import { describe, expect, it } from 'vitest';
import { gpuDevices, objectEvent } from '../../test/support/dra-core-events.ts';
import { nodeObject, podObject } from '../../test/support/objects.ts';
import { checkClusterInvariants } from '../cluster/invariants.ts';
import type { DecisionEvent, InputEvent } from '../events/types.ts';
import type { PodObject } from '../model/objects.ts';
import { type BerthConfig, defaultConfig } from './config.ts';
import { Scheduler } from './scheduler.ts';

const node = (name: string): InputEvent => ({
  type: 'NodeUpserted',
  node: nodeObject(name, { allocatable: { cpu: '4', memory: '8Gi', pods: '110' } }),
});
const object = objectEvent;

/** Class `gpu` and `n1`'s pool of two GPUs. */
const devices: InputEvent[] = gpuDevices('n1', 2);

const claim = (name: string, owner?: string): InputEvent =>
  object('ResourceClaim', {
    metadata: {
      name,
      namespace: 'default',
      uid: `claim-${name}`,
      ...(owner === undefined
        ? {}
        : { ownerReferences: [{ kind: 'Pod', name: owner, uid: `${owner}-1`, controller: true }] }),
    },
    spec: { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: 'gpu' } }] } },
  });

/** A berth pod with one claim entry; `status` names a template's claim when given. */
function pod(
  name: string,
  entry: Record<string, string>,
  o: { generated?: string; group?: string } = {},
): PodObject {
  const p = podObject(name, {
    schedulerName: 'berth',
    requests: { cpu: '1' },
    ...(o.group === undefined ? {} : { labels: { 'scheduling.x-k8s.io/pod-group': o.group } }),
  });
  p.metadata.uid = `${name}-1`;
  (p.spec as Record<string, unknown>).resourceClaims = [{ name: 'gpu', ...entry }];
  if (o.generated !== undefined)
    (p as { status?: unknown }).status = {
      resourceClaimStatuses: [{ name: 'gpu', resourceClaimName: o.generated }],
    };
  return p;
}

function given(config: BerthConfig = defaultConfig) {
  const broken: string[] = [];
  const core = new Scheduler({
    config,
    seed: 1,
    inspect: (phase, env, state) => {
      if (phase === 'after')
        for (const b of checkClusterInvariants(state)) broken.push(`seq ${env.seq}: ${b}`);
    },
  });
  const decisions: DecisionEvent[] = [];
  const h = {
    core,
    broken,
    decisions,
    events(...inputs: InputEvent[]) {
      for (const e of inputs) decisions.push(...core.ingest(e, 0).decisions.map((d) => d.event));
      return h;
    },
    drain() {
      for (let d = core.cycle(0).decisions; d.length > 0; d = core.cycle(0).decisions)
        decisions.push(...d.map((env) => env.event));
      return h;
    },
    /** The devices each pod's PodReserved allocated, by pod key. */
    allocated(): Record<string, string[]> {
      const out: Record<string, string[]> = {};
      for (const d of decisions)
        if (d.type === 'PodReserved')
          out[d.key] = (d.claims ?? []).flatMap((c) =>
            (c.allocation?.devices.results ?? []).map((r) => `${d.node}/${r.device}`),
          );
      return out;
    },
  };
  return h;
}

describe('DynamicResources PreEnqueue: a pod waits, gated, for its claims', () => {
  it('a pod naming a claim that does not exist takes no cycle until the claim is created', () => {
    const h = given().events(node('n1'), ...devices, {
      type: 'PodUpserted',
      pod: pod('p', { resourceClaimName: 'c' }),
    });
    h.drain();
    expect(h.decisions).toEqual([]);
    expect(h.core.machineState('p-1')).toBe('gated');
    expect(h.core.pendingReasons().get('default/p')).toBe(
      'could not find ResourceClaim "default/c"',
    );
    h.events(claim('c')).drain();
    expect(h.allocated()).toEqual({ 'default/p': ['n1/gpu-0'] });
    expect(h.broken).toEqual([]);
  });

  it('a pod from a template waits until its status names the claim made for it', () => {
    const h = given().events(node('n1'), ...devices, {
      type: 'PodUpserted',
      pod: pod('p', { resourceClaimTemplateName: 't' }),
    });
    h.drain();
    expect(h.core.pendingReasons().get('default/p')).toBe(
      'pod "default/p": ResourceClaim not created yet',
    );
    // The controller makes the claim first, then names it in the pod's status.
    h.events(claim('p-gpu-x', 'p')).drain();
    expect(h.decisions).toEqual([]);
    expect(h.core.machineState('p-1')).toBe('gated');
    const named = pod('p', { resourceClaimTemplateName: 't' }, { generated: 'p-gpu-x' });
    h.events({ type: 'PodUpserted', pod: named }).drain();
    expect(h.allocated()).toEqual({ 'default/p': ['n1/gpu-0'] });
  });

  it('a claim releases every pod gated for it, in creation order, also after a snapshot restore', () => {
    // A claim change before the pods are gated: the waiters' index exists when they are.
    const h = given().events(
      node('n1'),
      ...devices,
      claim('other'),
      { type: 'PodUpserted', pod: pod('b', { resourceClaimName: 'c' }) },
      { type: 'PodUpserted', pod: pod('a', { resourceClaimName: 'c' }) },
    );
    h.drain();
    const restored = Scheduler.restore(JSON.parse(JSON.stringify(h.core.snapshot())), {
      config: defaultConfig,
      seed: 1,
    }).core;
    for (const core of [h.core, restored]) {
      expect([core.machineState('a-1'), core.machineState('b-1')]).toEqual(['gated', 'gated']);
      const reserved: string[] = [];
      core.ingest(claim('c'), 0);
      for (let d = core.cycle(0).decisions; d.length > 0; d = core.cycle(0).decisions)
        for (const { event } of d) if (event.type === 'PodReserved') reserved.push(event.key);
      // One shared claim: b (made first) takes it, a waits for b's allocation to land.
      expect(reserved).toEqual(['default/b']);
    }
  });

  it('a claim of another namespace or name leaves the pod gated', () => {
    const h = given().events(node('n1'), ...devices, {
      type: 'PodUpserted',
      pod: pod('p', { resourceClaimName: 'c' }),
    });
    h.events(claim('other')).drain();
    expect(h.core.machineState('p-1')).toBe('gated');
  });

  it('a log recorded before DRA (no resourceClaims in its config) refuses the pod, as it did then', () => {
    const legacy: BerthConfig = { ...defaultConfig };
    delete legacy.resourceClaims;
    const h = given(legacy).events(node('n1'), ...devices, claim('c'), {
      type: 'PodUpserted',
      pod: pod('p', { resourceClaimName: 'c' }),
    });
    h.drain();
    expect(h.decisions).toMatchObject([
      {
        type: 'PodUnschedulable',
        message:
          '0/1 nodes are available: berth does not support dynamic resource allocation yet: spec.resourceClaims[0] (gpu).',
      },
    ]);
  });
});

describe('gang members with claims', () => {
  it('each member of a group is allocated its own device: the trial holds the devices of the members before it', () => {
    const group = object('PodGroup', {
      metadata: { name: 'g', namespace: 'default' },
      spec: { minMember: 2 },
    });
    const h = given().events(
      node('n1'),
      ...devices,
      group,
      claim('a'),
      claim('b'),
      { type: 'PodUpserted', pod: pod('m1', { resourceClaimName: 'a' }, { group: 'g' }) },
      { type: 'PodUpserted', pod: pod('m2', { resourceClaimName: 'b' }, { group: 'g' }) },
    );
    h.drain();
    expect(h.allocated()).toEqual({ 'default/m1': ['n1/gpu-0'], 'default/m2': ['n1/gpu-1'] });
    expect(h.broken).toEqual([]);
  });
});
