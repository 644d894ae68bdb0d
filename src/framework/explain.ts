// Why a pod did not fit: the Diagnosis of a failed cycle and kube's FitError message for it.
import type { Diagnosis, Status } from './types.ts';

export type { Diagnosis } from './types.ts';

/** kube's ErrNoNodesAvailable text: the snapshot had no nodes at all. */
export const ErrNoNodesAvailable = 'no nodes available to schedule pods';

/** An empty diagnosis, to be filled by `recordNodeStatus` or `recordPreFilterStatus`. */
export function newDiagnosis(): Diagnosis {
  return {
    reasons: new Map(),
    nodeToStatus: new Map(),
    summarizedNodes: 0,
    unresolvableNodes: 0,
    unschedulablePlugins: new Set(),
    preFilterMsg: undefined,
  };
}

/** Records the failing `status` of node `nodeName` (a node is recorded at most once). */
export function recordNodeStatus(d: Diagnosis, nodeName: string, status: Status): void {
  d.nodeToStatus.set(nodeName, status);
  const reasons = status.reasons;
  for (let i = 0; i < reasons.length; i++) {
    const r = reasons[i] as string;
    d.reasons.set(r, (d.reasons.get(r) ?? 0) + 1);
  }
  if (status.code === 'UnschedulableAndUnresolvable') d.unresolvableNodes++;
  if (status.plugin !== undefined && status.code !== 'Error')
    d.unschedulablePlugins.add(status.plugin);
}

/**
 * The diagnosis of a walk in which every node failed: node `names[i]` failed with
 * `statuses[i]` (each node once). Equal to calling `recordNodeStatus` for each pair, but
 * counts each distinct status object once (plugins return shared frozen statuses, so a
 * walk over thousands of nodes has a handful) and builds `nodeToStatus` only when read.
 */
export function diagnoseFailedNodes(
  names: readonly string[],
  statuses: readonly Status[],
): Diagnosis {
  const counts = new Map<Status, number>();
  let last: Status | undefined;
  let run = 0;
  for (let i = 0; i < statuses.length; i++) {
    const s = statuses[i] as Status;
    if (s === last) {
      run++;
      continue;
    }
    if (last !== undefined) counts.set(last, (counts.get(last) ?? 0) + run);
    last = s;
    run = 1;
  }
  if (last !== undefined) counts.set(last, (counts.get(last) ?? 0) + run);
  let nodeToStatus: Map<string, Status> | undefined;
  const d: Diagnosis = {
    reasons: new Map(),
    get nodeToStatus(): Map<string, Status> {
      if (nodeToStatus === undefined) {
        nodeToStatus = new Map();
        for (let i = 0; i < names.length; i++) {
          nodeToStatus.set(names[i] as string, statuses[i] as Status);
        }
      }
      return nodeToStatus;
    },
    summarizedNodes: 0,
    unresolvableNodes: 0,
    unschedulablePlugins: new Set(),
    preFilterMsg: undefined,
  };
  for (const [s, count] of counts) {
    for (const r of s.reasons) d.reasons.set(r, (d.reasons.get(r) ?? 0) + count);
    if (s.code === 'UnschedulableAndUnresolvable') d.unresolvableNodes += count;
    if (s.plugin !== undefined && s.code !== 'Error') d.unschedulablePlugins.add(s.plugin);
  }
  return d;
}

/**
 * Records a PreFilter rejection. kube gives every node this status (so it counts all
 * `numAllNodes` as unresolvable when the code says so) but keeps it out of the reason
 * histogram: the message is the PreFilter's alone.
 */
export function recordPreFilterStatus(d: Diagnosis, numAllNodes: number, status: Status): void {
  d.preFilterMsg = status.reasons.join(', ');
  if (status.code === 'UnschedulableAndUnresolvable') d.unresolvableNodes = numAllNodes;
  if (status.plugin !== undefined) d.unschedulablePlugins.add(status.plugin);
}

/**
 * Orders strings as Go's sort.Strings does: by UTF-8 bytes, i.e. by code point (JS's
 * default sort compares UTF-16 units, which differs for characters beyond U+FFFF).
 */
export function compareGoStrings(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const ca = a.charCodeAt(i);
    const cb = b.charCodeAt(i);
    if (ca === cb) continue;
    const pa = a.codePointAt(i) as number;
    const pb = b.codePointAt(i) as number;
    return pa < pb ? -1 : 1;
  }
  return a.length - b.length;
}

/**
 * The reason histogram as kube prints it: "<count> <reason>" per reason, sorted as plain
 * strings (kube's sortReasonsHistogram uses sort.Strings on the formatted entries, so
 * "10 …" sorts before "9 …" and counts are not compared numerically).
 */
export function sortedReasonHistogram(reasons: ReadonlyMap<string, number>): string[] {
  const entries: string[] = [];
  for (const [reason, count] of reasons) entries.push(`${count} ${reason}`);
  return entries.sort(compareGoStrings);
}

/**
 * kube's FitError.Error() without the PostFilter (preemption) part:
 * "0/N nodes are available: <PreFilter message>." when a PreFilter rejected, otherwise
 * "0/N nodes are available: <histogram joined by ', '>.", e.g.
 * "0/13 nodes are available: 1 node(s) were unschedulable, 3 Insufficient cpu, 9 node(s)
 * didn't match Pod's node affinity/selector."
 */
export function fitErrorMessage(numAllNodes: number, diagnosis: Diagnosis): string {
  let msg = `0/${numAllNodes} nodes are available:`;
  const pre = diagnosis.preFilterMsg;
  if (pre !== undefined && pre !== '') return `${msg} ${pre}.`;
  const histogram = sortedReasonHistogram(diagnosis.reasons);
  if (histogram.length > 0) msg += ` ${histogram.join(', ')}.`;
  return msg;
}
