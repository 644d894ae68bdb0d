// One gang step's trial: place a group's missing members one after another against one snapshot, then undo it.
import { type Amount, addAmounts, maxAmount, subAmounts } from '../cluster/amount.ts';
import { reduce } from '../cluster/reducer.ts';
import type { ClusterState, PodInfo, Resources } from '../cluster/types.ts';
import type { ReservedClaim } from '../events/types.ts';
import type { CycleResult } from '../framework/cycle.ts';

/** A member the step tries, with the attempt number its machine took for this step. */
export interface GangMember {
  info: PodInfo;
  attempt: number;
}

/** A member's place in a successful trial, with the DRA claims it allocates there. */
export interface GangPlacement extends GangMember {
  node: string;
  claims?: ReservedClaim[];
}

/** What the trial found: every member placed, or the first that was not and why. */
export type GangTrial =
  | { kind: 'placed'; placements: GangPlacement[] }
  | {
      kind: 'blocked';
      /** How many members fitted before `member` did not. */
      fitted: number;
      /** Where those members fitted (undone, like every trial reservation). */
      placements: GangPlacement[];
      member: GangMember;
      result: Exclude<CycleResult, { kind: 'Scheduled' }>;
    };

/**
 * Tries `members` in order: each is scheduled by `schedule` against the state with the
 * members before it reserved, as a cycle would see them. The reservations are undone
 * before returning (latest first, so every index and node pod list is as it was), so the
 * state is unchanged: the caller decides — and logs — the reservations only when the
 * whole group fits. Costs one cycle per member tried.
 */
export function tryGroup(
  cluster: ClusterState,
  members: readonly GangMember[],
  time: number,
  schedule: (pod: PodInfo) => CycleResult,
): GangTrial {
  const placements: GangPlacement[] = [];
  let outcome: GangTrial | undefined;
  try {
    for (const member of members) {
      const result = schedule(member.info);
      if (result.kind !== 'Scheduled') {
        outcome = { kind: 'blocked', fitted: placements.length, placements, member, result };
        break;
      }
      const placement: GangPlacement = { ...member, node: result.node };
      if (result.claims !== undefined) placement.claims = result.claims;
      // The next member's cycle sees this one's devices taken (the reducer holds them).
      reserve(cluster, placement, 'PodReserved', time);
      placements.push(placement);
    }
  } finally {
    for (let i = placements.length - 1; i >= 0; i--) {
      reserve(cluster, placements[i] as GangPlacement, 'PodUnreserved', time);
    }
  }
  return outcome ?? { kind: 'placed', placements };
}

function reserve(
  cluster: ClusterState,
  p: GangPlacement,
  type: 'PodReserved' | 'PodUnreserved',
  time: number,
): void {
  const ref = { uid: p.info.uid, key: p.info.key, attempt: p.attempt, node: p.node };
  const claims = p.claims === undefined ? {} : { claims: p.claims };
  // Not logged: a trial's reservations never outlive it (seq 0 marks them as such).
  reduce(cluster, {
    seq: 0,
    time,
    event:
      type === 'PodReserved' ? { type, ...ref, ...claims } : { type, ...ref, reason: 'gang trial' },
  });
}

/**
 * The order a gang step takes members in: highest priority first, then the oldest
 * (creation time), then by name, so that a step is the same on every replay.
 */
export function byGangOrder(a: PodInfo, b: PodInfo): number {
  if (a.priority !== b.priority) return b.priority - a.priority;
  if (a.creationMs !== b.creationMs) return a.creationMs - b.creationMs;
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

/**
 * The message of a member of group `group` that could not be placed whole: how many of
 * `minMember` fitted, then the first unplaced member's own message, naming it — e.g.
 * `pod group ml/train: 3 of 4 members fit; 0/8 nodes are available for ml/train-3: 8
 * Insufficient nvidia.com/gpu.`
 */
export function blockedMessage(
  group: string,
  fit: number,
  minMember: number,
  member: string,
  message: string,
): string {
  const named = /^\d+\/\d+ nodes are available/.test(message)
    ? message.replace(/^(\d+\/\d+ nodes are available)/, `$1 for ${member}`)
    : `${member}: ${message}`;
  return `pod group ${group}: ${fit} of ${minMember} members fit; ${named}`;
}

const resourceNames = (r: Resources): [string, Amount][] => [
  ['cpu', r.milliCPU],
  ['memory', r.memory],
  ['ephemeral-storage', r.ephemeralStorage],
  ...Object.entries(r.scalar),
];

/**
 * Coscheduling's minResources check: the free capacity summed over the schedulable live
 * nodes must cover `min`. Returns the first resource it does not cover, described, or
 * undefined when it does.
 */
export function missingMinResources(cluster: ClusterState, min: Resources): string | undefined {
  const free = new Map<string, Amount>();
  const add = (name: string, v: Amount) =>
    free.set(name, addAmounts(free.get(name) ?? 0, maxAmount(0, v)));
  for (const node of cluster.nodeOrder) {
    if (node.unschedulable || node.invalid !== undefined) continue;
    add('cpu', node.freeMilliCPU);
    add('memory', node.freeMemory);
    add('ephemeral-storage', node.freeEphemeralStorage);
    for (const [name, total] of Object.entries(node.allocatable.scalar))
      add(name, subAmounts(total, node.requested.scalar[name] ?? 0));
  }
  for (const [name, want] of resourceNames(min)) {
    if (want <= 0) continue;
    const have = free.get(name) ?? 0;
    if (have < want) {
      const show = (v: Amount) => (name === 'cpu' ? `${v}m` : String(v));
      return `minResources ${name} ${show(want)} exceeds the ${show(have)} free on schedulable nodes`;
    }
  }
  return undefined;
}
