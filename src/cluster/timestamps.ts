// Parses API timestamps (RFC 3339, Kubernetes metav1.Time) to epoch ms by arithmetic, without Date.

// date "T" time, fraction optional, offset Z or ±hh:mm (RFC 3339 §5.6; uppercase as Go parses).
const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:Z|([+-])(\d{2}):(\d{2}))$/;

const MS_PER_MINUTE = 60_000;
const MS_PER_DAY = 86_400_000;

/** Whether `year` is a leap year in the proleptic Gregorian calendar. */
function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/** Days in `month` (1–12) of `year`. */
function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/**
 * Days from 1970-01-01 to the civil date `year-month-day` (proleptic Gregorian; negative before
 * 1970). Counts in 400-year eras of 146,097 days, each starting on 1 March so that the leap day
 * falls at the end of its year.
 */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400; // 0..399
  const monthFromMarch = (month + 9) % 12; // March = 0 … February = 11
  const dayOfYear = Math.floor((153 * monthFromMarch + 2) / 5) + day - 1; // 0..365
  const dayOfEra =
    yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  // 719,468 days separate 0000-03-01 (day 0 of era 0) from 1970-01-01.
  return era * 146_097 + dayOfEra - 719_468;
}

/**
 * Epoch milliseconds of an RFC 3339 date-time such as `2024-01-02T03:04:05Z`,
 * `2024-01-02T03:04:05.123456Z` or `2024-01-02T05:04:05+02:00`, or undefined when `value` is not
 * a string of that form or names an impossible instant (month 13, 30 February, hour 24, a leap
 * second, offset hour 24). Fractions finer than a millisecond are truncated, as `Date.parse`
 * does. Never reads the clock or the time zone; never throws.
 */
export function parseTimestampMs(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  // Objects listed together mostly share their timestamps (pods made in the same second).
  if (value === lastParsed.text) return lastParsed.ms;
  const ms = parseUncached(value);
  lastParsed = { text: value, ms };
  return ms;
}

/** The last string parseTimestampMs parsed, and its result (a pure cache). */
let lastParsed: { text: string | undefined; ms: number | undefined } = {
  text: undefined,
  ms: undefined,
};

function parseUncached(value: string): number | undefined {
  const m = RFC3339.exec(value);
  if (m === null) return undefined;
  const [, ys, mos, ds, hs, mis, ss, frac, sign, ohs, omis] = m;
  const year = Number(ys);
  const month = Number(mos);
  const day = Number(ds);
  const hour = Number(hs);
  const minute = Number(mis);
  const second = Number(ss);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  let offsetMinutes = 0;
  if (sign !== undefined) {
    const offsetHour = Number(ohs);
    const offsetMinute = Number(omis);
    if (offsetHour > 23 || offsetMinute > 59) return undefined;
    offsetMinutes = (sign === '-' ? -1 : 1) * (offsetHour * 60 + offsetMinute);
  }
  const millis = frac === undefined ? 0 : Number(frac.slice(0, 3).padEnd(3, '0'));
  const local =
    daysFromCivil(year, month, day) * MS_PER_DAY +
    (hour * 60 + minute) * MS_PER_MINUTE +
    second * 1000 +
    millis;
  // A positive offset means local time is ahead of UTC.
  return local - offsetMinutes * MS_PER_MINUTE;
}
