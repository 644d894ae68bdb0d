// `berth explain NS/POD` against a live cluster: list once, fold, explain; a dry run that writes nothing.
import {
  checkConnection,
  type KubeConfigOptions,
  KubeSetupError,
  loadKubeConfig,
  makeClients,
} from '../adapters/kube/config.ts';
import { ListError, listClusterOnce } from '../adapters/kube/list-once.ts';
import { getPodByKey, initialState, reduce } from '../cluster/reducer.ts';
import type { ClusterState } from '../cluster/types.ts';
import { type BerthConfig, emulatedReleaseOf } from '../core/config.ts';
import type { InputEvent } from '../events/types.ts';
import type { KubeRelease } from '../model/kube-release.ts';
import type { PodObject } from '../model/objects.ts';
import { CliError } from './errors.ts';
import { explainCycle, podNotes, profileFor } from './explain-inputs.ts';
import type { ExplainDocument } from './explain-render.ts';

/** How the live cluster is reached and how its next cycle is seeded. */
export interface LiveOptions extends KubeConfigOptions {
  /** The generator's state for tie-breaking (a fresh `berth run --seed S` starts with S). */
  seed: number;
  /** Berth's config (its scheduler names and profiles). */
  config: BerthConfig;
}

/** Folds listed events into a fresh cluster state, as the core's reducer does for `release`. */
function fold(events: readonly InputEvent[], release: KubeRelease): ClusterState {
  const state = initialState(release);
  let seq = 0;
  for (const event of events) reduce(state, { seq: ++seq, time: 0, event });
  return state;
}

/** `pod` as if it were pending: no node, phase Pending (its charge on the node released). */
function unbound(pod: PodObject): PodObject {
  const { nodeName: _, ...spec } = pod.spec ?? {};
  return { ...pod, spec, status: { ...(pod.status ?? {}), phase: 'Pending' } };
}

/**
 * Lists the cluster once through `opts`' kubeconfig: the listing as input events and the
 * server's address. A bad kubeconfig, an unreachable server or a refused list is a one-line
 * CliError.
 */
export async function listLiveCluster(
  opts: KubeConfigOptions,
): Promise<{ events: InputEvent[]; server: string }> {
  try {
    const clients = makeClients(loadKubeConfig(opts));
    await checkConnection(clients);
    return { events: await listClusterOnce(clients), server: clients.server };
  } catch (error) {
    if (error instanceof KubeSetupError || error instanceof ListError)
      throw new CliError(error.message);
    throw error;
  }
}

/**
 * Lists the cluster once (GETs only), folds it and explains the cycle berth would run for
 * `key` now, with the cursor of a fresh scheduler (0). A bound pod is explained as if it
 * were pending, its own charge released. Writes nothing to the cluster. Every failure
 * (kubeconfig, unreachable server, refused list, unknown pod) is a one-line CliError.
 */
export async function explainLive(key: string, opts: LiveOptions): Promise<ExplainDocument> {
  const { events, server } = await listLiveCluster(opts);
  const state = fold(events, emulatedReleaseOf(opts.config));
  const record = getPodByKey(state, key);
  if (record === undefined)
    throw new CliError(`unknown pod ${key}: not in the cluster at ${server}`);
  const config = opts.config;
  const notes = podNotes(record.info, config);
  let pod = record.info;
  const boundTo = pod.nodeName;
  if (boundTo !== undefined) {
    const listed = events.find(
      (e): e is Extract<InputEvent, { type: 'PodUpserted' }> =>
        e.type === 'PodUpserted' && e.pod.metadata?.uid === pod.uid,
    );
    if (listed !== undefined)
      reduce(state, {
        seq: events.length + 1,
        time: 0,
        event: { type: 'PodUpserted', pod: unbound(listed.pod) },
      });
    pod = getPodByKey(state, key)?.info ?? pod;
    notes.unshift(
      `the pod is bound to ${boundTo}; explained as if it were pending now (its own requests released from ${boundTo})`,
    );
  }
  notes.push("the cursor is a fresh scheduler's (0): a running berth may start its walk elsewhere");
  return {
    pod: key,
    uid: pod.uid,
    mode: 'live',
    source: server,
    asOf: { kind: 'now' },
    recorded: null,
    notes,
    explanation: explainCycle({
      state,
      pod,
      profile: profileFor(config, pod.schedulerName),
      cursor: 0,
      rngState: opts.seed,
    }),
  };
}
