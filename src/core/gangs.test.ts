// Gang scheduling in the core: quorum, one all-or-nothing step per group, members beyond minMember, bind failures, reports.
import { describe, expect, it } from 'vitest';
import { given, member, node, podGroup, upsert } from '../../test/support/gang-harness.ts';
import { podObject } from '../../test/support/objects.ts';
import { defaultConfig } from './config.ts';
import { Scheduler } from './scheduler.ts';

describe('gang scheduling', () => {
  it('keeps members waiting, taking no capacity, until minMember of them exist', () => {
    const h = given().events(node('n1', '8'), podGroup('train', 4));
    h.events(
      upsert(member('w0', 'train')),
      upsert(member('w1', 'train')),
      upsert(member('w2', 'train')),
    );
    h.drain();
    expect(h.reserved()).toEqual([]);
    expect(h.effects.unschedulable.get('default/w0')).toBe(
      'pod group default/train has 3 of 4 members',
    );
    expect(h.core.pendingReasons().get('default/w2')).toBe(
      'pod group default/train has 3 of 4 members',
    );
    h.events(upsert(member('w3', 'train'))).drain();
    expect(h.reserved()).toEqual(['default/w0', 'default/w1', 'default/w2', 'default/w3']);
    expect(h.effects.binds).toHaveLength(4);
    expect(h.broken).toEqual([]);
  });

  it('reserves nothing when the group does not fit whole, and places it whole when room appears', () => {
    const h = given().events(node('n1'), node('n2'), node('n3'), podGroup('train', 4));
    for (let i = 0; i < 4; i++) h.events(upsert(member(`w${i}`, 'train', { created: i })));
    h.drain();
    expect(h.reserved()).toEqual([]);
    expect(h.effects.binds).toEqual([]);
    expect(h.effects.unschedulable.get('default/w1')).toBe(
      'pod group default/train: 3 of 4 members fit; 0/3 nodes are available for default/w3: 3 Insufficient cpu.',
    );
    h.later(20_000).events(node('n4')).drain();
    expect(h.reserved()).toEqual(['default/w0', 'default/w1', 'default/w2', 'default/w3']);
    expect(new Set(h.effects.binds.map((b) => b.node))).toEqual(new Set(['n1', 'n2', 'n3', 'n4']));
    expect(h.broken).toEqual([]);
  });

  it('lets one of two competing groups run whole and keeps the other waiting without a partial placement', () => {
    const h = given().events(node('n1'), node('n2'), podGroup('a', 2), podGroup('b', 2));
    h.pods(member('a0', 'a', { created: 1 }), member('b0', 'b', { created: 2 }));
    h.pods(member('a1', 'a', { created: 3 }), member('b1', 'b', { created: 4 }));
    h.drain();
    expect(h.reserved()).toEqual(['default/a0', 'default/a1']);
    expect(h.effects.unschedulable.get('default/b0')).toMatch(
      /^pod group default\/b: 0 of 2 members fit; /,
    );
    h.confirmBinds();
    h.later(1_000).events(
      { type: 'PodDeleted', uid: 'a0-uid', key: 'default/a0' },
      { type: 'PodDeleted', uid: 'a1-uid', key: 'default/a1' },
    );
    h.later(20_000).drain();
    expect(h.reserved()).toEqual(['default/a0', 'default/a1', 'default/b0', 'default/b1']);
  });

  it('places minMember members together, then the rest one by one', () => {
    const h = given().events(node('n1', '3'), podGroup('train', 2));
    for (let i = 0; i < 4; i++) h.events(upsert(member(`w${i}`, 'train', { created: i })));
    h.drain();
    expect(h.reserved()).toEqual(['default/w0', 'default/w1', 'default/w2']);
    expect(h.effects.unschedulable.get('default/w3')).toBe(
      '0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.',
    );
  });

  it('takes the highest-priority members first, then the oldest', () => {
    const h = given().events(node('n1', '2'), podGroup('train', 2));
    h.events(
      upsert(member('old', 'train', { created: 1 })),
      upsert(member('young', 'train', { created: 5 })),
      upsert(member('high', 'train', { created: 9, priority: 10 })),
    );
    h.drain();
    expect(h.reserved()).toEqual(['default/high', 'default/old']);
  });

  it('says when the PodGroup, or its API, is missing', () => {
    const h = given().events(node('n1', '4'));
    h.events(upsert(member('w0', 'ghost'))).drain();
    expect(h.effects.unschedulable.get('default/w0')).toBe(
      'pod group default/ghost: PodGroup default/ghost not found',
    );
    h.later(20_000).events({ type: 'ResyncStarted', kind: 'PodGroup' });
    h.events({
      type: 'ResyncDone',
      kind: 'PodGroup',
      unavailable: 'the server could not find the requested resource',
    });
    h.drain();
    expect(h.effects.unschedulable.get('default/w0')).toBe(
      'pod group default/ghost: the PodGroup API (scheduling.x-k8s.io/v1alpha1) is not served: the server could not find the requested resource',
    );
    h.later(20_000).events({ type: 'ResyncStarted', kind: 'PodGroup' }, podGroup('ghost', 1));
    h.events({ type: 'ResyncDone', kind: 'PodGroup' }).drain();
    expect(h.reserved()).toEqual(['default/w0']);
  });

  it('re-plans only the member whose bind failed; the others keep their places', () => {
    const h = given().events(node('n1', '2'), node('n2', '2'), podGroup('train', 3));
    for (let i = 0; i < 3; i++) h.pods(member(`w${i}`, 'train', { created: i }));
    h.drain();
    const [first, ...rest] = h.effects.binds.splice(0);
    h.effects.binds.push(...rest);
    h.confirmBinds();
    h.events({
      type: 'BindFailed',
      ...first!.attempt,
      node: first!.node,
      reason: 'Error',
      message: 'boom',
    });
    h.later(5_000).events({
      type: 'TimerFired',
      timer: 'backoff',
      uid: first!.attempt.uid,
      key: first!.attempt.key,
    });
    h.drain();
    const again = h.decisions.filter(
      (d) => d.type === 'PodReserved' && d.uid === first!.attempt.uid,
    );
    expect(again).toHaveLength(2);
    expect(h.effects.binds.map((b) => b.attempt.uid)).toEqual([first!.attempt.uid]);
    expect(h.broken).toEqual([]);
  });

  it('checks minResources against the free capacity first', () => {
    const h = given().events(node('n1', '2'), podGroup('train', 1, { minResources: { cpu: '3' } }));
    h.events(upsert(member('w0', 'train'))).drain();
    expect(h.reserved()).toEqual([]);
    expect(h.effects.unschedulable.get('default/w0')).toBe(
      'pod group default/train: minResources cpu 3000m exceeds the 2000m free on schedulable nodes',
    );
  });

  it('reports the PodGroup status as the group goes', () => {
    const h = given().events(node('n1', '4'), podGroup('train', 2));
    h.pods(member('w0', 'train'), member('w1', 'train')).drain();
    expect(h.effects.groups.at(-1)).toMatchObject({
      key: 'default/train',
      phase: 'Scheduling',
      scheduled: 0,
    });
    h.confirmBinds();
    expect(h.effects.groups.at(-1)).toMatchObject({
      phase: 'Scheduled',
      scheduled: 2,
      scheduleStartMs: 1_000,
    });
  });

  it('schedules labelled pods one by one when the log predates gangs', () => {
    const { gangs: _off, ...old } = defaultConfig;
    const h = given(old).events(node('n1', '1'), podGroup('train', 2));
    h.events(upsert(member('w0', 'train')), upsert(member('w1', 'train'))).drain();
    expect(h.reserved()).toEqual(['default/w0']);
  });

  it('restores mid-way from a snapshot and goes on to the same decisions', () => {
    const run = (cut: boolean) => {
      let h = given().events(node('n1'), node('n2'), podGroup('train', 3));
      for (let i = 0; i < 3; i++) h.events(upsert(member(`w${i}`, 'train', { created: i })));
      h.drain();
      if (cut) {
        const snap = JSON.parse(JSON.stringify(h.core.snapshot()));
        const restored = Scheduler.restore(snap, { config: defaultConfig, seed: 0 });
        h = { ...h, core: restored.core } as typeof h;
      }
      const out: string[] = [];
      h.core.ingest(node('n3'), 30_000);
      const cycle = () => h.core.cycle(30_000).decisions;
      for (let d = cycle(); d.length > 0; d = cycle())
        out.push(...d.map((e) => `${e.event.type} ${'key' in e.event ? e.event.key : ''}`));
      return out;
    };
    expect(run(true)).toEqual(run(false));
    expect(run(false).filter((d) => d.startsWith('PodReserved'))).toHaveLength(3);
  });

  describe('fairness: the first blocked group holds the nodes where its members fit', () => {
    const single = (name: string, created: number) => {
      const p = podObject(name, { schedulerName: 'berth', requests: { cpu: '1' } });
      p.metadata.uid = `${name}-uid`;
      p.metadata.creationTimestamp = new Date(Date.UTC(2026, 0, 1, 0, 0, created)).toISOString();
      return p;
    };

    /** 4 one-cpu nodes full of single pods; a group of 4 waits; singles finish one by one as new ones arrive. */
    function stream(h: ReturnType<typeof given>, rounds: number) {
      for (let i = 0; i < 4; i++) h.pods(single(`old${i}`, i));
      h.drain().confirmBinds();
      h.events(podGroup('train', 4));
      for (let i = 0; i < 4; i++) h.pods(member(`w${i}`, 'train', { created: 10 + i }));
      h.drain();
      for (let r = 0; r < rounds; r++) {
        h.later(2_000)
          .remove(`old${r}`)
          .pods(single(`new${r}`, 100 + r));
        h.drain().confirmBinds();
      }
    }

    it('places the group once enough single pods finish, while newer single pods wait', () => {
      const h = given().events(node('n1'), node('n2'), node('n3'), node('n4'));
      stream(h, 4);
      expect(h.reserved().filter((k) => k.startsWith('default/w'))).toEqual([
        'default/w0',
        'default/w1',
        'default/w2',
        'default/w3',
      ]);
      expect(h.reserved().filter((k) => k.startsWith('default/new'))).toEqual([]);
      expect(h.decisions.filter((d) => d.type === 'PodHeld').map((d) => d.key)).toEqual([
        'default/w0',
        'default/w1',
        'default/w2',
      ]);
      expect(h.effects.unschedulable.get('default/new3')).toMatch(
        /^0\/4 nodes are available: 4 Insufficient cpu/,
      );
      expect(h.broken).toEqual([]);
    });

    it("releases the hold after the group's schedule timeout, with an Event, and lets others have the nodes", () => {
      const h = given().events(node('n1'), node('n2'), node('n3'), node('n4'));
      stream(h, 2);
      expect(h.core.state.nominated.size).toBe(2);
      h.later(61_000).flush();
      expect(h.core.state.nominated.size).toBe(0);
      const timeout = h.effects.groups.find((g) => g.event !== undefined);
      expect(timeout?.event).toEqual({
        type: 'Warning',
        reason: 'GangTimeout',
        message:
          'pod group default/train: not placed within its schedule timeout (60s); released the 2 node place(s) held for it',
      });
      h.later(20_000).drain();
      expect(h.reserved().filter((k) => k.startsWith('default/new'))).toEqual([
        'default/new0',
        'default/new1',
      ]);
      expect(h.reserved().filter((k) => k.startsWith('default/w'))).toEqual([]);
    });

    it('lets a group that ranks before the holder take the hold over', () => {
      const h = given().events(node('n1'), node('n2'));
      h.events(podGroup('low', 3), podGroup('high', 3));
      for (let i = 0; i < 3; i++) h.pods(member(`l${i}`, 'low', { created: i }));
      h.drain();
      expect(h.decisions.filter((d) => d.type === 'PodHeld').map((d) => d.key)).toEqual([
        'default/l0',
        'default/l1',
      ]);
      for (let i = 0; i < 3; i++) h.pods(member(`h${i}`, 'high', { created: 50 + i, priority: 5 }));
      h.drain();
      expect(h.decisions.filter((d) => d.type === 'PodHeld').map((d) => d.key)).toEqual([
        'default/l0',
        'default/l1',
        'default/h0',
        'default/h1',
      ]);
      expect(h.decisions.filter((d) => d.type === 'NominationCleared').map((d) => d.key)).toEqual([
        'default/l0',
        'default/l1',
      ]);
    });
  });
});
