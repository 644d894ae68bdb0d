// Pins RFC 3339 timestamp parsing: a table of accepted and refused forms, and agreement with Date.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { daysFromCivil, parseTimestampMs } from './timestamps.ts';

const HOUR = 3_600_000;

describe('parseTimestampMs accepts RFC 3339 date-times', () => {
  const cases: [string, string, number][] = [
    ['the epoch', '1970-01-01T00:00:00Z', 0],
    ['a Kubernetes creationTimestamp', '2024-01-02T03:04:05Z', 1_704_164_645_000],
    ['a second before the epoch', '1969-12-31T23:59:59Z', -1000],
    ['the first instant of year 0', '0000-01-01T00:00:00Z', -62_167_219_200_000],
    ['the last millisecond of year 9999', '9999-12-31T23:59:59.999Z', 253_402_300_799_999],
    ['a leap day in a year divisible by 400', '2000-02-29T12:00:00Z', 951_825_600_000],
    ['a leap day in an ordinary leap year', '2024-02-29T00:00:00Z', 1_709_164_800_000],
    ['half a second', '2024-01-02T03:04:05.5Z', 1_704_164_645_500],
    ['milliseconds', '2024-01-02T03:04:05.123Z', 1_704_164_645_123],
    ['microseconds (MicroTime) are truncated', '2024-01-02T03:04:05.123999Z', 1_704_164_645_123],
    ['nanoseconds are truncated', '2024-01-02T03:04:05.999999999Z', 1_704_164_645_999],
    ['a fraction before the epoch', '1969-12-31T23:59:59.9999Z', -1],
    ['a positive offset is ahead of UTC', '2024-01-02T05:04:05+02:00', 1_704_164_645_000],
    ['a negative offset is behind UTC', '2024-01-01T21:34:05-05:30', 1_704_164_645_000],
    ['-00:00 means UTC', '2024-01-02T03:04:05-00:00', 1_704_164_645_000],
    [
      'the largest offset',
      '2024-01-02T03:04:05+23:59',
      1_704_164_645_000 - 23 * HOUR - 59 * 60_000,
    ],
    ['an offset crossing a year', '2023-12-31T23:00:00-01:00', 1_704_067_200_000],
  ];
  it.each(cases)('%s: %s', (_name, text, ms) => {
    expect(parseTimestampMs(text)).toBe(ms);
  });
});

describe('parseTimestampMs refuses what is not an RFC 3339 instant', () => {
  const cases: [string, unknown][] = [
    ['month 13', '2024-13-01T00:00:00Z'],
    ['month 00', '2024-00-01T00:00:00Z'],
    ['day 00', '2024-01-00T00:00:00Z'],
    ['30 February', '2024-02-30T00:00:00Z'],
    ['29 February in a common year', '2023-02-29T00:00:00Z'],
    ['29 February in a century year not divisible by 400', '1900-02-29T00:00:00Z'],
    ['31 April', '2024-04-31T00:00:00Z'],
    ['32 January', '2024-01-32T00:00:00Z'],
    ['hour 24', '2024-01-01T24:00:00Z'],
    ['minute 60', '2024-01-01T00:60:00Z'],
    ['a leap second', '2016-12-31T23:59:60Z'],
    ['offset hour 24', '2024-01-01T00:00:00+24:00'],
    ['offset minute 60', '2024-01-01T00:00:00+01:60'],
    ['an offset without a colon', '2024-01-01T00:00:00+0100'],
    ['no offset (local time would depend on the machine)', '2024-01-01T00:00:00'],
    ['a date only', '2024-01-01'],
    ['a space instead of T', '2024-01-01 00:00:00Z'],
    ['a lower-case t and z', '2024-01-01t00:00:00z'],
    ['a dot with no digits', '2024-01-01T00:00:00.Z'],
    ['a comma fraction', '2024-01-01T00:00:00,5Z'],
    ['a five-digit year', '10000-01-01T00:00:00Z'],
    ['a signed year', '+002024-01-01T00:00:00Z'],
    ['one-digit fields', '2024-1-1T0:0:0Z'],
    ['surrounding whitespace', ' 2024-01-01T00:00:00Z'],
    ['trailing text', '2024-01-01T00:00:00Zjunk'],
    ['a non-ASCII digit', '２024-01-01T00:00:00Z'],
    ['another date format', 'Tue, 02 Jan 2024 03:04:05 GMT'],
    ['the empty string', ''],
    ['a number', 1_704_164_645_000],
    ['null', null],
    ['undefined', undefined],
    ['an object', { seconds: 1 }],
  ];
  it.each(cases)('%s: %j', (_name, value) => {
    expect(parseTimestampMs(value)).toBeUndefined();
  });
});

describe('daysFromCivil', () => {
  it.each([
    [1970, 1, 1, 0],
    [1969, 12, 31, -1],
    [2000, 3, 1, 11_017],
    [0, 3, 1, -719_468],
  ])('%d-%d-%d is day %d', (y, m, d, days) => {
    expect(daysFromCivil(y, m, d)).toBe(days);
  });
});

/** Whether y-m-d exists in the proleptic Gregorian calendar, asked of Date (the oracle). */
function dateExists(year: number, month: number, day: number): boolean {
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  return d.getUTCFullYear() === year && d.getUTCMonth() === month - 1 && d.getUTCDate() === day;
}

const pad = (n: number, width: number) => String(n).padStart(width, '0');

/** RFC 3339 strings with every field in its lexical range, so some name impossible dates. */
const timestampParts = fc.record({
  // Century and leap years, and month ends, where calendar arithmetic goes wrong.
  year: fc.oneof(
    fc.integer({ min: 0, max: 9999 }),
    fc.constantFrom(0, 100, 400, 1900, 1969, 1970, 2000, 2024, 2100, 9999),
  ),
  month: fc.integer({ min: 1, max: 12 }),
  day: fc.oneof(fc.integer({ min: 1, max: 31 }), fc.integer({ min: 28, max: 31 })),
  hour: fc.integer({ min: 0, max: 23 }),
  minute: fc.integer({ min: 0, max: 59 }),
  second: fc.integer({ min: 0, max: 59 }),
  fraction: fc.option(fc.stringMatching(/^\d{1,9}$/), { nil: undefined }),
  offset: fc.oneof(
    fc.constant('Z'),
    fc
      .tuple(
        fc.constantFrom('+', '-'),
        fc.integer({ min: 0, max: 23 }),
        fc.integer({ min: 0, max: 59 }),
      )
      .map(([s, h, m]) => `${s}${pad(h, 2)}:${pad(m, 2)}`),
  ),
});

describe('parseTimestampMs agrees with Date', () => {
  it('equals Date.parse on every real date, and refuses dates that do not exist', () => {
    fc.assert(
      fc.property(timestampParts, (p) => {
        const text =
          `${pad(p.year, 4)}-${pad(p.month, 2)}-${pad(p.day, 2)}` +
          `T${pad(p.hour, 2)}:${pad(p.minute, 2)}:${pad(p.second, 2)}` +
          `${p.fraction === undefined ? '' : `.${p.fraction}`}${p.offset}`;
        // Date.parse rolls 30 February over into March, so it only judges real dates.
        if (dateExists(p.year, p.month, p.day))
          expect(parseTimestampMs(text)).toBe(Date.parse(text));
        else expect(parseTimestampMs(text)).toBeUndefined();
      }),
      { numRuns: 5000 },
    );
  });

  it('on any string, either refuses it or agrees with Date.parse', () => {
    const near = fc
      .tuple(timestampParts, fc.nat(), fc.string({ maxLength: 3 }))
      .map(([p, at, junk]) => {
        const text = `${pad(p.year, 4)}-${pad(p.month, 2)}-${pad(p.day, 2)}T00:00:00${p.offset}`;
        const i = at % (text.length + 1);
        return text.slice(0, i) + junk + text.slice(i);
      });
    fc.assert(
      fc.property(fc.oneof(fc.string(), near), (text) => {
        const ms = parseTimestampMs(text);
        if (ms !== undefined) expect(ms).toBe(Date.parse(text));
      }),
      { numRuns: 5000 },
    );
  });
});
