// What watches the log as a live run writes it (metrics, bind health): the runtime calls it, adapters implement it.
import type { DecisionEvent, Envelope } from './types.ts';

/** Watches a live run for metrics: every envelope, and every cycle with its duration. */
export interface LiveObserver {
  /** Every input and decision, as it enters the log. */
  envelope?(env: Envelope): void;
  /** A scheduling cycle ran: its decisions and how long it took (seconds). */
  cycle?(decisions: Envelope<DecisionEvent>[], seconds: number): void;
  /** Leadership changed (also called once at start with the initial value). */
  leading?(leading: boolean): void;
}
