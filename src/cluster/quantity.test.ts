// Pins the quantity grammar and Kubernetes' MilliValue()/Value() rounding.
import { describe, expect, it } from 'vitest';
import { type Amount, MAX_INT64 } from './amount.ts';
import { parseQuantity, parseQuantityAt, type Quantity, toMilli, toUnits } from './quantity.ts';

function parsed(raw: unknown): Quantity {
  const r = parseQuantity(raw);
  if (!r.ok) throw new Error(r.error);
  return r.q;
}

describe('parseQuantity then toMilli', () => {
  const cases: [string, unknown, number][] = [
    ['a decimal fraction is exact', '0.1', 100],
    ['millicores pass through', '100m', 100],
    ['a fraction of a core', '1.5', 1500],
    ['a leading dot', '.5', 500],
    ['a trailing dot', '5.', 5000],
    ['a plus sign', '+2', 2000],
    ['a decimal exponent', '1e3', 1_000_000],
    ['an upper-case exponent', '1E3', 1_000_000],
    ['a negative exponent', '1e-3', 1],
    ['an explicit positive exponent', '2e+2', 200_000],
    ['nanocores round up to a millicore', '1n', 1],
    ['microcores round up', '1500u', 2],
    ['fractional millicores round up', '0.5m', 1],
    ['zero', '0', 0],
    ['zero with a suffix', '0Gi', 0],
    ['a bare integer number', 2, 2000],
    ['a bare fractional number', 0.25, 250],
    ['a tiny number rounds up', 1e-12, 1],
    ['surrounding whitespace is ignored', ' 250m ', 250],
    ['leading zeros', '007', 7000],
  ];
  it.each(cases)('%s: %j → %d', (_name, raw, milli) => {
    expect(toMilli(parsed(raw))).toBe(milli);
  });
});

describe('parseQuantity then toUnits', () => {
  const cases: [string, unknown, Amount][] = [
    ['kibibytes', '512Ki', 524_288],
    ['mebibytes', '500Mi', 524_288_000],
    ['gibibytes', '2Gi', 2_147_483_648],
    ['a fractional gibibyte is exact', '1.5Gi', 1_610_612_736],
    ['tebibytes', '1Ti', 1_099_511_627_776],
    ['pebibytes', '1Pi', 2 ** 50],
    ['kilo', '1k', 1000],
    ['mega', '1M', 1_000_000],
    ['giga', '3G', 3_000_000_000],
    ['tera', '1T', 1e12],
    ['peta', '1P', 1e15],
    ['exa is E, not an exponent', '1E', 10n ** 18n],
    ['100m of a byte rounds up to 1', '100m', 1],
    ['1001m rounds up to 2', '1001m', 2],
    ['an exponent', '12e6', 12_000_000],
    ['a fraction with an exponent', '1.5e3', 1500],
    ['a bare number', 1024, 1024],
    ['a JSON number beyond 2^53 stays exact', 2 ** 60, 2n ** 60n],
    ['a JSON number beyond 2^63 saturates at 2^63 − 1', 1e21, MAX_INT64],
    ['negative values round away from zero', '-1.5', -2],
  ];
  it.each(cases)('%s: %j → %s', (_name, raw, units) => {
    expect(toUnits(parsed(raw))).toBe(units);
  });

  it('keeps exactness for 1.5Gi in nanos', () => {
    expect(parsed('1.5Gi').nanos).toBe(1_610_612_736n * 1_000_000_000n);
  });

  it('caps the magnitude at 2^63 - 1 units, as Kubernetes does', () => {
    expect(parsed('1e400').nanos).toBe((2n ** 63n - 1n) * 1_000_000_000n);
    expect(parsed('16Ei').nanos).toBe((2n ** 63n - 1n) * 1_000_000_000n);
  });

  it('rounds a positive amount below a nano up to one nano', () => {
    expect(parsed('1e-400').nanos).toBe(1n);
  });
});

describe('amounts beyond 2^53 are exact and saturate at int64, as kube since kubernetes#141305', () => {
  const cases: [string, unknown, 'units' | 'milli', Amount][] = [
    [
      '2^53 + 1 bytes stays exact (a float would give 2^53)',
      '9007199254740993',
      'units',
      2n ** 53n + 1n,
    ],
    ['16Ei − 1 byte is not rounded to 16Ei', '18446744073709551615', 'units', MAX_INT64],
    ['8Ei − 1 byte, exactly int64 max', '9223372036854775807', 'units', MAX_INT64],
    ['7Ei + 1 byte', '8070450532247928833', 'units', 7n * 2n ** 60n + 1n],
    ['16Ei (binary) is capped at 2^63 − 1', '16Ei', 'units', MAX_INT64],
    ['100E (decimal, 10^20) saturates: kube 1.34 wrapped it', '100E', 'units', MAX_INT64],
    ['1e19 bytes saturates', '1e19', 'units', MAX_INT64],
    [
      '8Ei − 0.5 rounds up to 2^63 − 1... and stays there',
      '9223372036854775806.5',
      'units',
      MAX_INT64,
    ],
    ['a fractional byte rounds up', '9007199254740992.1', 'units', 2n ** 53n + 1n],
    ['cpu beyond 2^53 millicores is exact', '9007199254740.993', 'milli', 2n ** 53n + 1n],
    ['cpu of 2^63 − 1 cores saturates in millicores', '9223372036854775807', 'milli', MAX_INT64],
    ['cpu of 10^16 cores saturates in millicores', '1e16', 'milli', MAX_INT64],
    ['cpu just under the millicore cap stays exact', '9223372036854775.807', 'milli', MAX_INT64],
    ['cpu one millicore under the cap', '9223372036854775.806', 'milli', MAX_INT64 - 1n],
    ['a negative magnitude is capped at parse too', '-1e30', 'units', -MAX_INT64],
  ];
  it.each(cases)('%s: %j', (_name, raw, unit, want) => {
    const q = parsed(raw);
    expect(unit === 'units' ? toUnits(q) : toMilli(q)).toBe(want);
  });

  it('gives plain numbers up to 2^53 − 1 and bigints only beyond', () => {
    expect(toUnits(parsed('9007199254740991'))).toBe(Number.MAX_SAFE_INTEGER);
    expect(toUnits(parsed('9007199254740992'))).toBe(2n ** 53n);
    expect(toMilli(parsed('9007199254740.991'))).toBe(Number.MAX_SAFE_INTEGER);
  });
});

describe('parseQuantity rejects what is not a quantity', () => {
  const invalid: [string, unknown][] = [
    ['letters', 'abc'],
    ['two dots', '1.2.3'],
    ['an unknown suffix', '12Q'],
    ['the empty string', ''],
    ['only whitespace', '   '],
    ['an exponent without digits', '1e'],
    ['an exponent with only a sign', '1e+'],
    ['a suffix without a number', 'Mi'],
    ['a lone dot', '.'],
    ['a lone sign', '-'],
    ['a lower-case binary suffix', '1mi'],
    ['a suffix then digits', '1Ki5'],
    ['a fractional exponent', '1e1.5'],
    ['an object', { cpu: 1 }],
    ['a list', ['1']],
    ['null', null],
    ['undefined', undefined],
    ['a boolean', true],
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
  ];
  it.each(invalid)('%s', (_name, raw) => {
    const r = parseQuantity(raw);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(/^invalid quantity/);
  });

  it('names the problem', () => {
    expect(parseQuantity('12Q')).toEqual({
      ok: false,
      error: 'invalid quantity "12Q": unknown suffix "Q"',
    });
  });
});

describe('parseQuantityAt', () => {
  it('reports the field path of an invalid quantity', () => {
    expect(parseQuantityAt('abc', 'spec.containers[1].resources.requests.cpu')).toEqual({
      ok: false,
      error: 'invalid quantity "abc" at spec.containers[1].resources.requests.cpu: no digits',
    });
  });
  it('rejects a negative quantity', () => {
    expect(parseQuantityAt('-1', 'spec.overhead.cpu')).toEqual({
      ok: false,
      error: 'negative quantity "-1" at spec.overhead.cpu',
    });
  });
  it('accepts negative zero', () => {
    expect(parseQuantityAt('-0', 'x').ok).toBe(true);
  });
});
