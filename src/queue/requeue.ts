// Queueing hints applied: which parked (unschedulable) pods a cluster change moves back.
import type { ClusterChange } from '../cluster/types.ts';
import type { QueueingHint } from '../framework/types.ts';
import type { ParkedPod } from './unschedulable-pool.ts';

/** The plugins whose hint says `change` could undo their rejection. */
export function pluginsHelpedBy(
  change: ClusterChange,
  hints: ReadonlyMap<string, QueueingHint>,
): Set<string> {
  const helped = new Set<string>();
  if (change.kind === 'none') return helped;
  for (const [name, hint] of hints) if (hint(change)) helped.add(name);
  return helped;
}

/**
 * kube's requeue rule with hints: a parked pod goes back when any plugin that rejected it
 * is helped by the change, or has no hint (it might be helped, so it is not left to
 * starve). A pod rejected by no named plugin goes back on any change.
 */
export function changeCouldHelp(
  parked: ParkedPod,
  helped: ReadonlySet<string>,
  hints: ReadonlyMap<string, QueueingHint>,
): boolean {
  if (parked.plugins.length === 0) return true;
  for (const p of parked.plugins) if (helped.has(p) || !hints.has(p)) return true;
  return false;
}
