// Tests that a core PodGroup blocked behind another group's fairness hold states kube's counts, and that the hold stays in force.
import { describe, expect, it } from 'vitest';
import { coreMember, corePodGroup, gangPod, given, node } from '../../test/support/gang-harness.ts';

describe("a core PodGroup's condition counts behind another group's fairness hold", () => {
  const gang = (minCount: number) => ({ schedulingPolicy: { gang: { minCount } } });
  const keyOf = (name: string) => `default/${name} (scheduling.k8s.io)`;

  /** Gang `first` (2 × 1500m) is blocked on one 2-cpu node and holds it; then gang `second` of `sizes`. */
  function behindHold(sizes: string[], minCount: number) {
    const h = given().events(node('n1', '2'), corePodGroup('first', gang(2)));
    h.pods(
      coreMember('first-0', 'first', { cpu: '1500m', created: 0 }),
      coreMember('first-1', 'first', { cpu: '1500m', created: 1 }),
    ).drain();
    h.events(corePodGroup('second', gang(minCount)));
    h.pods(
      ...sizes.map((cpu, i) => coreMember(`second-${i}`, 'second', { cpu, created: 10 + i })),
    ).drain();
    const messages = (name: string) =>
      h.effects.groups
        .filter((g) => g.key === keyOf(name) && g.initiallyScheduled !== undefined)
        .map((g) => g.initiallyScheduled?.message);
    return { h, messages };
  }

  it('counts the members that would fit without the hold when the group does not fit even so (kube holds nothing)', () => {
    const { h, messages } = behindHold(['1500m', '1500m'], 2);
    const none = 'pod group preemption: No preemption victims found for incoming preemptor';
    expect(messages('first')).toEqual([
      `minCount (2) cannot be satisfied: 1 scheduled, 0 remaining, ${none}`,
    ]);
    // With the hold, no member of `second` fits; kube, which holds nothing, fits one.
    expect(messages('second').at(-1)).toBe(
      `minCount (2) cannot be satisfied: 1 scheduled, 0 remaining, ${none}`,
    );
    // The hold is still in force, and nothing is reserved.
    expect(h.reserved()).toEqual([]);
    expect(h.broken).toEqual([]);
  });

  it("keeps berth's own count when only the hold stops the group (kube would place it)", () => {
    const { h, messages } = behindHold(['1500m'], 1);
    expect(h.reserved()).toEqual([]);
    expect(messages('second').at(-1)).toMatch(/^minCount \(1\) cannot be satisfied: 0 scheduled/);
  });

  it("states preemption's part without the hold too: a low gang behind a high one's hold reads as kube's", () => {
    const h = given().events(
      node('n1', '2'),
      node('n2', '1'),
      corePodGroup('highly', { ...gang(2), priority: 100 }),
      corePodGroup('lowly', { ...gang(2), priority: 10 }),
    );
    // A lower-priority pod whose eviction would not make room for a member.
    h.pods(gangPod('filler', { cpu: '500m', priority: 0, node: 'n2' })).drain();
    const member = (group: string, i: number, priority: number) =>
      coreMember(`${group}-${i}`, group, { cpu: '1500m', priority, created: priority + i });
    // The high gang is blocked and holds n1; then the low gang takes its first step.
    h.pods(member('highly', 0, 100), member('highly', 1, 100)).drain();
    h.pods(member('lowly', 0, 10), member('lowly', 1, 10)).drain();
    const lowly = h.effects.groups
      .filter((g) => g.key === keyOf('lowly') && g.initiallyScheduled !== undefined)
      .map((g) => g.initiallyScheduled?.message);
    // With n1 held no member fits, with or without the filler; kube, which holds nothing,
    // fits one in both trials.
    const gangPart = 'minCount (2) cannot be satisfied: 1 scheduled, 0 remaining';
    expect(lowly).toEqual([
      `${gangPart}, deallocation and deletion of ResourceClaims completed, pod group preemption: ${gangPart}`,
    ]);
    expect(h.reserved()).toEqual([]);
  });
});
