// Test doubles for the Kubernetes effect adapters: API errors, a manual token bucket, promise helpers, the KubeBinder and KubeReports harness.
import { ApiException } from '@kubernetes/client-node';
import pino from 'pino';
import type { KubeBinder } from '../../src/adapters/kube/binder.ts';
import type { KubeClients } from '../../src/adapters/kube/config.ts';
import type { DirectHttp } from '../../src/adapters/kube/direct-http.ts';
import { type KubeEffectsOptions, kubeEffects } from '../../src/adapters/kube/effects.ts';
import { TokenBucket } from '../../src/adapters/kube/rate-limiter.ts';
import type { KubeReports } from '../../src/adapters/kube/reports.ts';
import type { CallOptions } from '../../src/adapters/kube/request-options.ts';
import type { InputEvent } from '../../src/events/types.ts';

/** The ApiException client-node throws for an API `Status` failure with `code`. */
export function apiError(code: number, reason: string, message: string): ApiException<string> {
  const body = JSON.stringify({
    kind: 'Status',
    apiVersion: 'v1',
    status: 'Failure',
    message,
    reason,
    code,
  });
  return new ApiException(code, 'Unknown API Status Code!', body, {});
}

/** A promise and the function that resolves it. */
export function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => {};
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** Lets every callback already due run (fake API calls resolve at once). */
export function flush(): Promise<void> {
  return new Promise<void>((r) => setImmediate(r));
}

/** A 1-qps token bucket on a manual clock: `burst` tokens, then one more per `tick()`. */
export function manualBucket(burst = 1): { bucket: TokenBucket; tick(): Promise<void> } {
  let now = 0;
  let fire: (() => void) | undefined;
  const bucket = new TokenBucket({
    qps: 1,
    burst,
    now: () => now,
    setTimeout: (f) => {
      fire = f;
      return 0;
    },
  });
  return {
    bucket,
    async tick() {
      now += 1000;
      const f = fire;
      fire = undefined;
      f?.();
      await flush();
    },
  };
}

/** Resolves to 'settled' if `promise` settles within `ms` (real time), else to 'pending'. */
export function within(promise: Promise<unknown>, ms: number): Promise<'settled' | 'pending'> {
  return Promise.race([
    promise.then(() => 'settled' as const),
    new Promise<'pending'>((r) => setTimeout(() => r('pending'), ms)),
  ]);
}

/** The headers a write sent with `options` carries (DirectHttp sends JSON unless told). */
export async function headersAfter(
  options: CallOptions | undefined,
): Promise<Record<string, string>> {
  return { 'Content-Type': options?.contentType ?? 'application/json' };
}

/**
 * KubeBinder and KubeReports over fake `clients`, as the effect tests build them: generous
 * limiters, a fixed clock (2030-01-02T03:04:05.678Z), instance `berth-test`, reports sent
 * without the report delay (its own test sets it), every ingested input and every log line
 * (debug and up) captured; `over` replaces any option. `stop` stops both, as the runtime does.
 */
export function testEffects(
  clients: KubeClients,
  over: Partial<KubeEffectsOptions> = {},
): {
  binder: KubeBinder;
  reports: KubeReports;
  stop: () => void;
  ingested: InputEvent[];
  logLines: Record<string, unknown>[];
} {
  const ingested: InputEvent[] = [];
  const logLines: Record<string, unknown>[] = [];
  const logger = pino(
    { level: 'debug' },
    { write: (line: string) => void logLines.push(JSON.parse(line) as Record<string, unknown>) },
  );
  const { binder, reports } = kubeEffects({
    clients,
    limiter: new TokenBucket({ qps: 1000, burst: 1000 }),
    reportLimiter: new TokenBucket({ qps: 1000, burst: 1000 }),
    ingest: (e) => ingested.push(e),
    logger,
    reportingInstance: 'berth-test',
    schedulerName: 'berth',
    now: () => new Date('2030-01-02T03:04:05.678Z'),
    reportDelayMs: 0,
    ...over,
  });
  const stop = () => {
    binder.stop();
    reports.stop();
  };
  return { binder, reports, stop, ingested, logLines };
}

/** A bind or Event as the fake DirectHttp hands it over, shaped like client-node's parameters. */
export type RoutedParam = Record<string, unknown>;

/**
 * A fake `DirectHttp` for KubeBinder and KubeReports: POSTs of a pod's `binding` go to `bind` as
 * `{ name, namespace, body }` and POSTs of events.k8s.io Events to `event` as
 * `{ namespace, body }` (bodies parsed back from JSON); anything else rejects.
 */
export function fakeDirectHttp(routes: {
  bind?: (param: RoutedParam) => Promise<unknown>;
  event?: (param: RoutedParam) => Promise<unknown>;
}): DirectHttp {
  const request = async (method: string, path: string, body: string | undefined) => {
    const parsed = body === undefined ? undefined : (JSON.parse(body) as unknown);
    const bind = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/binding$/.exec(path);
    if (method === 'POST' && bind !== null && routes.bind !== undefined)
      return JSON.stringify(
        (await routes.bind({
          name: decodeURIComponent(bind[2] as string),
          namespace: decodeURIComponent(bind[1] as string),
          body: parsed,
        })) ?? {},
      );
    const event = /^\/apis\/events\.k8s\.io\/v1\/namespaces\/([^/]+)\/events$/.exec(path);
    if (method === 'POST' && event !== null && routes.event !== undefined)
      return JSON.stringify(
        (await routes.event({ namespace: decodeURIComponent(event[1] as string), body: parsed })) ??
          {},
      );
    throw new Error(`unexpected request ${method} ${path}`);
  };
  return { request } as unknown as DirectHttp;
}
