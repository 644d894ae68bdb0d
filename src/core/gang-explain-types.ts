// The shape of `berth explain group`'s account of one pod group (what explainGroup returns).
import type { PodExplanation } from '../framework/explain-types.ts';

/** Where one member stands, read from the cluster state and its pod machine. */
export interface GroupMemberRow {
  /** `namespace/name`. */
  pod: string;
  uid: string;
  status: 'bound' | 'reserved' | 'pending' | 'gated' | 'finished' | 'terminating';
  /** The node it is bound or reserved to. */
  node?: string;
  /** `status.nominatedNodeName`, when set (a hold or a preemption). */
  nominated?: string;
  /** Its pod machine's state, when it has one (log and simulated modes). */
  machine?: string;
}

/** One member's cycle in the group's trial: the real cycle, traced (explainPod). */
export interface MemberCycle {
  pod: string;
  /** The node the cycle chose (its best), or null when it fits nowhere. */
  node: string | null;
  explanation: PodExplanation;
}

/** One domain of the topology key, as the step's search ranked and tried it. */
export interface DomainRow {
  domain: string;
  nodes: number;
  /** Summed free share left after the group (smaller is tighter; negative: cannot hold it). */
  leftover: number;
  /** `placed`: it holds the whole group; `blocked`: tried, a member did not fit; `short`: not tried. */
  result: 'placed' | 'blocked' | 'short' | 'notReached';
  /** For `short`: the resource whose domain-wide free capacity is below the group's request. */
  short?: string;
  /** For a tried domain: members that fitted before one did not (all, when placed). */
  fitted?: number;
  /** For `blocked`: the member that did not fit and its cycle's message. */
  blockedPod?: string;
  message?: string;
}

/** The topology search of a constrained group. */
export interface TopologyExplanation {
  key: string;
  /** The domain members already placed pin the group to, if any. */
  pinned: string | null;
  /** Why no domain can be used at all (placed members span domains or unlabelled nodes). */
  conflict: string | null;
  domains: DomainRow[];
  /** The domain whose member cycles are shown: the one placed, else the closest. */
  shown: string | null;
}

/** A victim unit of a gang preemption plan. */
export interface VictimRow {
  /** The pod's `namespace/name`, or the group's id when a group is taken whole. */
  unit: string;
  group: boolean;
  priority: number;
  violatesBudget: boolean;
  pods: { pod: string; node: string }[];
}

/** What gang preemption would do for the group now. */
export type PreemptionExplanation =
  /** Not planned: the group fits, waits for quorum, or is topology-constrained. */
  | { kind: 'notPlanned'; why: string }
  | { kind: 'refused'; message: string }
  | {
      kind: 'plan';
      victims: VictimRow[];
      /** Pods evicted in all. */
      pods: number;
      budgetViolations: number;
      trials: number;
      /** Where every member goes once the victims are gone (the whole group fits then). */
      placements: { pod: string; node: string }[];
    };

/** The gang step the group would take now, traced. */
export interface StepExplanation {
  /** Members placed already (counted towards minMember). */
  placed: number;
  /** Members the step must place. */
  need: number;
  /** The members it takes, in gang order (highest priority, then oldest). */
  taken: string[];
  outcome: 'placed' | 'blocked';
  /** The group's message when blocked (as its members get it), '' when placed. */
  message: string;
  /** The members' cycles, in order (a topology group's: in the domain shown). */
  cycles: MemberCycle[];
  /** Members no cycle ran for: the trial stops at the first that does not fit. */
  notTried: string[];
  /** Why `notTried` were not tried, in words. */
  notTriedWhy: string;
  topology: TopologyExplanation | null;
  preemption: PreemptionExplanation;
}

/**
 * Why the group is waiting, the one that applies: `podGroup` (no PodGroup, its API is not
 * served, or it cannot be honoured as written), `quorum` (too few members), `fit` (the members do not fit together), `hold`
 * (another group holds the nodes it needs), `timeout` (its hold timed out: it may not hold
 * again yet), `preempting` (waiting for its victims to go); `placed` and `ready` are not
 * waiting (placed whole; its next step would place it).
 */
export interface WaitReason {
  kind: 'podGroup' | 'quorum' | 'fit' | 'hold' | 'timeout' | 'preempting' | 'placed' | 'ready';
  text: string;
}

/** A fairness hold, as the explanation shows it. */
export interface HoldRow {
  group: string;
  places: { pod: string; node: string }[];
  since: number;
  /** When it times out (since + the group's schedule timeout). */
  until: number;
}

/** Everything `berth explain group` says about one group. */
export interface GroupExplanation {
  /** The group's id in berth: `ns/name`, or `ns/name (scheduling.k8s.io)` for a core PodGroup. */
  group: string;
  api: 'plugins' | 'core';
  apiVersion: string;
  /** The logical time the explanation is as of. */
  now: number;
  quorum: {
    minMember: number | null;
    /** Members seen (any state). */
    members: number;
    /** Not finished or terminating, not gated: the ones that count. */
    present: number;
    gated: number;
    placed: number;
    bound: number;
  };
  topologyKey: string | null;
  members: GroupMemberRow[];
  /** The group machine, when it has one (log and simulated modes). */
  machine: { state: string; steps: number; startedAt: number; reason: string | null } | null;
  /** The fairness hold in force (this group's or another's), if any. */
  hold: HoldRow | null;
  /** When this group's hold timed out, the time until which it may not hold again. */
  coolingUntil: number | null;
  step: StepExplanation | null;
  waiting: WaitReason;
}
