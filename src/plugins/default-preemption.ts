// DefaultPreemption (PostFilter): evicts lower-priority pods so that a pod that fits nowhere can run.
import {
  defaultPreemptionArgs,
  type PreemptionArgs,
  preempt,
} from '../framework/preemption/evaluate.ts';
import type { PostFilterPlugin, PostFilterResult } from '../framework/types.ts';
import { type KubeRelease, latestKubeRelease, releaseAtLeast } from '../model/kube-release.ts';

export const name = 'DefaultPreemption';

function readPercentage(raw: unknown): number {
  if (raw === undefined) return defaultPreemptionArgs.minCandidateNodesPercentage;
  if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < 0 || raw > 100)
    throw new Error(
      `minCandidateNodesPercentage must be an integer 0–100, got ${JSON.stringify(raw)}`,
    );
  return raw;
}

function readAbsolute(raw: unknown): number {
  if (raw === undefined) return defaultPreemptionArgs.minCandidateNodesAbsolute;
  if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < 0)
    throw new Error(
      `minCandidateNodesAbsolute must be a non-negative integer, got ${JSON.stringify(raw)}`,
    );
  return raw;
}

/**
 * kube's DefaultPreemptionArgs, checked as kube validates them: a percentage 0–100 and a
 * non-negative absolute, not both zero. Throws an Error naming the field.
 */
export function preemptionArgs(raw: unknown): PreemptionArgs {
  if (raw === undefined) return defaultPreemptionArgs;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new Error('DefaultPreemption args must be an object');
  const r = raw as Record<string, unknown>;
  for (const key of Object.keys(r))
    if (key !== 'minCandidateNodesPercentage' && key !== 'minCandidateNodesAbsolute')
      throw new Error(`unknown field "${key}"`);
  const args = {
    minCandidateNodesPercentage: readPercentage(r.minCandidateNodesPercentage),
    minCandidateNodesAbsolute: readAbsolute(r.minCandidateNodesAbsolute),
  };
  if (args.minCandidateNodesPercentage === 0 && args.minCandidateNodesAbsolute === 0)
    throw new Error(
      'minCandidateNodesPercentage and minCandidateNodesAbsolute cannot both be zero',
    );
  return args;
}

/** The release from which a successful preemption is named in the pod's message. */
export const placementMessageSince: KubeRelease = '1.37';

/**
 * From 1.37 kube's successful preemption answers Success with a message (PR #140180), which
 * DefaultPreemption prefixes like its failures: the PodScheduled=False message and the
 * FailedScheduling Event end "preemption: found a potential placement for pod on node N,
 * preempting K victims". Before 1.37 the Success carried no message.
 */
function namingPlacement(result: PostFilterResult): PostFilterResult {
  const nomination = result.nomination;
  if (result.code !== 'Success' || nomination === undefined) return result;
  const said = `preemption: found a potential placement for pod on node ${nomination.node}, preempting ${nomination.victims.length} victims`;
  return { ...result, reasons: [said] };
}

/** The DefaultPreemption plugin with `raw` args (kube's defaults when absent), as `release` preempts. */
export function defaultPreemption(raw?: unknown, release: KubeRelease = latestKubeRelease) {
  const args = preemptionArgs(raw);
  const named = releaseAtLeast(release, placementMessageSince);
  return {
    name,
    postFilter: (pod, postFilterArgs) => {
      const result = preempt(pod, postFilterArgs, args);
      return named ? namingPlacement(result) : result;
    },
    // kube's async preemption skips every event for a preempting pod: it waits for its victims.
    queueingHint: () => false,
  } satisfies PostFilterPlugin & { queueingHint: () => boolean };
}
