// kube's pickOneNodeForPreemption: the candidate node whose eviction does the least harm.
import type { NodeVictims } from './victims.ts';
import { startTimeOf } from './victims.ts';

/** Priorities are int32; kube adds this to each before summing, so every victim counts. */
const priorityOffset = 2 ** 31;

/**
 * kube's earliest start time among the victims of the highest priority (the victims are
 * most important first, so that is the first victim's priority).
 */
function earliestStartOfTopVictims(c: NodeVictims, now: number): number {
  const first = c.victims[0];
  if (first === undefined) return Number.NEGATIVE_INFINITY;
  let top = first.priority;
  let earliest = startTimeOf(first, now);
  for (const v of c.victims) {
    if (v.priority > top) {
      top = v.priority;
      earliest = startTimeOf(v, now);
    } else if (v.priority === top) earliest = Math.min(earliest, startTimeOf(v, now));
  }
  return earliest;
}

/**
 * kube's tie-breaks, each keeping the candidates with the highest value: fewest budget
 * violations, lowest highest-victim priority, smallest sum of (priority + 2^31), fewest
 * victims, latest start among the highest-priority victims.
 */
function scoreFunctions(now: number): ((c: NodeVictims) => number)[] {
  return [
    (c) => -c.budgetViolations,
    (c) => -(c.victims[0]?.priority ?? 0),
    (c) => -c.victims.reduce((sum, v) => sum + v.priority + priorityOffset, 0),
    (c) => -c.victims.length,
    (c) => earliestStartOfTopVictims(c, now),
  ];
}

/**
 * The candidate to preempt on (kube 1.34 pickOneNodeForPreemption), or undefined for none.
 * Each rule in turn keeps the candidates scoring highest; when one is left it wins. When
 * several tie on every rule, kube takes whichever its map yields first (random); berth
 * takes the first in `candidates`' order, which the seeded walk made.
 */
export function pickOneNodeForPreemption(
  candidates: readonly NodeVictims[],
  now: number,
): NodeVictims | undefined {
  let left = [...candidates];
  if (left.length <= 1) return left[0];
  for (const f of scoreFunctions(now)) {
    let best = Number.NEGATIVE_INFINITY;
    let kept: NodeVictims[] = [];
    for (const c of left) {
      const score = f(c);
      if (score > best) {
        best = score;
        kept = [c];
      } else if (score === best) kept.push(c);
    }
    if (kept.length === 1) return kept[0];
    left = kept;
  }
  return left[0];
}
