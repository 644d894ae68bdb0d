// The core's whole state as plain JSON data (for log rotation), its rng state, and a diff.

import type { ClusterStateData } from '../cluster/serialize.ts';
import { type Rng, seededRng } from '../framework/rng.ts';
import type { QueuedPod } from '../queue/active-queue.ts';
import type { BindingWaitData } from './binding-waits.ts';
import type { GroupData, GroupHoldData } from './gangs.ts';
import type { PreemptionData } from './preemptions.ts';

export { SnapshotError } from './snapshot-error.ts';

/** The snapshot format's version; bumped on any incompatible change. */
export const snapshotVersion = 1;

/** A pod machine as a snapshot holds it: its state and context (the backoff config aside). */
export interface MachineData {
  uid: string;
  key: string;
  /** The machine's state name (never a final one, never `filtering` between envelopes). */
  state: string;
  attempts: number;
  lastFailureAt: number;
  /** The node reserved while waiting or binding, else null. */
  node: string | null;
  /** Why the pod is not bound yet, else null. */
  reason: string | null;
}

/** A parked pod: when it was parked and the plugins that rejected it (for queueing hints). */
export interface ParkedData {
  uid: string;
  at: number;
  plugins: string[];
}

/** An armed pod timer: whose, and its logical deadline. */
export interface TimerData {
  uid: string;
  deadline: number;
}

/** What the pod actors hold: machines, activeQ, unschedulable pool and pod timers. */
export interface PodActorsData {
  /** Every live machine, in creation order. */
  machines: MachineData[];
  /** The activeQ in heap order, each entry with its order counter. */
  activeQ: QueuedPod[];
  /** The activeQ's entry counter: the next entry gets `enqueued + 1`. */
  enqueued: number;
  /** The unschedulable pool, in parking order. */
  parked: ParkedData[];
  /** Armed backoff timers (one per pod in `backoff`). */
  backoffTimers: TimerData[];
  /** Armed permit timers (pods waiting at Permit). */
  permitTimers: TimerData[];
}

/**
 * Everything the core's later decisions depend on, as plain JSON data (no Map, Set or
 * class; `JSON.parse(JSON.stringify(s))` restores to the same core). Taken between
 * envelopes; `Scheduler.restore` continues from it. Config, profile and ports are not in
 * it: they come with the restore, as with a fresh core (the log header carries them).
 */
export interface CoreSnapshot extends PodActorsData {
  snapshotVersion: typeof snapshotVersion;
  /** The last seq used (the next envelope is `seq + 1`). */
  seq: number;
  /** The logical time of the last envelope applied. */
  time: number;
  cluster: ClusterStateData;
  /** Where the next cycle starts its walk over the nodes (kube's nextStartNodeIndex). */
  nextStartNodeIndex: number;
  /** The seeded generator's state (a uint32): it continues from here, not from the seed. */
  rng: { state: number };
  /** The unschedulable pool's flush deadline, or null when the flush was never armed. */
  flushDeadline: number | null;
  /** Preemptors waiting for their victims to go (absent in snapshots from before preemption). */
  preemptions?: PreemptionData[];
  /** Pod group machines with members in flight (absent in snapshots from before gangs). */
  groups?: GroupData[];
  /** The gang fairness hold and cooling groups (absent in snapshots from before gangs). */
  groupHold?: GroupHoldData;
  /** Binds held at PreBind for binding conditions (absent in snapshots from before: none). */
  bindingWaits?: BindingWaitData;
}

/**
 * mulberry32 (src/framework/rng.ts) adds this to its 32-bit state before each draw, and
 * each of `nextUint32`, `nextFloat` and `nextInt` draws exactly once; so the state after k
 * draws from state s is s + k·step, and `seededRng(thatState)` continues the sequence.
 * (Pinned by the snapshot property test against `seededRng` itself.)
 */
const MULBERRY32_STEP = 0x6d2b79f5;

/** A seeded generator that can say its state, so that a restored core draws the same numbers. */
export interface TrackedRng extends Rng {
  /** The state to pass to `trackedRng` to continue this sequence exactly. */
  state(): number;
}

/** `seededRng(state)`, which also tracks its state. */
export function trackedRng(state: number): TrackedRng {
  const inner = seededRng(state);
  let s = state >>> 0;
  return {
    nextUint32: () => {
      s = (s + MULBERRY32_STEP) >>> 0;
      return inner.nextUint32();
    },
    nextFloat: () => {
      s = (s + MULBERRY32_STEP) >>> 0;
      return inner.nextFloat();
    },
    nextInt: (n) => {
      s = (s + MULBERRY32_STEP) >>> 0;
      return inner.nextInt(n);
    },
    state: () => s,
  };
}

/** Options of `diffSnapshots`. */
export interface DiffOptions {
  /**
   * Top-level fields to leave out, e.g. `['flushDeadline']` when one side is a replay core
   * of a first segment, which cannot know when the live run first armed its flush.
   */
  ignore?: readonly (keyof CoreSnapshot)[];
}

const show = (v: unknown): string =>
  v === undefined ? 'absent' : (JSON.stringify(v) ?? String(v));

/** A readable name for an array element: its uid or name when it has one. */
function elementName(v: unknown): string {
  if (typeof v !== 'object' || v === null) return '';
  const o = v as Record<string, unknown>;
  const id = o.uid ?? o.name ?? o.key ?? (o.info as Record<string, unknown> | undefined)?.uid;
  return typeof id === 'string' ? `(${id})` : '';
}

/** A difference found deep inside two values: the path to it (built on the way out) and the two sides. */
interface Difference {
  path: string[];
  a: unknown;
  b: unknown;
}

function objectDifference(
  a: Record<string, unknown>,
  b: Record<string, unknown>,
): Difference | undefined {
  for (const k of Object.keys(a)) {
    const d = firstDifference(a[k], b[k]);
    if (d !== undefined) {
      d.path.push(`.${k}`);
      return d;
    }
  }
  for (const k of Object.keys(b)) {
    if (b[k] === undefined || a[k] !== undefined) continue; // compared above, or absent both
    return { path: [`.${k}`], a: undefined, b: b[k] };
  }
  return undefined;
}

/**
 * The first difference between two JSON values, or undefined when they are equal as JSON:
 * arrays element by element, objects key by key (key order and undefined-valued keys do
 * not count: JSON drops them). The path is collected innermost first.
 */
function firstDifference(a: unknown, b: unknown): Difference | undefined {
  if (a === b) return undefined;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null)
    return { path: [], a, b };
  const aList = Array.isArray(a);
  if (aList !== Array.isArray(b)) return { path: [], a, b };
  if (!aList) return objectDifference(a as Record<string, unknown>, b as Record<string, unknown>);
  const al = a as unknown[];
  const bl = b as unknown[];
  const n = Math.min(al.length, bl.length);
  for (let i = 0; i < n; i++) {
    const d = firstDifference(al[i], bl[i]);
    if (d !== undefined) {
      d.path.push(`[${i}]${elementName(al[i])}`);
      return d;
    }
  }
  if (al.length !== bl.length) return { path: ['.length'], a: al.length, b: bl.length };
  return undefined;
}

/** The order `diffSnapshots` compares the top-level fields in: counters first, bulk last. */
const topLevelOrder: readonly string[] = [
  'snapshotVersion',
  'seq',
  'time',
  'rng',
  'nextStartNodeIndex',
  'enqueued',
  'flushDeadline',
  'machines',
  'activeQ',
  'parked',
  'backoffTimers',
  'permitTimers',
  'preemptions',
  'groups',
  'groupHold',
  'cluster',
];

/**
 * Compares two snapshots (live objects or parsed JSON) and names the first difference, e.g.
 * `cluster.pods[3](uid-1).charge.node: "n1" ≠ "n2"`; undefined when they are equal. For
 * checking that a segment's opening snapshot is the state the previous segment ends in.
 */
export function diffSnapshots(
  a: CoreSnapshot,
  b: CoreSnapshot,
  options: DiffOptions = {},
): string | undefined {
  const ignored = new Set<string>(options.ignore ?? []);
  const keys = new Set([...Object.keys(a), ...Object.keys(b)].filter((k) => !ignored.has(k)));
  const rank = (k: string) => {
    const i = topLevelOrder.indexOf(k);
    return i === -1 ? topLevelOrder.length : i;
  };
  const ordered = [...keys].sort((x, y) => rank(x) - rank(y) || (x < y ? -1 : x > y ? 1 : 0));
  for (const k of ordered) {
    const d = firstDifference(
      (a as unknown as Record<string, unknown>)[k],
      (b as unknown as Record<string, unknown>)[k],
    );
    if (d !== undefined) return `${k}${d.path.reverse().join('')}: ${show(d.a)} ≠ ${show(d.b)}`;
  }
  return undefined;
}
