// The GroupReports tests' harness: KubeReports over fake clients that record each status patch and Event.

import type { KubeClients } from '../../src/adapters/kube/config.ts';
import type { KubeEffectsOptions } from '../../src/adapters/kube/effects.ts';
import type { CallOptions } from '../../src/adapters/kube/request-options.ts';
import type { GroupReport } from '../../src/core/ports.ts';
import { fakeDirectHttp, testEffects } from './kube-api-doubles.ts';

/** One recorded call: its parameters and options. */
export type Call = { param: Record<string, unknown>; options: CallOptions | undefined };

/**
 * KubeReports (and binder) over fake clients: `calls` records each status patch, Event and
 * bind; `behaviour` sets their answers; `written()` lists the status patches as
 * `name phase scheduled/running`.
 */
export function setup(over: Partial<KubeEffectsOptions> = {}) {
  const calls = { status: [] as Call[], event: [] as Call[], bind: [] as Call[] };
  const behaviour = {
    status: async (): Promise<unknown> => ({}),
    event: async (): Promise<unknown> => ({}),
  };
  const clients = {
    server: 'https://fake',
    http: fakeDirectHttp({
      bind: async (param) => {
        calls.bind.push({ param, options: undefined });
        return {};
      },
    }),
    custom: {
      patchNamespacedCustomObjectStatus: (
        param: Record<string, unknown>,
        options?: CallOptions,
      ) => {
        calls.status.push({ param, options });
        return behaviour.status();
      },
    },
    events: {
      createNamespacedEvent: (param: Record<string, unknown>, options?: CallOptions) => {
        calls.event.push({ param, options });
        return behaviour.event();
      },
    },
  } as unknown as KubeClients;
  const { binder, reports, stop, ingested, logLines } = testEffects(clients, over);
  /** What each status patch wrote: `name phase scheduled/running`. */
  const written = () =>
    calls.status.map((c) => {
      const s = (c.param.body as { status: Record<string, unknown> }).status;
      return `${String(c.param.name)} ${String(s.phase)} ${String(s.scheduled)}/${String(s.running)}`;
    });
  return { binder, reports, stop, calls, behaviour, ingested, logLines, written };
}

/** A scheduler-plugins group report with the counts given. */
export function report(
  key: string,
  phase: GroupReport['phase'],
  scheduled = 0,
  running = 0,
): GroupReport {
  return { key, phase, scheduled, running, succeeded: 0, failed: 0 };
}
