// Pods created at a steady rate through the API, and when the test first saw each one bound.
import type { Api, Watch } from './api.ts';
import type { PodJson } from './kubectl.ts';
import type { Manifest } from './manifests.ts';
import { delay } from './wait.ts';

/** One pod created by `createPaced`, with the test's own clock (performance.now, ms). */
export interface Arrival {
  name: string;
  /** When the POST was sent. */
  sentAt: number;
  /** When the API's answer arrived (the pod exists from here at the latest). */
  createdAt: number;
  uid?: string;
  /** HTTP status, or 0 if the request failed outright. */
  status: number;
}

/** What `createPaced` achieved. */
export interface PacedResult {
  arrivals: Arrival[];
  /** Pods created per second: count ÷ (last answer − first send). */
  rate: number;
  /** Pods whose POST did not return 201. */
  failed: Arrival[];
}

/**
 * POSTs `manifests` to `namespace` one every 1000/`perSecond` ms by the test's clock, without
 * waiting for earlier answers (a slow answer must not slow the arrivals); when it falls
 * behind it sends at once to catch up. Resolves once every answer is in.
 */
export async function createPaced(
  api: Api,
  namespace: string,
  manifests: Manifest[],
  perSecond: number,
): Promise<PacedResult> {
  const interval = 1000 / perSecond;
  const start = performance.now();
  const inFlight: Promise<Arrival>[] = [];
  for (const [i, m] of manifests.entries()) {
    const wait = start + i * interval - performance.now();
    if (wait > 1) await delay(wait);
    const name = String((m.metadata as { name: string }).name);
    const sentAt = performance.now();
    inFlight.push(
      api.request<PodJson>('POST', `/api/v1/namespaces/${namespace}/pods`, m).then(
        (r) => ({
          name,
          sentAt,
          createdAt: performance.now(),
          uid: r.body?.metadata?.uid,
          status: r.status,
        }),
        () => ({ name, sentAt, createdAt: performance.now(), status: 0 }),
      ),
    );
  }
  const arrivals = await Promise.all(inFlight);
  const end = Math.max(...arrivals.map((a) => a.createdAt));
  return {
    arrivals,
    rate: (arrivals.length / (end - start)) * 1000,
    failed: arrivals.filter((a) => a.status !== 201),
  };
}

/**
 * Watches the pods of `namespace` from now on and records, by the test's clock, the first
 * moment each pod (by name) was seen with `spec.nodeName`. The returned map fills as events
 * arrive; `watch.stop()` ends it.
 */
export async function watchBindings(
  api: Api,
  namespace: string,
): Promise<{ boundAt: Map<string, { at: number; node: string; uid?: string }>; watch: Watch }> {
  const path = `/api/v1/namespaces/${namespace}/pods`;
  const rv = await api.listResourceVersion(path);
  const boundAt = new Map<string, { at: number; node: string; uid?: string }>();
  const watch = api.watch<PodJson>(path, rv, (e) => {
    if (e.type !== 'ADDED' && e.type !== 'MODIFIED') return;
    const node = e.object.spec?.nodeName;
    const name = e.object.metadata.name;
    if (node !== undefined && !boundAt.has(name))
      boundAt.set(name, { at: performance.now(), node, uid: e.object.metadata.uid });
  });
  return { boundAt, watch };
}

/** The `q`-quantile (0…1) of `values` by nearest rank; NaN when empty. */
export function quantile(values: number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank] as number;
}
