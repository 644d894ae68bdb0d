// Checks shared by the gang preemption properties: victims of lower priority only, and the victim group `old` taken whole.
import { expect } from 'vitest';

/**
 * Every victim's priority (from `priorityOf`, by pod key) is below the preemptor's
 * `priority`; if any member of group `old` is a victim, all its members placed `before`
 * (pod key → node) are.
 */
export function expectLowerAndWhole(
  victims: readonly string[],
  priorityOf: ReadonlyMap<string, number>,
  before: ReadonlyMap<string, string>,
  priority: number,
): void {
  for (const v of victims) expect(priorityOf.get(v), v).toBeLessThan(priority);
  const oldBefore = [...before.keys()].filter((k) => k.startsWith('default/old-')).sort();
  const oldEvicted = victims.filter((v) => v.startsWith('default/old-'));
  if (oldEvicted.length > 0) expect(oldEvicted).toEqual(oldBefore);
}
