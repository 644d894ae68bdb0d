// Pins what the simulated API server serves: relists, preemption's writes (evictions, nominations), PodGroup reports.
import { describe, expect, it } from 'vitest';
import { nodeObject, podObject } from '../../../test/support/objects.ts';
import { manualSim } from '../../../test/support/sim-harness.ts';
import type { InputEvent } from '../../events/types.ts';
import { seededRng } from '../../framework/rng.ts';
import type { PodObject } from '../../model/objects.ts';
import { SimCluster } from './sim-cluster.ts';

describe('SimCluster relist', () => {
  it('serves the watched object kinds, trimmed, before nodes and pods, one relist per kind', () => {
    const sim = new SimCluster({
      nodes: [nodeObject('n1')],
      pods: [],
      objects: [
        {
          kind: 'Service',
          object: {
            kind: 'Service',
            metadata: { name: 'web', namespace: 'a' },
            spec: { selector: { app: 'web' }, ports: [] },
          },
          origin: 'f: document 2',
        },
        {
          kind: 'Namespace',
          object: { kind: 'Namespace', metadata: { name: 'a', labels: { env: 'x' } } },
          origin: 'f: document 1',
        },
      ],
      timers: { now: () => 0, schedule: () => {} },
      bindLatencyMs: 1,
      bindFailureRate: 0,
      rng: seededRng(1),
    });
    const seen: InputEvent[] = [];
    sim.events$.subscribe((e) => seen.push(e));
    sim.start();
    expect(seen.map((e) => `${e.type} ${'kind' in e ? e.kind : ''}`.trim())).toEqual([
      'ResyncStarted Namespace',
      'ObjectUpserted Namespace',
      'ResyncDone Namespace',
      'ResyncStarted Service',
      'ObjectUpserted Service',
      'ResyncDone Service',
      'ResyncStarted Node',
      'NodeUpserted',
      'ResyncDone Node',
      'ResyncStarted Pod',
      'ResyncDone Pod',
    ]);
    expect(seen[4]).toEqual({
      type: 'ObjectUpserted',
      kind: 'Service',
      object: { metadata: { name: 'web', namespace: 'a' }, spec: { selector: { app: 'web' } } },
    });
  });
});

/** A sim on a manual clock: `advance(ms)` fires what is due, in deadline then scheduling order. */
function simWith(pods: PodObject[], bindLatencyMs = 5) {
  return manualSim({ pods, bindLatencyMs });
}

const lo = (name = 'lo') => podObject(name, { namespace: 'ns', nodeName: 'n1', priority: 1 });
const preemptor = { uid: 'uid-hi', key: 'ns/hi', attempt: 2 };

describe('SimCluster.preempt', () => {
  it('after the bind latency, emits the victim terminating then deleted, and forgets it', () => {
    const t = simWith([lo(), lo('other')]);
    const uid = t.uidOf('lo');
    t.sim.execute({
      kind: 'preempt',
      preemptor,
      schedulerName: 'berth',
      victim: { uid, key: 'ns/lo' },
      node: 'n1',
      observedGeneration: 0,
    });
    t.advance(4);
    expect(t.seen).toEqual([]);
    t.advance(1);
    expect(t.seen.map((e) => e.type)).toEqual(['PodUpserted', 'PodDeleted']);
    const update = t.seen[0] as Extract<InputEvent, { type: 'PodUpserted' }>;
    expect(update.pod.metadata).toMatchObject({
      name: 'lo',
      uid,
      deletionTimestamp: '1970-01-01T00:16:40Z',
    });
    expect(update.pod.spec.nodeName).toBe('n1');
    expect(t.seen[1]).toEqual({ type: 'PodDeleted', uid, key: 'ns/lo' });
    expect(t.sim.podObjects().map((p) => p.metadata.name)).toEqual(['other']);
  });

  it('evicts several victims in the order it was asked to', () => {
    const t = simWith([lo('a'), lo('b')]);
    const [a, b] = [t.uidOf('a'), t.uidOf('b')];
    t.sim.execute({
      kind: 'preempt',
      preemptor,
      schedulerName: 'berth',
      victim: { uid: b, key: 'ns/b' },
      node: 'n1',
      observedGeneration: 0,
    });
    t.sim.execute({
      kind: 'preempt',
      preemptor,
      schedulerName: 'berth',
      victim: { uid: a, key: 'ns/a' },
      node: 'n1',
      observedGeneration: 0,
    });
    t.advance(5);
    expect(t.seen.map((e) => `${e.type} ${'uid' in e ? e.uid : ''}`.trim())).toEqual([
      'PodUpserted',
      `PodDeleted ${b}`,
      'PodUpserted',
      `PodDeleted ${a}`,
    ]);
  });

  it('emits nothing for a victim already gone or replaced under its name', () => {
    const t = simWith([lo()]);
    const old = t.uidOf('lo');
    t.sim.createPod(lo()); // recreated: deleted, then a new pod of the same name
    t.seen.length = 0;
    t.sim.execute({
      kind: 'preempt',
      preemptor,
      schedulerName: 'berth',
      victim: { uid: old, key: 'ns/lo' },
      node: 'n1',
      observedGeneration: 0,
    });
    t.sim.execute({
      kind: 'preempt',
      preemptor,
      schedulerName: 'berth',
      victim: { uid: 'uid-none', key: 'ns/none' },
      node: 'n1',
      observedGeneration: 0,
    });
    t.advance(5);
    expect(t.seen).toEqual([]);
    expect(t.sim.podObjects()).toHaveLength(1);
    expect(t.uidOf('lo')).not.toBe(old);
  });
});

describe('SimCluster.nominate', () => {
  const pending = (name: string) => podObject(name, { namespace: 'ns' });

  it('sets and clears status.nominatedNodeName after the latency, emitting each change once', () => {
    const t = simWith([pending('hi')]);
    const ref = { uid: t.uidOf('hi'), key: 'ns/hi' };
    t.sim.execute({ kind: 'nominate', pod: ref, node: 'n2' });
    t.advance(5);
    t.sim.execute({ kind: 'nominate', pod: ref, node: 'n2' }); // no change: no watch event
    t.advance(5);
    expect(t.seen).toHaveLength(1);
    expect((t.seen[0] as { pod: PodObject }).pod.status?.nominatedNodeName).toBe('n2');
    expect(t.sim.podObjects()[0]?.status?.nominatedNodeName).toBe('n2');
    t.sim.execute({ kind: 'nominate', pod: ref, node: undefined });
    t.advance(5);
    t.sim.execute({ kind: 'nominate', pod: ref, node: undefined });
    t.advance(5);
    expect(t.seen).toHaveLength(2);
    expect((t.seen[1] as { pod: PodObject }).pod.status?.nominatedNodeName).toBeUndefined();
    expect(t.sim.podObjects()[0]?.status).toEqual({});
  });

  it('leaves a bound, missing or replaced pod alone', () => {
    const t = simWith([podObject('bound', { namespace: 'ns', nodeName: 'n1' }), pending('p')]);
    const old = t.uidOf('p');
    t.sim.createPod(pending('p'));
    t.seen.length = 0;
    t.sim.execute({
      kind: 'nominate',
      pod: { uid: t.uidOf('bound'), key: 'ns/bound' },
      node: 'n2',
    });
    t.sim.execute({ kind: 'nominate', pod: { uid: old, key: 'ns/p' }, node: 'n2' });
    t.sim.execute({ kind: 'nominate', pod: { uid: 'uid-none', key: 'ns/none' }, node: 'n2' });
    t.advance(5);
    expect(t.seen).toEqual([]);
  });
});

describe('SimCluster PodGroups', () => {
  const group = {
    kind: 'PodGroup' as const,
    object: {
      apiVersion: 'scheduling.x-k8s.io/v1alpha1',
      kind: 'PodGroup',
      metadata: { name: 'train', namespace: 'ml', creationTimestamp: '2025-01-01T00:00:00Z' },
      spec: { minMember: 2, scheduleTimeoutSeconds: 30 },
      status: { phase: 'Running' },
    },
    origin: 'f: document 1',
  };

  it('serves manifest PodGroups as trimmed ObjectUpserted PodGroup in their own relist', () => {
    const sim = new SimCluster({
      nodes: [],
      pods: [],
      objects: [group],
      timers: { now: () => 0, schedule: () => {} },
      bindLatencyMs: 1,
      bindFailureRate: 0,
      rng: seededRng(1),
    });
    const seen: InputEvent[] = [];
    sim.events$.subscribe((e) => seen.push(e));
    sim.start();
    expect(seen.slice(0, 3)).toEqual([
      { type: 'ResyncStarted', kind: 'PodGroup' },
      {
        type: 'ObjectUpserted',
        kind: 'PodGroup',
        object: {
          metadata: { name: 'train', namespace: 'ml', creationTimestamp: '2025-01-01T00:00:00Z' },
          spec: { minMember: 2, scheduleTimeoutSeconds: 30 },
        },
      },
      { type: 'ResyncDone', kind: 'PodGroup' },
    ]);
  });

  it('keeps the latest report per group and its Events, and emits nothing for them', () => {
    const t = simWith([]);
    const base = { scheduled: 0, running: 0, succeeded: 0, failed: 0 };
    t.sim.execute({ kind: 'reportGroup', report: { key: 'ml/train', phase: 'Pending', ...base } });
    t.advance(7);
    t.sim.execute({
      kind: 'reportGroup',
      report: {
        key: 'ml/train',
        phase: 'Scheduled',
        ...base,
        scheduled: 2,
        scheduleStartMs: 1_000_000,
        event: { type: 'Normal', reason: 'Scheduled', message: 'all 2 members bound' },
      },
    });
    t.sim.execute({ kind: 'reportGroup', report: { key: 'ml/other', phase: 'Pending', ...base } });
    t.advance(100);
    expect(t.seen).toEqual([]);
    expect(t.sim.groupStatus('ml/train')).toEqual({
      key: 'ml/train',
      phase: 'Scheduled',
      ...base,
      scheduled: 2,
      scheduleStartMs: 1_000_000,
    });
    expect(t.sim.groupStatus('ml/other')?.phase).toBe('Pending');
    expect(t.sim.groupStatus('ml/none')).toBeUndefined();
    expect(t.sim.groupEvents()).toEqual([
      {
        key: 'ml/train',
        type: 'Normal',
        reason: 'Scheduled',
        message: 'all 2 members bound',
        time: 1_000_007,
      },
    ]);
    // Read-only: what a caller gets cannot change what the sim holds.
    expect(Object.isFrozen(t.sim.groupStatus('ml/train'))).toBe(true);
    (t.sim.groupEvents() as unknown[]).length = 0;
    expect(t.sim.groupEvents()).toHaveLength(1);
  });
});
