// Small clusters, one per kube-scheduler behaviour that changed between 1.35 and 1.37, with what each release must do.
//
// The facts behind each expectation were read from the Kubernetes sources (1.35.4, 1.36.3,
// 1.37.2); docs/release-behaviours.md lists them with their PRs. Nothing here is berth's code.
import type { ReleaseScenario } from './scenario-releases-model.ts';
import {
  balancedAllocation,
  declaredFeatures,
  imageVolumeLocality,
  taintMessage,
} from './scenario-releases-scores.ts';
import {
  inPlaceResize,
  nominatedElsewhere,
  nominatedGated,
  preemptionMessage,
} from './scenario-releases-status.ts';

export {
  atLeast,
  type OracleRelease,
  type PrepareStep,
  type ReleaseExpectation,
  type ReleaseScenario,
} from './scenario-releases-model.ts';

/** Every scenario, in the order the e2e runs them. */
export const releaseScenarios: readonly ReleaseScenario[] = [
  balancedAllocation,
  imageVolumeLocality,
  declaredFeatures,
  taintMessage,
  nominatedElsewhere,
  nominatedGated,
  inPlaceResize,
  preemptionMessage,
];
