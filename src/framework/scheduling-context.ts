// What a scheduling cycle is given besides the pod and the snapshot, and what it returns.
import type { ClaimToDeallocate, ReservedClaim } from '../events/types.ts';
import type { CycleRecorder } from './cycle-recorder.ts';
import type { Diagnosis } from './explain.ts';
import type { Rng } from './rng.ts';
import type { CycleError } from './running.ts';
import type { Nomination, Profile } from './types.ts';

/** What a cycle needs besides the pod and the snapshot; `cursor` is advanced in place. */
export interface SchedulingContext {
  profile: Profile;
  rng: Rng;
  /** Where the next cycle starts its walk over `nodeOrder` (kube's nextStartNodeIndex). */
  cursor: { next: number };
  /** 0 = adaptive (kube's default); 1–100 = that percentage. */
  percentageOfNodesToScore: number;
  /** The cycle's logical time (preemption counts a pod without a start time as started now). */
  now?: number;
  /** Told what the cycle does, step by step (`berth explain`); absent: nothing is recorded. */
  recorder?: CycleRecorder;
}

/** A failed cycle's outcome: kube's FitError message and Diagnosis. */
export interface CycleUnschedulable {
  kind: 'Unschedulable';
  message: string;
  diagnosis: Diagnosis;
  /** A PostFilter (preemption) made room: the pod is nominated there, victims to evict. */
  nomination?: Nomination;
  /**
   * kube clears the pod's own `status.nominatedNodeName` after this failure: no node, no
   * PostFilter in the profile, or preemption found no candidate (kube's clearNominatedNode).
   */
  clearsNomination?: boolean;
  /** The claim a PostFilter (DynamicResources) deallocates to help the pod next time. */
  deallocate?: ClaimToDeallocate;
}

/**
 * The outcome of one cycle. `evaluated` counts the nodes filtered and kept (kube's
 * EvaluatedNodes). `Error`: a plugin threw (or returned Error); the pod backs off.
 */
export type CycleResult =
  | {
      kind: 'Scheduled';
      node: string;
      evaluated: number;
      feasible: number;
      /** What the Reserve plugins hold for the pod on `node`: its DRA claims (absent: none). */
      claims?: ReservedClaim[];
    }
  | CycleUnschedulable
  | CycleError;
