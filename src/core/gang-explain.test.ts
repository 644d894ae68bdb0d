// `berth explain group`'s reasoning on small gangs: quorum, fit with each member's traced cycle, topology domains, the preemption plan, hold, timeout.
import { describe, expect, it } from 'vitest';
import { gangCore, gangGroup, gangNode, gangPod } from '../../test/support/gang-core.ts';
import { given, member, node, podGroup } from '../../test/support/gang-harness.ts';
import { nodeObject } from '../../test/support/objects.ts';
import type { InputEvent } from '../events/types.ts';
import { defaultConfig } from './config.ts';

const rack = 'topology.kubernetes.io/rack';

/** A 4-cpu node in rack `value`. */
const rackNode = (name: string, value: string): InputEvent => ({
  type: 'NodeUpserted',
  node: nodeObject(name, {
    allocatable: { cpu: '4', memory: '8Gi', pods: '110' },
    labels: { [rack]: value },
  }),
});

/** PodGroup `default/name` of `minMember` whose members must share one rack. */
const rackGroup = (name: string, minMember: number): InputEvent => ({
  type: 'ObjectUpserted',
  kind: 'PodGroup',
  object: {
    metadata: { name, namespace: 'default', annotations: { 'berth.dev/topology-key': rack } },
    spec: { minMember },
  },
});

describe('explainGroup', () => {
  it('names the quorum with its figures while members are missing, and runs no step', () => {
    const h = given().events(node('n1', '4'), podGroup('train', 3));
    h.pods(member('train-0', 'train'), member('train-1', 'train')).drain();
    const e = h.core.explainGroup('default/train');
    expect(e.waiting).toEqual({
      kind: 'quorum',
      text: 'pod group default/train has 2 of 3 members',
    });
    expect(e.quorum).toEqual({
      minMember: 3,
      members: 2,
      present: 2,
      gated: 0,
      placed: 0,
      bound: 0,
    });
    expect(e.step).toBeNull();
    expect(e.machine?.state).toBe('waitingForQuorum');
  });

  it('says the PodGroup is missing when members name one that does not exist', () => {
    const h = given().events(node('n1'));
    h.pods(member('lost-0', 'lost')).drain();
    const e = h.core.explainGroup('default/lost');
    expect(e.waiting).toEqual({
      kind: 'podGroup',
      text: 'pod group default/lost: PodGroup default/lost not found',
    });
    expect(e.quorum.minMember).toBeNull();
  });

  it("traces the step as it ran: each member's best node, then every node's reason for the one that fits nowhere", () => {
    const h = given().events(node('n1'), node('n2'), podGroup('train', 3));
    h.pods(
      member('train-0', 'train', { created: 0 }),
      member('train-1', 'train', { created: 1 }),
      member('train-2', 'train', { created: 2 }),
    ).drain();
    const e = h.core.explainGroup('default/train');
    const step = e.step;
    expect(step?.taken).toEqual(['default/train-0', 'default/train-1', 'default/train-2']);
    expect(step?.cycles.map((c) => c.node === null)).toEqual([false, false, true]);
    expect(new Set(step?.cycles.slice(0, 2).map((c) => c.node))).toEqual(new Set(['n1', 'n2']));
    const blocked = step?.cycles[2];
    expect(blocked?.explanation.check.agrees).toBe(true);
    const reasons = blocked?.explanation.nodes.map((n) => `${n.node}: ${n.rejection?.reasons}`);
    expect(reasons?.sort()).toEqual(['n1: Insufficient cpu', 'n2: Insufficient cpu']);
    // The message is the one the step gave the members, word for word.
    expect(step?.message).toBe(h.effects.unschedulable.get('default/train-2'));
    expect(e.waiting.kind).toBe('fit');
    expect(e.waiting.text.startsWith(step?.message as string)).toBe(true);
    expect(step?.notTried).toEqual([]);
  });

  it('leaves the core as it was: the next cycle decides as if nothing had been explained', () => {
    const run = (explain: boolean) => {
      const h = given().events(node('n1'), node('n2'), podGroup('train', 3));
      // Before its first step: the first member's cycle breaks a tie with the generator.
      h.pods(member('train-0', 'train'), member('train-1', 'train'), member('train-2', 'train'));
      // The trial's reservations are undone; only the cache generations move, as in a real step.
      const state = () => JSON.stringify(h.core.snapshot()).replace(/"generation":\d+/g, '');
      const before = state();
      if (explain) h.core.explainGroup('default/train');
      expect(state()).toBe(before);
      h.drain();
      return h.decisions;
    };
    expect(run(true)).toEqual(run(false));
  });

  it('says the next step would place a group that fits now, and that a placed group is placed', () => {
    const h = given().events(node('n1'), podGroup('train', 2));
    h.pods(member('train-0', 'train'), member('train-1', 'train')).drain();
    h.events(node('n2'));
    expect(h.core.explainGroup('default/train').waiting).toEqual({
      kind: 'ready',
      text: 'its next gang step would place all 2 member(s) it needs',
    });
    h.flush().drain().confirmBinds();
    expect(h.core.explainGroup('default/train').waiting).toEqual({
      kind: 'placed',
      text: '2 of minMember 2 members placed (2 bound): further members are scheduled one by one',
    });
  });

  it('shows the domains tried, tightest first, and why each was rejected', () => {
    const h = given().events(
      rackNode('a-1', 'rack-a'),
      rackNode('b-1', 'rack-b'),
      rackNode('b-2', 'rack-b'),
      rackGroup('ring', 3),
    );
    h.pods(
      member('ring-0', 'ring', { cpu: '2500m' }),
      member('ring-1', 'ring', { cpu: '2500m' }),
      member('ring-2', 'ring', { cpu: '2500m' }),
    ).drain();
    const t = h.core.explainGroup('default/ring').step?.topology;
    expect(t?.key).toBe(rack);
    // rack-a (4 cpu) cannot hold 7.5 cpu; rack-b (8) can by its sum, but a node takes one member.
    expect(t?.domains.map((d) => [d.domain, d.result, d.short ?? d.fitted])).toEqual([
      ['rack-a', 'short', 'cpu'],
      ['rack-b', 'blocked', 2],
    ]);
    expect(t?.domains[1]?.blockedPod).toBe('default/ring-2');
    expect(t?.shown).toBe('rack-b');
    // Gang preemption is planned for it too: no pod runs, so none can be evicted.
    expect(h.core.explainGroup('default/ring').step?.preemption).toMatchObject({
      kind: 'refused',
      message: 'No preemption victims found for incoming pod group',
    });
  });

  it('shows the victims gang preemption would evict, and that the whole group then fits', () => {
    const h = gangCore({ ...defaultConfig }).events(
      gangNode('n1'),
      gangNode('n2'),
      gangNode('n3'),
      gangGroup('train', 2),
    );
    h.pods(
      gangPod('low-1', { node: 'n1', priority: 10 }),
      gangPod('low-2', { node: 'n2', priority: 10 }),
      gangPod('low-3', { node: 'n3', priority: 10 }),
    );
    // The members arrive without a cycle run: the explanation is of the step to come.
    h.pods(gangPod('train-0', { group: 'train', priority: 100 }));
    h.pods(gangPod('train-1', { group: 'train', priority: 100, created: 1 }));
    const p = h.core.explainGroup('default/train').step?.preemption;
    expect(p?.kind).toBe('plan');
    if (p?.kind !== 'plan') return;
    expect(p.pods).toBe(2);
    expect(p.victims.every((v) => !v.group && v.priority === 10)).toBe(true);
    expect(p.placements.map((x) => x.pod)).toEqual(['default/train-0', 'default/train-1']);
    // The step then takes exactly that plan.
    h.drain();
    const evicted = h.evictions.map((v) => v.victim.key).sort();
    expect(evicted).toEqual(p.victims.flatMap((v) => v.pods.map((x) => x.pod)).sort());
    expect(h.core.explainGroup('default/train').waiting).toEqual({
      kind: 'preempting',
      text: '2 member(s) nominated by its gang preemption wait for 2 victim(s) to go',
    });
  });

  it("names another group's hold when its held nodes are what the blocked member finds taken", () => {
    const h = given().events(node('n1'), node('n2'), podGroup('big', 3), podGroup('small', 1));
    h.pods(
      member('big-0', 'big', { priority: 100 }),
      member('big-1', 'big', { priority: 100 }),
      member('big-2', 'big', { priority: 100 }),
    ).drain();
    h.pods(member('small-0', 'small', { priority: 100, created: 5 })).drain();
    const e = h.core.explainGroup('default/small');
    expect(e.hold?.group).toBe('default/big');
    expect(e.waiting.kind).toBe('hold');
    expect(e.waiting.text).toMatch(
      /^pod group default\/big holds 2 node place\(s\) since t=1000ms \(until t=61000ms\); default\/small-0's cycle finds n[12] \(held for default\/big-\d\), n[12] \(held for default\/big-\d\) taken: /,
    );
    // The holder itself is blocked on fit, and says it holds.
    expect(h.core.explainGroup('default/big').waiting.text).toContain(
      'it holds 2 node place(s) since t=1000ms, released at t=61000ms',
    );
  });

  it('names the timeout once a hold has expired and the group may not hold again yet', () => {
    const h = given().events(
      node('n1'),
      node('n2'),
      podGroup('big', 3, { scheduleTimeoutSeconds: 10 }),
    );
    h.pods(member('big-0', 'big'), member('big-1', 'big'), member('big-2', 'big')).drain();
    h.later(10_000).flush().drain();
    const e = h.core.explainGroup('default/big');
    expect(e.coolingUntil).toBe(21_000);
    expect(e.waiting.kind).toBe('timeout');
    expect(e.waiting.text).toMatch(
      /^its hold timed out: it may not hold nodes again until t=21000ms \(now t=11000ms\); pod group default\/big: 2 of 3 members fit; /,
    );
  });
});
