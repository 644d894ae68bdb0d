// A KubeBinder and KubeReports over fake API clients that record every call (shared by their tests).

import type { KubeClients } from '../../src/adapters/kube/config.ts';
import type { KubeEffectsOptions } from '../../src/adapters/kube/effects.ts';
import type { CallOptions } from '../../src/adapters/kube/request-options.ts';
import type { AttemptRef, PodRef } from '../../src/events/types.ts';
import { fakeDirectHttp, testEffects } from '../support/kube-api-doubles.ts';

/** One API call: its parameters as client-node takes them, and its options. */
export type Call = { param: Record<string, unknown>; options: CallOptions | undefined };

/** A pod in `ns` named `name`; its uid defaults to `uid-<name>`. */
export function pod(key: string, uid = `uid-${key.split('/')[1] ?? key}`): PodRef {
  return { uid, key };
}

/** Attempt `n` of pod `key`. */
export function attempt(key: string, n = 1, uid?: string): AttemptRef {
  return { ...pod(key, uid), attempt: n };
}

/**
 * The binder and the reports over fake clients: binds, status patches and Events are
 * recorded in `calls` and answered by `behaviour` (replace its functions to fail them);
 * `notes()` lists the notes of the Events sent.
 */
export function fakeApiEffects(over: Partial<KubeEffectsOptions> = {}) {
  const calls = { bind: [] as Call[], patch: [] as Call[], event: [] as Call[] };
  const behaviour = {
    bind: async (): Promise<unknown> => ({}),
    patch: async (): Promise<unknown> => ({}),
    event: async (): Promise<unknown> => ({}),
  };
  const clients = {
    server: 'https://fake',
    http: fakeDirectHttp({
      bind: (param) => {
        calls.bind.push({ param, options: undefined });
        return behaviour.bind();
      },
      event: (param) => {
        calls.event.push({ param, options: undefined });
        return behaviour.event();
      },
    }),
    core: {
      patchNamespacedPodStatus: (param: Record<string, unknown>, options?: CallOptions) => {
        calls.patch.push({ param, options });
        return behaviour.patch();
      },
    },
  } as unknown as KubeClients;
  const { binder, reports, stop, ingested, logLines } = testEffects(clients, over);
  const notes = () => calls.event.map((c) => (c.param.body as { note: string }).note);
  return { binder, reports, stop, calls, behaviour, ingested, logLines, notes };
}
