// When each object's work was first seen done (a pod bound, its Scheduled Event written, …), from a watch that resumes where it left off if the API server ends it.
import type { Api, Watch } from '../../test/e2e/support/api.ts';
import type { PodJson } from '../../test/e2e/support/kubectl.ts';

/** The bench clock (performance.now) at which each key (a pod's name) was first seen done. */
export interface DoneWatch {
  doneAt: Map<string, number>;
  /** How often the API server ended the watch and it was resumed (or relisted). */
  restarts: number;
  /** Keys found done by a relist after the watch history was gone (their time is the relist's). */
  relisted: number;
  stop(): void;
}

/** What an object shows: the key whose work it shows done, or undefined when not (yet). */
export type DoneKey<T> = (object: T) => string | undefined;

interface List<T> {
  metadata: { resourceVersion: string };
  items: T[];
}

/**
 * Watches the collection `path` (a URL, field selector allowed) from now on and records when
 * `done` first names each key; keys already done when it starts are left out, even when a
 * later update of theirs comes through. The API server closes a watcher that falls behind;
 * the watch then resumes from the last resourceVersion it saw, or relists when that is too
 * old, so nothing done goes unseen.
 */
export async function watchDone<T extends { metadata?: { resourceVersion?: string } }>(
  api: Api,
  path: string,
  done: DoneKey<T>,
): Promise<DoneWatch> {
  const state: DoneWatch = { doneAt: new Map(), restarts: 0, relisted: 0, stop: () => {} };
  let stopped = false;
  let current: Watch | undefined;
  const before = new Set<string>();
  const seen = (object: T, at: number) => {
    const key = done(object);
    if (key !== undefined && !before.has(key) && !state.doneAt.has(key)) state.doneAt.set(key, at);
  };
  const list = async (record: boolean): Promise<string> => {
    const l = await api.ok<List<T>>('GET', path);
    for (const object of l.items) {
      const key = done(object);
      if (key === undefined) continue;
      if (!record) before.add(key);
      else if (!state.doneAt.has(key)) {
        state.relisted++;
        seen(object, performance.now());
      }
    }
    return l.metadata.resourceVersion;
  };
  const start = (rv: string) => {
    let last = rv;
    let gone = false;
    const w = api.watch<T & { code?: number }>(path, rv, (e) => {
      if (e.type === 'ERROR') {
        gone = e.object.code === 410;
        return;
      }
      const v = e.object.metadata?.resourceVersion;
      if (v !== undefined) last = v;
      if (e.type === 'ADDED' || e.type === 'MODIFIED') seen(e.object, performance.now());
    });
    current = w;
    void w.ended.then(async () => {
      if (stopped) return;
      state.restarts++;
      start(gone ? await list(true) : last);
    });
  };
  start(await list(false));
  state.stop = () => {
    stopped = true;
    current?.stop();
  };
  return state;
}

/**
 * Watches the bound pods (`spec.nodeName` set) of `namespace` from now on; pods already
 * bound when it starts are left out (see {@link watchDone}); `doneAt` is by pod name.
 */
export function watchBound(api: Api, namespace: string): Promise<DoneWatch> {
  const path = `/api/v1/namespaces/${namespace}/pods?fieldSelector=spec.nodeName%21%3D`;
  return watchDone<PodJson>(api, path, (pod) =>
    pod.spec?.nodeName === undefined ? undefined : pod.metadata.name,
  );
}

interface EventJson {
  metadata: { resourceVersion?: string };
  reason?: string;
  involvedObject?: { kind?: string; name?: string };
}

/**
 * Watches the `Scheduled` Events of `namespace` (core/v1 view, so events.k8s.io/v1 Events
 * show too, `regarding` as `involvedObject`) from now on; `doneAt` is by the pod's name.
 */
export function watchScheduled(api: Api, namespace: string): Promise<DoneWatch> {
  const path = `/api/v1/namespaces/${namespace}/events?fieldSelector=reason%3DScheduled`;
  return watchDone<EventJson>(api, path, (e) =>
    e.involvedObject?.kind === 'Pod' ? e.involvedObject.name : undefined,
  );
}
