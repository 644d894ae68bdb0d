// When each pod was first seen bound, from a pod watch that resumes where it left off if the API server ends it.
import type { Api, Watch } from '../../test/e2e/support/api.ts';
import type { PodJson } from '../../test/e2e/support/kubectl.ts';

/** The bench clock (performance.now) at which each pod, by name, was first seen bound. */
export interface BindingWatch {
  boundAt: Map<string, number>;
  /** How often the API server ended the watch and it was resumed (or relisted). */
  restarts: number;
  /** Pods found bound by a relist after the watch history was gone (their time is the relist's). */
  relisted: number;
  stop(): void;
}

interface PodList {
  metadata: { resourceVersion: string };
  items: PodJson[];
}

/**
 * Watches the bound pods (`spec.nodeName` set) of `namespace` from now on; pods already
 * bound when it starts are left out. The API server
 * closes a watcher that falls behind; the watch then resumes from the last resourceVersion
 * it saw, or relists when that is too old, so no binding goes unseen.
 */
export async function watchBound(api: Api, namespace: string): Promise<BindingWatch> {
  const path = `/api/v1/namespaces/${namespace}/pods?fieldSelector=spec.nodeName%21%3D`;
  const state: BindingWatch = { boundAt: new Map(), restarts: 0, relisted: 0, stop: () => {} };
  let stopped = false;
  let current: Watch | undefined;
  // Pods already bound when the watch starts (a warm-up pod) are not bindings from now on,
  // even when a later status update of theirs comes through the watch.
  const before = new Set<string>();
  const seen = (pod: PodJson, at: number) => {
    const name = pod.metadata.name;
    if (pod.spec?.nodeName !== undefined && !before.has(name) && !state.boundAt.has(name))
      state.boundAt.set(name, at);
  };
  const list = async (record: boolean): Promise<string> => {
    const l = await api.ok<PodList>('GET', path);
    for (const pod of l.items) {
      if (!record) before.add(pod.metadata.name);
      else if (!state.boundAt.has(pod.metadata.name)) {
        state.relisted++;
        seen(pod, performance.now());
      }
    }
    return l.metadata.resourceVersion;
  };
  const start = (rv: string) => {
    let last = rv;
    let gone = false;
    const w = api.watch<PodJson & { code?: number }>(path, rv, (e) => {
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
