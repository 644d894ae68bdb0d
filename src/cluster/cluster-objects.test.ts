// Pins the other watched kinds: their parsers, how the reducer stores them, and snapshots of them.
import { from, lastValueFrom, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { trimObject } from '../adapters/trim.ts';
import { eventProblem } from '../events/integrity.ts';
import type { BerthEvent, InputEvent } from '../events/types.ts';
import { dropUnchangedUpserts } from '../runtime/pipeline.ts';
import { objectKeyOf, objectParsers } from './cluster-objects.ts';
import { initialState, reduce } from './reducer.ts';
import { restoreClusterState, serializeClusterState } from './serialize.ts';
import type { ClusterChange, ClusterState } from './types.ts';

const ns = (name: string, labels: Record<string, string> = {}, rv = '1') => ({
  metadata: { name, labels, resourceVersion: rv },
});
const svc = (name: string, selector: unknown, namespace = 'team') => ({
  metadata: { name, namespace },
  spec: { selector },
});

let seq = 0;
function apply(state: ClusterState, event: BerthEvent): ClusterChange {
  return reduce(state, { seq: ++seq, time: 0, event });
}

describe('objectKeyOf', () => {
  it('keys namespaced kinds by namespace/name (default namespace) and others by name', () => {
    expect(objectKeyOf('Service', svc('web', {}))).toBe('team/web');
    expect(objectKeyOf('ReplicaSet', { metadata: { name: 'rs' } })).toBe('default/rs');
    expect(objectKeyOf('Namespace', ns('team'))).toBe('team');
    expect(objectKeyOf('CSINode', { metadata: { name: 'n1', namespace: 'x' } })).toBe('n1');
    expect(objectKeyOf('Namespace', { metadata: {} })).toBeUndefined();
    expect(objectKeyOf('Namespace', 'junk')).toBeUndefined();
  });
});

describe('object parsers', () => {
  it('reads a namespace as its labels, dropping non-string values', () => {
    expect(objectParsers.Namespace({ metadata: { name: 'a', labels: { x: '1', y: 2 } } })).toEqual({
      value: { name: 'a', labels: { x: '1' } },
    });
  });

  it('reads a Service or ReplicationController map selector; empty or absent selects nothing', () => {
    const web = objectParsers.Service(svc('web', { app: 'web' }));
    expect(web).toEqual({
      value: {
        kind: 'Service',
        namespace: 'team',
        name: 'web',
        selector: {
          nothing: false,
          requirements: [{ key: 'app', operator: 'In', values: ['web'] }],
        },
      },
    });
    expect(objectParsers.Service(svc('headless', {}))).toMatchObject({
      value: { selector: undefined },
    });
    expect(objectParsers.ReplicationController(svc('rc', undefined))).toMatchObject({
      value: { selector: undefined },
    });
  });

  it('reads a ReplicaSet or StatefulSet LabelSelector; malformed or empty selects nothing', () => {
    const rs = objectParsers.ReplicaSet(
      svc('rs', { matchExpressions: [{ key: 'tier', operator: 'Exists' }] }),
    );
    expect(rs).toMatchObject({
      value: { selector: { requirements: [{ key: 'tier', operator: 'Exists', values: [] }] } },
    });
    expect(objectParsers.StatefulSet(svc('ss', { matchLabels: { a: 1 } }))).toMatchObject({
      value: { selector: undefined },
    });
    expect(objectParsers.StatefulSet(svc('ss', {}))).toMatchObject({
      value: { selector: undefined },
    });
  });

  it('rejects a nameless object, naming the kind', () => {
    expect(objectParsers.Service({ metadata: {} })).toEqual({
      rejected: 'Service has no metadata.name',
    });
    expect(objectParsers.CSINode(null)).toEqual({ rejected: 'CSINode has no metadata.name' });
  });
});

describe('reducer: object events', () => {
  it('stores, replaces and deletes objects, reporting each change', () => {
    const state = initialState();
    const added = apply(state, { type: 'ObjectUpserted', kind: 'Namespace', object: ns('a') });
    expect(added).toEqual({
      kind: 'object',
      objectKind: 'Namespace',
      key: 'a',
      before: undefined,
      after: { name: 'a', labels: {} },
    });
    apply(state, { type: 'ObjectUpserted', kind: 'Namespace', object: ns('a', { env: 'prod' }) });
    expect(state.objects.Namespace.get('a')).toEqual({ name: 'a', labels: { env: 'prod' } });
    const gone = apply(state, { type: 'ObjectDeleted', kind: 'Namespace', key: 'a' });
    expect(gone).toMatchObject({ kind: 'object', after: undefined, before: { name: 'a' } });
    expect(state.objects.Namespace.size).toBe(0);
    expect(apply(state, { type: 'ObjectDeleted', kind: 'Namespace', key: 'a' })).toEqual({
      kind: 'none',
    });
  });

  it('rejects a nameless object and ignores an unknown kind, without throwing', () => {
    const state = initialState();
    apply(state, { type: 'ObjectUpserted', kind: 'Service', object: { metadata: {} } });
    expect(state.rejected).toMatchObject([
      { kind: 'Service', reason: 'Service has no metadata.name' },
    ]);
    const bogus = {
      type: 'ObjectUpserted',
      kind: 'Secret',
      object: ns('x'),
    } as unknown as BerthEvent;
    expect(apply(state, bogus)).toEqual({ kind: 'none' });
    expect(state.rejected).toHaveLength(1);
  });

  it('deletes at the end of a relist the objects it did not see', () => {
    const state = initialState();
    apply(state, { type: 'ObjectUpserted', kind: 'Namespace', object: ns('a') });
    apply(state, { type: 'ObjectUpserted', kind: 'Namespace', object: ns('b') });
    apply(state, { type: 'ResyncStarted', kind: 'Namespace' });
    apply(state, { type: 'ObjectUpserted', kind: 'Namespace', object: ns('b') });
    const done = apply(state, { type: 'ResyncDone', kind: 'Namespace' });
    expect(done).toMatchObject({
      kind: 'object',
      objectKind: 'Namespace',
      key: 'a',
      after: undefined,
    });
    expect([...state.objects.Namespace.keys()]).toEqual(['b']);
  });
});

describe('snapshots of objects', () => {
  it('round-trip every stored object and an open relist of an object kind', () => {
    const state = initialState();
    apply(state, { type: 'ObjectUpserted', kind: 'Namespace', object: ns('a', { env: 'prod' }) });
    apply(state, { type: 'ObjectUpserted', kind: 'Service', object: svc('web', { app: 'web' }) });
    apply(state, { type: 'ResyncStarted', kind: 'Service' });
    const data = JSON.parse(JSON.stringify(serializeClusterState(state)));
    const restored = restoreClusterState(data);
    expect([...restored.objects.Namespace]).toEqual([...state.objects.Namespace]);
    expect([...restored.objects.Service]).toEqual([...state.objects.Service]);
    expect(restored.resync.Service).toEqual(new Set());
    expect(serializeClusterState(restored)).toEqual(data);
  });

  it('refuses an unknown kind or a malformed pair, naming it', () => {
    const data = serializeClusterState(initialState());
    expect(() => restoreClusterState({ ...data, objects: { Secret: [] } as never })).toThrow(
      'cluster.objects has an unknown kind "Secret"',
    );
    expect(() =>
      restoreClusterState({ ...data, objects: { Namespace: [['a']] } as never }),
    ).toThrow('cluster.objects.Namespace[0] is not a [key, object] pair');
  });
});

describe('object events at the edges', () => {
  it('trims each kind to what plugins read', () => {
    const full = {
      metadata: { name: 'web', namespace: 'team', annotations: { a: 'b' }, managedFields: [] },
      spec: { selector: { app: 'web' }, ports: [{ port: 80 }], clusterIP: '10.0.0.1' },
      status: { loadBalancer: {} },
    };
    expect(trimObject('Service', full)).toEqual({
      metadata: { name: 'web', namespace: 'team' },
      spec: { selector: { app: 'web' } },
    });
    expect(
      trimObject('CSINode', { metadata: { name: 'n' }, spec: { drivers: [{ name: 'd', x: 1 }] } }),
    ).toEqual({ metadata: { name: 'n' }, spec: { drivers: [{ name: 'd' }] } });
  });

  it('checks the fields the core reads', () => {
    const up = (e: unknown) => eventProblem(e as BerthEvent);
    expect(up({ type: 'ObjectUpserted', kind: 'Namespace', object: ns('a') })).toBeUndefined();
    expect(up({ type: 'ObjectUpserted', kind: 'Secret', object: ns('a') })).toContain('"kind"');
    expect(up({ type: 'ObjectUpserted', kind: 'Namespace', object: {} })).toContain(
      'object.metadata',
    );
    expect(up({ type: 'ObjectDeleted', kind: 'Namespace', key: '' })).toContain('"key"');
    expect(up({ type: 'ResyncDone', kind: 'CSINode' })).toBeUndefined();
  });

  it('drops an object upsert unchanged but for its resourceVersion', async () => {
    const events: InputEvent[] = [
      { type: 'ObjectUpserted', kind: 'Namespace', object: ns('a', {}, '1') },
      { type: 'ObjectUpserted', kind: 'Namespace', object: ns('a', {}, '2') },
      { type: 'ObjectUpserted', kind: 'Namespace', object: ns('a', { env: 'x' }, '3') },
      { type: 'ObjectDeleted', kind: 'Namespace', key: 'a' },
      { type: 'ObjectUpserted', kind: 'Namespace', object: ns('a', { env: 'x' }, '4') },
    ];
    const out = await lastValueFrom(from(events).pipe(dropUnchangedUpserts(), toArray()));
    expect(
      out.map((e) =>
        e.type === 'ObjectUpserted'
          ? (e.object.metadata as { resourceVersion: string }).resourceVersion
          : e.type,
      ),
    ).toEqual(['1', '3', 'ObjectDeleted', '4']);
  });
});
