// kube's preemption metrics from one batch of decisions: attempts, and victims per nomination.
import type { DecisionEvent, Envelope } from '../../events/types.ts';

/** What one batch of decisions says about preemption. */
export interface PreemptionCounts {
  /** PostFilter runs (kube's `preemption_attempts_total`): nominations and failed preemptions. */
  attempts: number;
  /** Victims of each nomination, in order (kube's `preemption_victims` observations). */
  victims: number[];
}

/** The marker berth's PodUnschedulable message carries when PostFilter (preemption) ran. */
const postFilterMarker = ' preemption: ';

/**
 * Counts as kube-scheduler 1.34's DefaultPreemption does: an attempt per PostFilter run
 * (each PodNominated, and each PodUnschedulable whose message says preemption ran) and, per
 * PodNominated, the number of VictimPreempted decisions of the same uid and attempt in the
 * same batch.
 */
export function preemptionCounts(decisions: readonly Envelope<DecisionEvent>[]): PreemptionCounts {
  const victims = new Map<string, number>();
  const nominations: string[] = [];
  let attempts = 0;
  for (const { event } of decisions) {
    const id = `${event.attempt} ${event.uid}`;
    if (event.type === 'PodNominated') {
      attempts += 1;
      nominations.push(id);
    } else if (event.type === 'VictimPreempted') {
      victims.set(id, (victims.get(id) ?? 0) + 1);
    } else if (event.type === 'PodUnschedulable' && event.message.includes(postFilterMarker)) {
      attempts += 1;
    }
  }
  return { attempts, victims: nominations.map((id) => victims.get(id) ?? 0) };
}
