// Taking the core's state as a snapshot, and restoring it into a fresh core.
import {
  restoreClusterState,
  SnapshotDataError,
  serializeClusterState,
} from '../cluster/serialize.ts';
import { BindingWaits } from './binding-waits.ts';
import type { CoreState } from './core-state.ts';
import { Preemptions } from './preemptions.ts';
import { type CoreSnapshot, SnapshotError, snapshotVersion, trackedRng } from './snapshot.ts';

/** Everything later decisions depend on, as plain JSON data (see CoreSnapshot). */
export function takeSnapshot(core: CoreState): CoreSnapshot {
  return {
    snapshotVersion,
    seq: core.seq,
    time: core.lastTime,
    nextStartNodeIndex: core.ctx.cursor.next,
    rng: { state: core.rng.state() },
    flushDeadline: core.flushDeadline ?? null,
    ...core.pods.snapshot(),
    preemptions: core.preemptions.snapshot(),
    groups: core.gangs.snapshot(),
    groupHold: core.gangs.holdSnapshot(),
    ...(core.bindingWaits.size > 0 ? { bindingWaits: core.bindingWaits.snapshot() } : {}),
    cluster: serializeClusterState(core.cluster),
  };
}

/**
 * Loads `snapshot` into `core`, fresh: the generator continues from the snapshot's state,
 * and the timers that were armed are armed again (as timer commands of the next step).
 * Throws SnapshotError (or SnapshotDataError for the cluster part) for another snapshot
 * version, malformed data or data that does not hang together, with a one-line message.
 */
export function restoreSnapshot(core: CoreState, snapshot: CoreSnapshot): void {
  if (snapshot?.snapshotVersion !== snapshotVersion)
    throw new SnapshotError(
      `version ${String(snapshot?.snapshotVersion)} is not supported (this berth reads ${snapshotVersion})`,
    );
  try {
    core.cluster = restoreClusterState(snapshot.cluster, core.cluster.release);
    core.seq = snapshot.seq;
    core.now = snapshot.time;
    core.lastTime = snapshot.time;
    core.ctx.cursor.next = snapshot.nextStartNodeIndex;
    core.rng = trackedRng(snapshot.rng.state);
    core.ctx.rng = core.rng;
    core.pods.load(snapshot);
    core.preemptions = Preemptions.load(snapshot.preemptions ?? []);
    core.gangs.rebuild(core.cluster, (info) => core.isGangMember(info));
    core.gangs.load(snapshot.groups ?? []);
    core.gangs.loadHold(snapshot.groupHold);
    core.bindingWaits = BindingWaits.load(snapshot.bindingWaits);
  } catch (err) {
    if (err instanceof SnapshotError || err instanceof SnapshotDataError) throw err;
    // A field of the wrong shape (hand-edited or truncated data): one line, not a trace.
    const why = err instanceof Error ? err.message : String(err);
    throw new SnapshotError(`malformed data (${why})`);
  }
  if (snapshot.flushDeadline !== null) core.armFlushAt(snapshot.flushDeadline);
  for (const w of core.bindingWaits.snapshot())
    if (w.deadline !== undefined)
      core.armPodTimer({ uid: w.uid, key: w.key }, 'bindingConditions', w.deadline);
}
