// Pins how a pod's controller ownerReference is read.
import { describe, expect, it } from 'vitest';
import { parseControllerRef } from './owner-ref.ts';

describe('parseControllerRef', () => {
  const rs = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-7d', uid: 'u1' };

  it('takes the first reference with controller: true', () => {
    expect(
      parseControllerRef([
        { ...rs, name: 'not-me' },
        { ...rs, controller: true },
        { ...rs, name: 'x', controller: true },
      ]),
    ).toEqual({ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-7d' });
  });

  it.each([
    ['no references', undefined],
    ['not a list', { controller: true }],
    ['no controller', [rs]],
    ['a controller without a kind', [{ ...rs, kind: '', controller: true }]],
    ['junk entries', [null, 3, 'x']],
  ])('gives none for %s', (_name, refs) => {
    expect(parseControllerRef(refs)).toBeUndefined();
  });
});
