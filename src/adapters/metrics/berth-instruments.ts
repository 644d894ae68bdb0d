// berth's own metrics: the event log by type, decisions by type, leadership, bind results and failures.
import { Gauge, type Registry } from 'prom-client';
import { TalliedCounter } from './tallied-counter.ts';

/** berth's instruments, registered on one registry. */
export interface BerthInstruments {
  logEvents: TalliedCounter<'type'>;
  decisions: TalliedCounter<'type'>;
  leader: Gauge;
  bindResults: TalliedCounter<'result' | 'reason'>;
  bindFailures: TalliedCounter<'code'>;
}

/** Registers berth's own metrics on `registry`. */
export function registerBerthMetrics(registry: Registry): BerthInstruments {
  const registers = [registry];
  return {
    logEvents: new TalliedCounter({
      name: 'berth_log_events_total',
      help: "Events appended to berth's log (inputs and decisions), by event type.",
      labelNames: ['type'],
      registers,
    }),
    decisions: new TalliedCounter({
      name: 'berth_decisions_total',
      help: 'Decisions berth made, by type (PodReserved, BindRequested, PodUnschedulable, …).',
      labelNames: ['type'],
      registers,
    }),
    leader: new Gauge({
      name: 'berth_leader',
      help: 'Whether this process holds the leader lease and may write (1) or is a standby (0).',
      registers,
    }),
    bindResults: new TalliedCounter({
      name: 'berth_bind_results_total',
      help: "Results of bind calls: 'succeeded', or 'failed' with reason Conflict, NotFound or Error.",
      labelNames: ['result', 'reason'],
      registers,
    }),
    bindFailures: new TalliedCounter({
      name: 'berth_bind_failures_total',
      help: "Failed bind calls by the API server's HTTP status code (403, 409, 422, 500, …), or 'none' when no answer came (connection refused or reset, timeout).",
      labelNames: ['code'],
      registers,
    }),
  };
}
