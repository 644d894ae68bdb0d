// Pins the one pod key: namespace defaulting, names required, never throws on junk.
import { describe, expect, it } from 'vitest';
import { nameOfObject, podKey, podKeyOfObject } from './keys.ts';
import { objectKeyOf } from './kinds.ts';

describe('podKey', () => {
  it.each([
    ['team-a', 'web', 'team-a/web'],
    [undefined, 'web', 'default/web'],
    ['', 'web', 'default/web'],
  ])('keys namespace %j and name %j as %j', (namespace, name, key) => {
    expect(podKey(namespace, name)).toBe(key);
  });
});

describe('podKeyOfObject', () => {
  it.each([
    ['a named pod in a namespace', { metadata: { name: 'web', namespace: 'a' } }, 'a/web'],
    ['a pod without a namespace', { metadata: { name: 'web' } }, 'default/web'],
    ['a non-string namespace', { metadata: { name: 'web', namespace: 7 } }, 'default/web'],
    ['an empty name', { metadata: { name: '', namespace: 'a' } }, undefined],
    ['no metadata', { spec: {} }, undefined],
    ['an array', [], undefined],
    ['null', null, undefined],
  ])('%s', (_what, obj, key) => {
    expect(podKeyOfObject(obj)).toBe(key);
  });
});

describe('nameOfObject and objectKeyOf', () => {
  it('names a cluster-scoped object by its name alone', () => {
    const pv = { metadata: { name: 'pv-1', namespace: 'ignored' } };
    expect(nameOfObject(pv)).toBe('pv-1');
    expect(objectKeyOf('PersistentVolume', pv)).toBe('pv-1');
  });
  it('names a namespaced object by namespace/name', () => {
    expect(objectKeyOf('Service', { metadata: { name: 's' } })).toBe('default/s');
    expect(objectKeyOf('Service', { metadata: { namespace: 'x' } })).toBeUndefined();
  });
});
