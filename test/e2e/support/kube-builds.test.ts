// Tests which Kubernetes releases the e2e support resolves: build.sh's pinned minors, its output lines, and the compatibility leg's selection.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compatReleases } from './compat.ts';
import { buildOutputValue, controlPlaneReleases } from './kube-builds.ts';
import { clusterScripts } from './paths.ts';

/** Runs `bash -c SCRIPT` with versions.env sourced (no build is started). */
function withVersions(script: string) {
  return spawnSync('bash', ['-c', `source ${join(clusterScripts, 'versions.env')}; ${script}`], {
    encoding: 'utf8',
  });
}

describe('versions.env', () => {
  it('pins one tag for each release the e2e support names, the last being K8S_VERSION', () => {
    const tags = controlPlaneReleases.map((r) => withVersions(`berth_e2e_kube_version ${r}`));
    for (const [i, r] of tags.entries()) {
      expect(r.status).toBe(0);
      expect(r.stdout.trim()).toMatch(
        new RegExp(`^v${controlPlaneReleases[i]?.replace('.', '\\.')}\\.\\d+$`),
      );
    }
    expect(withVersions('echo $K8S_VERSION').stdout.trim()).toBe(tags.at(-1)?.stdout.trim());
  });

  it('resolves a full tag to itself and refuses a minor it does not pin (1.3 is not 1.35)', () => {
    const latest = withVersions('echo $K8S_VERSION').stdout.trim();
    expect(withVersions(`berth_e2e_kube_version ${latest}`).stdout.trim()).toBe(latest);
    for (const minor of ['1.34', '1.3', '1.38', 'x'])
      expect(withVersions(`berth_e2e_kube_version ${minor}`).status).toBe(1);
  });

  it('puts the pinned release in the main set and an older one under its own key', () => {
    const r = withVersions(
      'berth_e2e_kube_bin "$K8S_VERSION"; echo "$BERTH_E2E_BIN"; berth_e2e_kube_bin v1.35.4; echo "$BERTH_E2E_CACHE"',
    );
    const [latestBin, mainBin, oldBin, cache] = r.stdout.trim().split('\n');
    expect(latestBin).toBe(mainBin);
    expect(oldBin).toMatch(new RegExp(`^${cache}/k8s-v1\\.35\\.4_r\\d+/bin$`));
  });
});

describe('build.sh --kube', () => {
  it('refuses an unpinned release before building anything, naming what is pinned', () => {
    const r = spawnSync('bash', [join(clusterScripts, 'build.sh'), '--kube', '1.34'], {
      encoding: 'utf8',
    });
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /Kubernetes 1\.34 is not pinned \(K8S_VERSION=v1\.37\.\d+, K8S_COMPAT_VERSIONS=/,
    );
  });
});

describe('buildOutputValue', () => {
  it('reads a KEY=value line and throws naming a missing key', () => {
    const out = 'K8S_VERSION=v1.35.4\nBERTH_E2E_KUBE_BIN=/c/k8s-v1.35.4_r2/bin\n';
    expect(buildOutputValue(out, 'BERTH_E2E_KUBE_BIN')).toBe('/c/k8s-v1.35.4_r2/bin');
    expect(() => buildOutputValue(out, 'KUBE_SCHEDULER')).toThrow(/no KUBE_SCHEDULER= line/);
  });
});

describe('compatReleases', () => {
  it('is every pinned release by default and the listed ones otherwise', () => {
    expect(compatReleases(undefined)).toEqual(['1.35', '1.36', '1.37']);
    expect(compatReleases(' ')).toEqual(['1.35', '1.36', '1.37']);
    expect(compatReleases('1.37, 1.35')).toEqual(['1.37', '1.35']);
  });

  it('refuses a release that is not pinned', () => {
    expect(() => compatReleases('1.35,1.34')).toThrow(/"1.34" is not one of 1.35, 1.36, 1.37/);
  });
});
