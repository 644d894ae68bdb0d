// Pins the input pipeline: one ordered stream from every source, unchanged upserts dropped.
import { from, lastValueFrom, Subject, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { nodeObject, podObject } from '../../test/support/objects.ts';
import { defaultConfig } from '../core/config.ts';
import { Scheduler } from '../core/scheduler.ts';
import type { InputEvent } from '../events/types.ts';
import type { PodObject } from '../model/objects.ts';
import { connectSources, dropUnchangedUpserts } from './pipeline.ts';

function pod(name: string, o: { uid?: string; rv?: string; labels?: Record<string, string> } = {}) {
  const p: PodObject = podObject(name, {
    schedulerName: 'berth',
    requests: { cpu: '1' },
    ...(o.labels === undefined ? {} : { labels: o.labels }),
  });
  p.metadata.uid = o.uid ?? `${name}-1`;
  if (o.rv !== undefined) p.metadata.resourceVersion = o.rv;
  return p;
}
const podUp = (p: PodObject): InputEvent => ({ type: 'PodUpserted', pod: p });
const nodeUp = (name: string, rv: string, labels?: Record<string, string>): InputEvent => {
  const n = nodeObject(name, labels === undefined ? {} : { labels });
  n.metadata.resourceVersion = rv;
  return { type: 'NodeUpserted', node: n };
};

/** What passes the filter, as the resourceVersions (or event types) that got through. */
async function passed(events: InputEvent[]): Promise<string[]> {
  const out = await lastValueFrom(from(events).pipe(dropUnchangedUpserts(), toArray()));
  return out.map((e) => {
    if (e.type === 'PodUpserted') return `pod ${e.pod.metadata.resourceVersion}`;
    if (e.type === 'NodeUpserted') return `node ${e.node.metadata.resourceVersion}`;
    return e.type;
  });
}

describe('dropUnchangedUpserts', () => {
  it('drops a pod upsert identical to the last one but for its resourceVersion', async () => {
    expect(await passed([podUp(pod('a', { rv: '1' })), podUp(pod('a', { rv: '2' }))])).toEqual([
      'pod 1',
    ]);
  });

  it('passes an upsert that changed, and compares later ones with it', async () => {
    const events = [
      podUp(pod('a', { rv: '1' })),
      podUp(pod('a', { rv: '2', labels: { v: '2' } })),
      podUp(pod('a', { rv: '3', labels: { v: '2' } })),
      podUp(pod('a', { rv: '4' })),
    ];
    expect(await passed(events)).toEqual(['pod 1', 'pod 2', 'pod 4']);
  });

  it('drops unchanged node upserts (heartbeats the trim reduced to nothing new)', async () => {
    const events = [nodeUp('n1', '1'), nodeUp('n1', '2'), nodeUp('n1', '3', { zone: 'a' })];
    expect(await passed(events)).toEqual(['node 1', 'node 3']);
  });

  it('tells pods apart by uid: a recreation under the same name passes', async () => {
    const events = [podUp(pod('a', { rv: '1' })), podUp(pod('a', { uid: 'a-2', rv: '2' }))];
    expect(await passed(events)).toEqual(['pod 1', 'pod 2']);
  });

  it('passes the same object again after its deletion', async () => {
    const events: InputEvent[] = [
      podUp(pod('a', { rv: '1' })),
      { type: 'PodDeleted', uid: 'a-1', key: 'default/a' },
      podUp(pod('a', { rv: '2' })),
    ];
    expect(await passed(events)).toEqual(['pod 1', 'PodDeleted', 'pod 2']);
  });

  it('passes every item of a relist, and forgets what the relist did not see', async () => {
    const events: InputEvent[] = [
      podUp(pod('a', { rv: '1' })),
      podUp(pod('b', { rv: '1' })),
      { type: 'ResyncStarted', kind: 'Pod' },
      podUp(pod('a', { rv: '2' })),
      { type: 'ResyncDone', kind: 'Pod' },
      podUp(pod('a', { rv: '3' })),
      podUp(pod('b', { rv: '3' })),
    ];
    expect(await passed(events)).toEqual([
      'pod 1',
      'pod 1',
      'ResyncStarted',
      'pod 2',
      'ResyncDone',
      'pod 3',
    ]);
  });

  it('passes results and timers untouched', async () => {
    const events: InputEvent[] = [
      { type: 'TimerFired', timer: 'flush' },
      { type: 'TimerFired', timer: 'flush' },
      { type: 'BindSucceeded', uid: 'a-1', key: 'default/a', attempt: 1, node: 'n1' },
    ];
    expect(await passed(events)).toEqual(['TimerFired', 'TimerFired', 'BindSucceeded']);
  });
});

describe('connectSources', () => {
  it('merges every source into one stream, in arrival order, until unsubscribed', () => {
    const watch = new Subject<InputEvent>();
    const results = new Subject<InputEvent>();
    const timers = new Subject<InputEvent>();
    const seen: string[] = [];
    const sub = connectSources([watch, results, timers], (e) => seen.push(e.type));
    watch.next(nodeUp('n1', '1'));
    timers.next({ type: 'TimerFired', timer: 'flush' });
    results.next({
      type: 'BindFailed',
      uid: 'u',
      key: 'k',
      attempt: 1,
      node: 'n',
      reason: 'Error',
      message: 'm',
    });
    watch.next({ type: 'NodeDeleted', name: 'n1' });
    sub.unsubscribe();
    watch.next(nodeUp('n2', '1'));
    expect(seen).toEqual(['NodeUpserted', 'TimerFired', 'BindFailed', 'NodeDeleted']);
  });

  it('identical upserts through connectSources are dropped and never requeue a parked pod', () => {
    const core = new Scheduler({ config: defaultConfig, seed: 1 });
    let now = 0;
    const watch = new Subject<InputEvent>();
    const ingested: InputEvent[] = [];
    const sub = connectSources([watch], (e) => {
      ingested.push(e);
      core.ingest(e, now);
    });
    const picky = pod('picky', { rv: '1' });
    picky.spec.nodeSelector = { zone: 'b' };
    watch.next(nodeUp('n1', '1', { zone: 'a' }));
    watch.next(podUp(picky));
    expect(core.cycle(now).decisions.map((e) => e.event.type)).toEqual(['PodUnschedulable']);
    now = 60_000;
    // Status churn and berth's own condition patch: only the resourceVersion moves.
    for (const rv of ['2', '3', '4'])
      watch.next(podUp({ ...picky, metadata: { ...picky.metadata, resourceVersion: rv } }));
    expect(ingested).toHaveLength(2);
    expect(core.machineState('picky-1')).toBe('unschedulable');
    expect(core.cycle(now).decisions).toEqual([]);
    // The same upsert entering the core directly would retry the pod (its own update).
    core.ingest(podUp({ ...picky, metadata: { ...picky.metadata, resourceVersion: '5' } }), now);
    expect(core.machineState('picky-1')).toBe('pending');
    sub.unsubscribe();
  });
});
