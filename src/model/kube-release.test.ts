// Pins how --emulated-version values are read and ordered.
import { describe, expect, it } from 'vitest';
import { KubeReleaseError, parseKubeRelease, releaseAtLeast } from './kube-release.ts';

describe('parseKubeRelease', () => {
  it('reads minor, v-prefixed and patch forms', () => {
    expect(parseKubeRelease('1.35')).toBe('1.35');
    expect(parseKubeRelease('v1.36')).toBe('1.36');
    expect(parseKubeRelease('1.37.2')).toBe('1.37');
    expect(parseKubeRelease(' 1.34 ')).toBe('1.34');
  });

  it('refuses releases berth does not emulate, naming the ones it does', () => {
    for (const bad of ['1.33', '1.38', '2.0', 'latest', '', '1', '1.3x'])
      expect(() => parseKubeRelease(bad)).toThrow(KubeReleaseError);
    expect(() => parseKubeRelease('1.38')).toThrow('berth emulates 1.34, 1.35, 1.36, 1.37');
  });
});

describe('releaseAtLeast', () => {
  it('orders releases', () => {
    expect(releaseAtLeast('1.37', '1.36')).toBe(true);
    expect(releaseAtLeast('1.36', '1.36')).toBe(true);
    expect(releaseAtLeast('1.35', '1.36')).toBe(false);
  });
});
