// Table tests for what berth adds or pins beyond kube's DRA CEL cases (limits, cache, errors, extensions).
import { describe, expect, it } from 'vitest';
import { type Case, device, drv, expensive, run } from '../../../test/support/dra-cel-cases.ts';
import { compileDeviceSelector, matchesDevice } from './cel.ts';

/** Behaviours berth adds or pins beyond kube's table. */
const berthCases: Case[] = [
  {
    name: "a missing attribute of a present domain is no such key, with kube's hint",
    expression: `device.attributes["dra.example.com"].model == "a100"`,
    driver: drv,
    attributes: { name: { bool: true } },
    matchError: 'no such key: model. consider using CEL optional chaining',
  },
  {
    name: 'an attribute of another domain is not in the driver domain',
    expression: `"name" in device.attributes["dra.example.com"]`,
    driver: drv,
    attributes: { 'other.example.com/name': { bool: true } },
    match: false,
  },
  {
    name: 'a dyn result that is not a bool fails at evaluation',
    expression: `device.attributes["dra.example.com"].name`,
    driver: drv,
    attributes: { name: { string: 'fish' } },
    matchError: 'CEL result of type string could not be converted to bool',
  },
  {
    name: 'an unparsable version attribute is an evaluation error naming it',
    expression: 'true',
    driver: drv,
    attributes: { v: { version: '1.2' } },
    matchError: 'attribute v: parse semantic version: No Major.Minor.Patch elements found',
  },
  {
    name: 'an attribute without a value is an evaluation error naming it',
    expression: 'true',
    attributes: { 'x.example.com/empty': {} },
    matchError: 'attribute x.example.com/empty: unsupported attribute value',
  },
  {
    name: 'a function error is an evaluation error',
    expression: `device.capacity["dra.example.com"].memory.isGreaterThan(quantity("Three"))`,
    driver: drv,
    capacity: { memory: { value: '1Gi' } },
    matchError: 'quantities must match the regular expression',
  },
  {
    name: 'the example GPU selector from the brief matches',
    expression: `device.driver == "gpu.example.com" && device.attributes["gpu.example.com"].model == "a100" && device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0`,
    driver: 'gpu.example.com',
    attributes: { model: { string: 'a100' } },
    capacity: { memory: { value: '80Gi' } },
    match: true,
  },
  {
    name: 'an undefined field of device fails to compile',
    expression: 'device.nope',
    compileError: "undefined field 'nope'",
  },
  {
    name: 'a map result fails to compile',
    expression: `device.attributes["dra.example.com"]`,
    compileError: 'must evaluate to bool or the unknown type, not map(string, dyn)',
  },
  {
    name: 'a list result fails to compile',
    expression: '[true]',
    compileError: 'must evaluate to bool or the unknown type, not list(bool)',
  },
  {
    name: 'an expression over 10 KiB is refused',
    expression: `"${'x'.repeat(10 * 1024)}" != ""`,
    compileError: 'Too long: may not be more than 10240 bytes',
  },
  {
    name: 'an expression of exactly 10 KiB compiles',
    expression: `"${'x'.repeat(10 * 1024 - 8)}" != ""`,
    match: true,
  },
  {
    name: 'includes, find, charAt and replace are available',
    expression: `[1, 2].includes(2) && "a1b2".find("[0-9]") == "1" && "abc".charAt(1) == "b" && "aaa".replace("a", "b", 2) == "bba"`,
    match: true,
  },
  {
    name: 'the cost limit cannot be absorbed by ||',
    expression: `${expensive} || true`,
    matchError: 'actual cost limit exceeded',
  },
];

describe('DRA CEL selectors (berth)', () => {
  it.each(berthCases)('$name', run);

  it('compiles an expression once and returns the cached result', () => {
    const a = compileDeviceSelector('device.driver == "cache.example.com"');
    const b = compileDeviceSelector('device.driver == "cache.example.com"');
    expect(a).toBe(b);
  });

  it('a nested comprehension that stays under the limit matches', () => {
    const list = '[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]';
    const c = compileDeviceSelector(
      `${list}.all(x, ${list}.all(y, ${list}.all(z, x + y + z > 0)))`,
    );
    expect('error' in c ? c : matchesDevice(c, device({ name: '', expression: '' }))).toEqual({
      matches: true,
    });
  });
});
