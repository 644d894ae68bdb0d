// Tests the records the manifest readers build: manifest keys are ordinary keys, nothing is inherited.
import { describe, expect, it } from 'vitest';
import { emptyRecord, stringEntries } from './fields.ts';

describe('emptyRecord', () => {
  it('inherits nothing: absent keys read undefined, "__proto__" and "constructor" are own keys', () => {
    const r = emptyRecord<string>();
    expect(r.constructor).toBeUndefined();
    expect(r.toString).toBeUndefined();
    expect('hasOwnProperty' in r).toBe(false);
    const [proto, ctor]: string[] = ['__proto__', 'constructor'];
    r[proto as string] = 'a';
    r[ctor as string] = 'b';
    expect(Object.keys(r)).toEqual(['__proto__', 'constructor']);
    expect(JSON.stringify(r)).toBe('{"__proto__":"a","constructor":"b"}');
    expect(emptyRecord<string>()[proto as string]).toBeUndefined();
  });

  it('keeps the string entries of a manifest map, including such keys', () => {
    const labels = stringEntries(JSON.parse('{"__proto__":"x","app":"web","n":1}'));
    expect(Object.keys(labels)).toEqual(['__proto__', 'app']);
    expect(labels['__proto__' as string]).toBe('x');
    expect(labels.valueOf).toBeUndefined();
  });
});
