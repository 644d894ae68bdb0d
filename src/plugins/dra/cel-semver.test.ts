// Table tests for the CEL semver library, after kube's semver_test.go and blang/semver's Parse.
import { describe, expect, it } from 'vitest';
import { compileDeviceSelector, matchesDevice } from './cel.ts';
import { CelSemver, normalizeAndParseSemver, parseCelSemver } from './cel-semver.ts';

const noDevice = { driver: '', attributes: {}, capacity: {} };

function evaluate(expression: string) {
  const compiled = compileDeviceSelector(expression);
  if ('error' in compiled) return compiled;
  return matchesDevice(compiled, noDevice);
}

describe('CEL semver library', () => {
  const cases: { name: string; expression: string; want: object }[] = [
    {
      name: 'isSemver accepts a full version',
      expression: `isSemver("1.2.3-beta.1+build.1")`,
      want: { matches: true },
    },
    {
      name: 'isSemver rejects a short version',
      expression: `isSemver("1.2")`,
      want: { matches: false },
    },
    {
      name: 'isSemver normalizes a short version when asked',
      expression: `isSemver("v1.2", true)`,
      want: { matches: true },
    },
    {
      name: 'semver of a short version fails',
      expression: `semver("1.2") == semver("1.2.0")`,
      want: { error: 'No Major.Minor.Patch elements found' },
    },
    {
      name: 'normalization drops leading zeroes',
      expression: `semver("v01.02.03", true) == semver("1.2.3")`,
      want: { matches: true },
    },
    {
      name: 'a short version cannot carry a prerelease',
      expression: `semver("1-beta", true) == semver("1.0.0")`,
      want: { error: 'short version cannot contain PreRelease/Build meta data' },
    },
    {
      name: 'major, minor and patch are ints',
      expression: `semver("1.2.3").major() == 1 && semver("1.2.3").minor() == 2 && semver("1.2.3").patch() == 3`,
      want: { matches: true },
    },
    {
      name: 'a release is greater than its prerelease',
      expression: `semver("1.0.0").isGreaterThan(semver("1.0.0-rc.1"))`,
      want: { matches: true },
    },
    {
      name: 'numeric prerelease identifiers sort before alphanumeric ones',
      expression: `semver("1.0.0-1").isLessThan(semver("1.0.0-alpha"))`,
      want: { matches: true },
    },
    {
      name: 'numeric prerelease identifiers compare as numbers',
      expression: `semver("1.0.0-beta.11").compareTo(semver("1.0.0-beta.2")) == 1`,
      want: { matches: true },
    },
    {
      name: 'a longer prerelease is greater',
      expression: `semver("1.0.0-alpha.1").isGreaterThan(semver("1.0.0-alpha"))`,
      want: { matches: true },
    },
    {
      name: 'build metadata is ignored by equality',
      expression: `semver("1.0.0+a") == semver("1.0.0+b")`,
      want: { matches: true },
    },
    {
      name: 'minor versions compare as numbers',
      expression: `semver("1.10.0").isGreaterThan(semver("1.9.0"))`,
      want: { matches: true },
    },
  ];
  it.each(cases)('$name', ({ expression, want }) => {
    expect(evaluate(expression)).toEqual(want);
  });
});

describe('parseCelSemver', () => {
  const cases: { name: string; input: string; error?: string }[] = [
    { name: 'an empty version', input: '', error: 'Version string empty' },
    {
      name: 'a letter in the major number',
      input: 'a.2.3',
      error: 'Invalid character(s) found in major number "a"',
    },
    {
      name: 'a leading zero in the minor number',
      input: '1.02.3',
      error: 'Minor number must not contain leading zeroes "02"',
    },
    {
      name: 'an empty patch number',
      input: '1.2.',
      error: 'strconv.ParseUint: parsing "": invalid syntax',
    },
    {
      name: 'a leading zero in a numeric prerelease',
      input: '1.2.3-01',
      error: 'Numeric PreRelease version must not contain leading zeroes "01"',
    },
    { name: 'an empty prerelease', input: '1.2.3-', error: 'Prerelease is empty' },
    {
      name: 'an invalid build',
      input: '1.2.3+a_b',
      error: 'Invalid character(s) found in build meta data "a_b"',
    },
    { name: 'a valid version', input: '1.2.3-rc.1+x' },
  ];
  it.each(cases)('$name', ({ input, error }) => {
    const v = parseCelSemver(input);
    if (error !== undefined) expect(v).toEqual({ error });
    else expect(v).toBeInstanceOf(CelSemver);
  });

  it('normalizes "v1" to 1.0.0', () => {
    expect(normalizeAndParseSemver('v1')).toEqual(parseCelSemver('1.0.0'));
  });
});
