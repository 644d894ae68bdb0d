// The kube-scheduler release berth emulates (`--emulated-version`): which default profile and plugin behaviours apply.

/** A kube-scheduler minor release berth can schedule as. */
export type KubeRelease = '1.34' | '1.35' | '1.36' | '1.37';

/** Every release berth emulates, oldest first. */
export const kubeReleases: readonly KubeRelease[] = Object.freeze(['1.34', '1.35', '1.36', '1.37']);

/** The release a fresh run emulates when `--emulated-version` is not given. */
export const latestKubeRelease: KubeRelease = '1.37';

/**
 * The release of a recording whose header names none: every log written before berth
 * emulated releases was scheduled with kube-scheduler 1.34's semantics.
 */
export const unrecordedKubeRelease: KubeRelease = '1.34';

/** Thrown for a version berth cannot emulate; the message lists the ones it can. */
export class KubeReleaseError extends Error {}

/**
 * Reads a version as kube's `--emulated-version` takes it: `1.36`, also `v1.36` or
 * `1.36.2` (the patch is ignored, as kube ignores it). Throws KubeReleaseError otherwise.
 */
export function parseKubeRelease(text: string): KubeRelease {
  const match = /^v?(\d+)\.(\d+)(?:\.\d+)?$/.exec(text.trim());
  const minor = match === null ? undefined : `${Number(match[1])}.${Number(match[2])}`;
  const release = kubeReleases.find((r) => r === minor);
  if (release === undefined)
    throw new KubeReleaseError(
      `cannot emulate kube-scheduler "${text}": berth emulates ${kubeReleases.join(', ')}`,
    );
  return release;
}

/** True when `release` is `since` or later (e.g. a behaviour kube introduced in `since`). */
export function releaseAtLeast(release: KubeRelease, since: KubeRelease): boolean {
  return kubeReleases.indexOf(release) >= kubeReleases.indexOf(since);
}
