// `berth explain group` against a live cluster: list once (GETs only) and feed a fresh core, which writes nothing.
import type { KubeConfigOptions } from '../adapters/kube/config.ts';
import type { ClusterState } from '../cluster/types.ts';
import type { BerthConfig } from '../core/config.ts';
import { Scheduler } from '../core/scheduler.ts';
import type { InputEvent } from '../events/types.ts';
import { listLiveCluster } from './explain-live.ts';

/** How the live cluster is reached, and the core's seed and config. */
export interface GroupLiveOptions extends KubeConfigOptions {
  seed: number;
  config: BerthConfig;
}

/**
 * Lists the cluster once and feeds every listed object to a fresh core, as a berth just
 * started would have them before its first cycle (no cycle is run, no command carried
 * out: nothing is written to the cluster). Every failure (kubeconfig, unreachable server,
 * refused list) is a one-line CliError.
 */
export async function explainGroupLive(
  opts: GroupLiveOptions,
): Promise<{ state: ClusterState; server: string; scheduler: Scheduler }> {
  const { events, server } = await listLiveCluster(opts);
  const scheduler = coreOfListing(events, opts);
  return { state: scheduler.state, server, scheduler };
}

/**
 * A fresh core fed the listed `events` at time 0, as a berth just started holds them before
 * its first cycle: pending pods queued, groups indexed, no cycle run, no command carried out.
 */
export function coreOfListing(
  events: readonly InputEvent[],
  opts: Pick<GroupLiveOptions, 'seed' | 'config'>,
): Scheduler {
  const scheduler = new Scheduler({ seed: opts.seed, config: opts.config });
  for (const event of events) scheduler.ingest(event, 0);
  return scheduler;
}
