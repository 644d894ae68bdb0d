// The chart's PodGroup CRD on a test API server: apply it and wait until it is served.
import { join } from 'node:path';
import { Kubectl } from './kubectl.ts';
import { repoRoot } from './paths.ts';

/** The CRD file the chart installs (Helm applies `crds/` before the templates). */
export const podGroupCrdPath = join(repoRoot, 'helm/berth/crds/scheduling.x-k8s.io_podgroups.yaml');

/** The CRD's name. */
export const podGroupCrdName = 'podgroups.scheduling.x-k8s.io';

/**
 * Applies the chart's PodGroup CRD with kubectl (the admin kubeconfig at `target`, or a
 * Kubectl) and resolves once it is Established, i.e. the API server serves
 * scheduling.x-k8s.io/v1alpha1 podgroups. Idempotent; throws with kubectl's stderr on failure.
 */
export async function applyPodGroupCrd(
  target: Kubectl | string,
  timeoutSeconds = 30,
): Promise<void> {
  const k = typeof target === 'string' ? new Kubectl(target) : target;
  await k.run(['apply', '-f', podGroupCrdPath]);
  await k.run(
    [
      'wait',
      '--for=condition=Established',
      `crd/${podGroupCrdName}`,
      `--timeout=${timeoutSeconds}s`,
    ],
    { timeoutMs: (timeoutSeconds + 30) * 1000 },
  );
}
