// PodTopologySpread's critical paths: the two domains with the fewest matching pods, kept in O(1) per change.

/** A domain (topology value) and its matching pods. */
export interface CriticalPath {
  value: string;
  num: number;
}

/**
 * kube's criticalPaths: `[0]` always holds the minimum count; `[1]` is ≥ it, the second
 * minimum after PreFilter but not always after changes. That is enough while the changes
 * all touch one domain per constraint (one what-if node, as in preemption and nominated
 * pods), the only way AddPod/RemovePod change a state.
 */
export type CriticalPaths = [CriticalPath, CriticalPath];

/** Paths over no domain yet (kube's newCriticalPaths: empty values, "infinite" counts). */
export function newCriticalPaths(): CriticalPaths {
  return [
    { value: '', num: Number.POSITIVE_INFINITY },
    { value: '', num: Number.POSITIVE_INFINITY },
  ];
}

/** A copy that later updates leave the original alone. */
export function cloneCriticalPaths(p: CriticalPaths): CriticalPaths {
  return [{ ...p[0] }, { ...p[1] }];
}

/**
 * kube's criticalPaths.update: the domain `value` now has `num` matching pods. A tracked
 * domain takes the new count (the two swap when out of order); another one enters when
 * below either count.
 */
export function updateCriticalPaths(p: CriticalPaths, value: string, num: number): void {
  const tracked = value === p[0].value ? p[0] : value === p[1].value ? p[1] : undefined;
  if (tracked !== undefined) {
    tracked.num = num;
    if (p[0].num > p[1].num) {
      const first = p[0];
      p[0] = p[1];
      p[1] = first;
    }
    return;
  }
  if (num < p[0].num) {
    p[1] = p[0];
    p[0] = { value, num };
  } else if (num < p[1].num) {
    p[1] = { value, num };
  }
}
