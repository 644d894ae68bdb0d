// The gang step's search: mixed members and anti-affinity placed where kube's one pass gives up; alike members tried once.
import { describe, expect, it } from 'vitest';
import { gangPod, given, member, node, podGroup } from '../../test/support/gang-harness.ts';
import { nodeObject, podObject } from '../../test/support/objects.ts';
import { podInfoFromObject } from '../cluster/pod-info.ts';
import type { PodInfo } from '../cluster/types.ts';
import type { InputEvent } from '../events/types.ts';
import { type BerthConfig, defaultConfig } from './config.ts';
import { searchGroup } from './gang-search.ts';
import type { GangMember, GangTrial } from './gang-step.ts';

/** A node with its hostname label (what per-node anti-affinity counts by). */
const hostNode = (name: string, cpu: string): InputEvent => ({
  type: 'NodeUpserted',
  node: nodeObject(name, {
    allocatable: { cpu, memory: '8Gi', pods: '110' },
    labels: { 'kubernetes.io/hostname': name },
  }),
});

/**
 * A 2-cpu and a 1-cpu node, group `mixed` of `small` (1 cpu, older) and `big` (`bigCpu`):
 * small, first in gang order, takes the 2-cpu node (least allocated), then big fits nowhere.
 */
function mixed(bigCpu: string, config: BerthConfig = defaultConfig) {
  const h = given(config).events(node('n1', '2'), node('n2', '1'), podGroup('mixed', 2));
  h.pods(
    member('small', 'mixed', { cpu: '1', created: 1 }),
    member('big', 'mixed', { cpu: bigCpu, created: 2 }),
  );
  return h.drain();
}

describe('the gang step searches past the first pass', () => {
  it('places mixed members the first pass cannot: the big one goes first, each on the node it alone fits', () => {
    const h = mixed('2');
    const binds = Object.fromEntries(h.effects.binds.map((b) => [b.attempt.key, b.node]));
    expect(binds).toEqual({ 'default/big': 'n1', 'default/small': 'n2' });
    expect(h.broken).toEqual([]);
  });

  it('places a member that must avoid a guard pod, though the one before it took the only node it may use', () => {
    const h = given().events(hostNode('a', '2'), hostNode('b', '2'), podGroup('picky', 2));
    const guard = gangPod('guard', { cpu: '100m', node: 'a' });
    guard.metadata.labels = { role: 'guard' };
    const free = member('free', 'picky', { cpu: '1500m', created: 1 });
    const avoid = member('avoid', 'picky', { cpu: '1500m', created: 2 });
    avoid.spec.affinity = {
      podAntiAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: [
          {
            labelSelector: { matchLabels: { role: 'guard' } },
            topologyKey: 'kubernetes.io/hostname',
          },
        ],
      },
    };
    h.pods(guard, free, avoid).drain();
    const binds = Object.fromEntries(h.effects.binds.map((b) => [b.attempt.key, b.node]));
    expect(binds).toEqual({ 'default/avoid': 'b', 'default/free': 'a' });
    expect(h.broken).toEqual([]);
  });

  it('makes one pass, as recorded, under a config without gangs.search (an older log)', () => {
    const h = mixed('2', {
      ...defaultConfig,
      gangs: { scheduleTimeoutMs: 60_000, preemption: true },
    });
    expect(h.effects.binds).toEqual([]);
    expect(h.effects.unschedulable.get('default/big')).toBe(
      'pod group default/mixed: 1 of 2 members fit; 0/2 nodes are available for default/big: 2 Insufficient cpu.',
    );
  });

  it("keeps the first pass's message when no order places the group", () => {
    const h = mixed('3');
    expect(h.effects.binds).toEqual([]);
    expect(h.effects.unschedulable.get('default/small')).toBe(
      'pod group default/mixed: 1 of 2 members fit; 0/2 nodes are available for default/big: 2 Insufficient cpu.',
    );
  });
});

describe('searchGroup', () => {
  const m = (name: string, cpu: string): GangMember => ({
    info: podInfoFromObject(podObject(name, { requests: { cpu } })) as PodInfo,
    attempt: 0,
  });
  /** A pass that places members until it meets `stuck` (by name), recording each order tried. */
  function passes(stuckIn: (order: readonly GangMember[]) => string | undefined) {
    const tried: string[][] = [];
    const tryOrder = (order: readonly GangMember[]): GangTrial => {
      tried.push(order.map((x) => x.info.name));
      const stuck = stuckIn(order);
      const at = order.findIndex((x) => x.info.name === stuck);
      if (at < 0) return { kind: 'placed', placements: order.map((x) => ({ ...x, node: 'n' })) };
      return {
        kind: 'blocked',
        fitted: at,
        placements: order.slice(0, at).map((x) => ({ ...x, node: 'n' })),
        member: order[at] as GangMember,
        result: {
          kind: 'Unschedulable',
          message: 'no',
          diagnosis: { unschedulablePlugins: new Set(['NodeResourcesFit']) },
        } as unknown as Extract<GangTrial, { kind: 'blocked' }>['result'],
      };
    };
    return { tried, tryOrder };
  }

  it('tries alike members once', () => {
    const p = passes((order) => order[2]?.info.name);
    const out = searchGroup([m('w0', '1'), m('w1', '1'), m('w2', '1')], p.tryOrder);
    expect(out.kind).toBe('blocked');
    expect(p.tried).toEqual([['w0', 'w1', 'w2']]);
  });

  it('moves each unlike member that did not fit to the front at most once, and answers with the first pass', () => {
    // Whatever comes last is stuck: every order fails.
    const p = passes((order) => order.at(-1)?.info.name);
    const members = [m('a', '1'), m('b', '2'), m('c', '3')];
    const out = searchGroup(members, p.tryOrder);
    expect(p.tried).toEqual([
      ['a', 'b', 'c'],
      ['c', 'a', 'b'],
      ['b', 'c', 'a'],
      ['a', 'b', 'c'],
    ]);
    expect(out.kind === 'blocked' && out.member.info.name).toBe('c');
  });
});
