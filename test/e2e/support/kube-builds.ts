// Which Kubernetes releases the e2e control plane runs, and where each one's kube-apiserver and kube-scheduler are built.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import type { KubeRelease } from '../../../src/model/kube-release.ts';
import { clusterScripts } from './paths.ts';

/** A Kubernetes minor the e2e control plane can run (test/e2e/cluster/versions.env pins a patch of each). */
export type ControlPlaneRelease = Exclude<KubeRelease, '1.34'>;

/** Every release with a pinned build, oldest first; the last is the pinned K8S_VERSION's. */
export const controlPlaneReleases: readonly ControlPlaneRelease[] = Object.freeze([
  '1.35',
  '1.36',
  '1.37',
]);

/** One release's kube-apiserver and kube-scheduler. */
export interface KubeBuild {
  /** The tag they were built from, e.g. `v1.35.4`. */
  version: string;
  /** The directory holding `kube-apiserver` and `kube-scheduler`. */
  binDir: string;
}

const builds = new Map<ControlPlaneRelease, KubeBuild>();

/** The value of `KEY=value` in build.sh's output, or a thrown error naming what is missing. */
export function buildOutputValue(output: string, key: string): string {
  const line = output.split('\n').find((l) => l.startsWith(`${key}=`));
  if (line === undefined) throw new Error(`build.sh printed no ${key}= line:\n${output}`);
  return line.slice(key.length + 1);
}

/**
 * `release`'s kube-apiserver and kube-scheduler (`build.sh --kube MINOR`): instant when
 * cached, a build of several minutes otherwise (blocking, as the first cluster start
 * does). Throws with build.sh's output when the build fails or the release is not pinned.
 */
export function kubeBuild(release: ControlPlaneRelease): KubeBuild {
  const known = builds.get(release);
  if (known !== undefined) return known;
  const r = spawnSync('bash', [join(clusterScripts, 'build.sh'), '--kube', release], {
    encoding: 'utf8',
    timeout: 30 * 60_000,
    killSignal: 'SIGKILL',
  });
  if (r.status !== 0) {
    throw new Error(
      `build.sh --kube ${release} failed (exit ${r.status ?? r.signal}):\n${r.stderr ?? ''}`,
    );
  }
  const build = {
    version: buildOutputValue(r.stdout, 'K8S_VERSION'),
    binDir: buildOutputValue(r.stdout, 'BERTH_E2E_KUBE_BIN'),
  };
  builds.set(release, build);
  return build;
}
