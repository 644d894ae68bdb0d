// Tests the event translation: listed and watched API objects become upsert and delete InputEvents.
import { describe, expect, it } from 'vitest';
import type { PodObject } from '../../model/objects.ts';
import { deletedEvent, resourceVersionOf, upsertEvent } from './object-events.ts';

const rawPod = {
  metadata: {
    namespace: 'ns1',
    name: 'p',
    uid: 'u1',
    resourceVersion: '7',
    managedFields: [{ manager: 'kubectl' }],
  },
  spec: { schedulerName: 'berth', containers: [{ name: 'c', image: 'x' }] },
};

describe('upsertEvent', () => {
  it('trims a raw pod to what scheduling reads (managedFields go)', () => {
    const event = upsertEvent('Pod', rawPod);
    expect(event?.type).toBe('PodUpserted');
    const pod = (event as { pod: PodObject }).pod;
    expect(pod.metadata).toMatchObject({ namespace: 'ns1', name: 'p', uid: 'u1' });
    expect(pod.metadata).not.toHaveProperty('managedFields');
  });

  it('passes an already trimmed object through as it is', () => {
    const event = upsertEvent('Pod', rawPod, true);
    expect(event).toEqual({ type: 'PodUpserted', pod: rawPod });
  });

  it('turns a node into NodeUpserted and another kind into ObjectUpserted of that kind', () => {
    expect(upsertEvent('Node', { metadata: { name: 'n1' } })?.type).toBe('NodeUpserted');
    const svc = { metadata: { namespace: 'team', name: 'web' }, spec: { clusterIP: '10.0.0.1' } };
    expect(upsertEvent('Service', svc)).toEqual({
      type: 'ObjectUpserted',
      kind: 'Service',
      object: { metadata: { namespace: 'team', name: 'web' }, spec: {} },
    });
  });

  it.each([
    ['no metadata', {}],
    ['an empty name', { metadata: { name: '' } }],
    ['a non-object', 'junk'],
    ['an array', []],
  ])('gives nothing for an object with %s', (_what, obj) => {
    expect(upsertEvent('Pod', obj)).toBeUndefined();
    expect(deletedEvent('Pod', obj)).toBeUndefined();
  });
});

describe('deletedEvent', () => {
  it('names a deleted pod by uid and namespace/name', () => {
    expect(deletedEvent('Pod', rawPod)).toEqual({ type: 'PodDeleted', uid: 'u1', key: 'ns1/p' });
  });

  it('uses the default namespace, and the key as identity, for a pod without them', () => {
    expect(deletedEvent('Pod', { metadata: { name: 'p' } })).toEqual({
      type: 'PodDeleted',
      uid: 'default/p',
      key: 'default/p',
    });
  });

  it('names a node by name, a namespaced object by namespace/name, a cluster one by name', () => {
    expect(deletedEvent('Node', { metadata: { name: 'n1' } })).toEqual({
      type: 'NodeDeleted',
      name: 'n1',
    });
    expect(deletedEvent('Service', { metadata: { namespace: 'team', name: 'web' } })).toEqual({
      type: 'ObjectDeleted',
      kind: 'Service',
      key: 'team/web',
    });
    expect(deletedEvent('StorageClass', { metadata: { name: 'fast' } })).toEqual({
      type: 'ObjectDeleted',
      kind: 'StorageClass',
      key: 'fast',
    });
  });
});

describe('resourceVersionOf', () => {
  it('reads a non-empty metadata.resourceVersion (a bookmark has nothing else)', () => {
    expect(resourceVersionOf({ metadata: { resourceVersion: '42' } })).toBe('42');
    expect(resourceVersionOf({ metadata: { resourceVersion: '' } })).toBeUndefined();
    expect(resourceVersionOf({ metadata: { resourceVersion: 42 } })).toBeUndefined();
    expect(resourceVersionOf(null)).toBeUndefined();
  });
});
