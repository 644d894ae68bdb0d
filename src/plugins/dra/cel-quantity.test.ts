// Table tests for the CEL quantity library, after kube's TestQuantity (apiserver/pkg/cel/library/quantity_test.go).
import { describe, expect, it } from 'vitest';
import { compileDeviceSelector, matchesDevice } from './cel.ts';
import { CelQuantity, parseCelQuantity, quantityErrors } from './cel-quantity.ts';

const noDevice = { driver: '', attributes: {}, capacity: {} };

/** Evaluates a bool expression with no device data. */
function evaluate(expression: string) {
  const compiled = compileDeviceSelector(expression);
  if ('error' in compiled) return compiled;
  return matchesDevice(compiled, noDevice);
}

describe('CEL quantity library', () => {
  const cases: { name: string; expression: string; want: object }[] = [
    {
      name: 'a valid quantity parses',
      expression: `quantity("12Mi") == quantity("12582912")`,
      want: { matches: true },
    },
    {
      name: 'an unknown suffix fails the regular expression',
      expression: `quantity("10Mo") == quantity("1")`,
      want: { error: quantityErrors.formatWrong },
    },
    {
      name: 'a suffix that passes the regular expression can still be unknown',
      expression: `quantity("10Mm") == quantity("1")`,
      want: { error: quantityErrors.suffix },
    },
    {
      name: 'isQuantity accepts a plain number',
      expression: `isQuantity("20")`,
      want: { matches: true },
    },
    {
      name: 'isQuantity accepts a decimal suffix',
      expression: `isQuantity("20M")`,
      want: { matches: true },
    },
    {
      name: 'isQuantity accepts a binary suffix',
      expression: `isQuantity("20Mi")`,
      want: { matches: true },
    },
    {
      name: 'isQuantity rejects an unknown suffix',
      expression: `isQuantity("20Mo")`,
      want: { matches: false },
    },
    {
      name: 'isQuantity rejects milli-mega',
      expression: `isQuantity("10Mm")`,
      want: { matches: false },
    },
    {
      name: 'isQuantity of a list does not compile',
      expression: `isQuantity([1, 2, 3])`,
      want: { error: expect.stringContaining('found no matching overload') },
    },
    {
      name: 'equal quantities are equal',
      expression: `quantity("200M") == quantity("200M")`,
      want: { matches: true },
    },
    {
      name: 'equality ignores the notation',
      expression: `quantity("200M") == quantity("0.2G") && quantity("0.2G") == quantity("200M")`,
      want: { matches: true },
    },
    {
      name: 'equality is transitive across notations',
      expression: `quantity("2M") == quantity("0.002G") && quantity("2000k") == quantity("2M") && quantity("0.002G") == quantity("2000k")`,
      want: { matches: true },
    },
    {
      name: 'different quantities are not equal',
      expression: `quantity("200M") == quantity("0.3G")`,
      want: { matches: false },
    },
    {
      name: 'inequality is the negation of equality',
      expression: `quantity("200M") != quantity("0.3G")`,
      want: { matches: true },
    },
    {
      name: 'decimal mega is less than binary mebi',
      expression: `quantity("50M").isLessThan(quantity("50Mi"))`,
      want: { matches: true },
    },
    {
      name: 'isLessThan is strict (less)',
      expression: `quantity("50M").isLessThan(quantity("100M"))`,
      want: { matches: true },
    },
    {
      name: 'isLessThan is strict (greater)',
      expression: `quantity("100M").isLessThan(quantity("50M"))`,
      want: { matches: false },
    },
    {
      name: 'binary mebi is greater than decimal mega',
      expression: `quantity("50Mi").isGreaterThan(quantity("50M"))`,
      want: { matches: true },
    },
    {
      name: 'isGreaterThan (greater)',
      expression: `quantity("150Mi").isGreaterThan(quantity("100Mi"))`,
      want: { matches: true },
    },
    {
      name: 'isGreaterThan (less)',
      expression: `quantity("50M").isGreaterThan(quantity("100M"))`,
      want: { matches: false },
    },
    {
      name: 'compareTo of equal values is 0',
      expression: `quantity("200M").compareTo(quantity("0.2G")) == 0`,
      want: { matches: true },
    },
    {
      name: 'compareTo of a smaller value is -1',
      expression: `quantity("50M").compareTo(quantity("50Mi")) == -1`,
      want: { matches: true },
    },
    {
      name: 'compareTo of a greater value is 1',
      expression: `quantity("50Mi").compareTo(quantity("50M")) == 1`,
      want: { matches: true },
    },
    {
      name: 'add takes a quantity',
      expression: `quantity("50k").add(quantity("20")) == quantity("50.02k")`,
      want: { matches: true },
    },
    {
      name: 'add takes an int',
      expression: `quantity("50k").add(20).isLessThan(quantity("50020"))`,
      want: { matches: false },
    },
    {
      name: 'sub takes a quantity',
      expression: `quantity("50k").sub(quantity("20")) == quantity("49.98k")`,
      want: { matches: true },
    },
    {
      name: 'sub takes an int',
      expression: `quantity("50k").sub(20) == quantity("49980")`,
      want: { matches: true },
    },
    {
      name: 'arithmetic can go negative',
      expression: `quantity("50k").add(20).sub(quantity("100k")).asInteger() == -49980`,
      want: { matches: true },
    },
    {
      name: 'arithmetic chains',
      expression: `quantity("50k").add(20).sub(quantity("100k")).sub(-50000).asInteger() == 20`,
      want: { matches: true },
    },
    {
      name: 'asInteger of 50k',
      expression: `quantity("50k").asInteger() == 50000`,
      want: { matches: true },
    },
    {
      name: 'asInteger beyond int64 fails',
      expression: `quantity("9999999999999999999999999999999999999G").asInteger() == 1`,
      want: { error: quantityErrors.notInteger },
    },
    {
      name: 'isInteger beyond int64 is false',
      expression: `quantity("9999999999999999999999999999999999999G").isInteger()`,
      want: { matches: false },
    },
    {
      name: 'isInteger of 50 is true',
      expression: `quantity("50").isInteger()`,
      want: { matches: true },
    },
    {
      name: 'asApproximateFloat',
      expression: `quantity("50.703k").asApproximateFloat() == 50703.0`,
      want: { matches: true },
    },
    {
      name: 'huge values stay exact in arithmetic',
      expression: `[quantity("9999999999999999999999999999999999999")].all(x, x.add(quantity("1")).compareTo(x.add(quantity("2"))) == -1)`,
      want: { matches: true },
    },
    {
      name: 'sign is a global function',
      expression: `sign(quantity("-5")) == -1 && sign(quantity("0")) == 0 && sign(quantity("1m")) == 1`,
      want: { matches: true },
    },
  ];
  it.each(cases)('$name', ({ expression, want }) => {
    expect(evaluate(expression)).toEqual(want);
  });
});

describe('parseCelQuantity', () => {
  const cases: { name: string; input: string; nanos?: bigint; error?: string }[] = [
    { name: 'an empty string is malformed', input: '', error: quantityErrors.formatWrong },
    { name: 'surrounding space is malformed', input: ' 1', error: quantityErrors.formatWrong },
    { name: 'a sub-nano value rounds up to one nano', input: '1e-12', nanos: 1n },
    { name: 'a negative sub-nano value rounds away from zero', input: '-1e-12', nanos: -1n },
    { name: 'milli is exact', input: '100m', nanos: 100_000_000n },
    {
      name: 'a binary value is capped at 2^63-1',
      input: '16Ei',
      nanos: (2n ** 63n - 1n) * 10n ** 9n,
    },
    { name: 'a decimal value is not capped', input: '1e20', nanos: 10n ** 29n },
    { name: 'a fractional binary value is exact', input: '1.5Ki', nanos: 1536n * 10n ** 9n },
    { name: 'a lone e is an unknown suffix', input: '1e', error: quantityErrors.suffix },
    { name: 'an uppercase K is an unknown suffix', input: '200K', error: quantityErrors.suffix },
  ];
  it.each(cases)('$name', ({ input, nanos, error }) => {
    const q = parseCelQuantity(input);
    if (error !== undefined) expect(q).toEqual({ error });
    else expect(q).toEqual(new CelQuantity(nanos!));
  });
});
