// The waiting preemptors' victims: a victim chosen by two preemptors frees both when it goes.
import { describe, expect, it } from 'vitest';
import { Preemptions } from './preemptions.ts';

/** Preemptors `first` then `second`, both nominated to n1, both waiting for `victim`. */
function sharingOneVictim(): Preemptions {
  const p = new Preemptions();
  p.start('first', 'n1');
  p.addVictim('first', 'victim');
  p.start('second', 'n1');
  p.addVictim('second', 'victim');
  return p;
}

describe('Preemptions', () => {
  it('lets two preemptors wait for one victim, and hands its leaving to both', () => {
    const p = sharingOneVictim();
    p.addVictim('second', 'other');
    expect(p.victimsLeft('first')).toBe(1);
    expect(p.victimNode('victim')).toBe('n1');
    expect(p.victimGone('victim')).toEqual(['first', 'second']);
    expect(p.victimsLeft('first')).toBe(0);
    expect(p.victimsLeft('second')).toBe(1);
    expect(p.victimGone('victim')).toEqual([]);
  });

  it('forgets a preemptor without taking the shared victim from the other', () => {
    const p = sharingOneVictim();
    p.forget('first');
    expect(p.hasVictims()).toBe(true);
    expect(p.victimGone('victim')).toEqual(['second']);
    p.forget('second');
    expect(p.hasVictims()).toBe(false);
  });

  it('snapshots and loads shared victims for each preemptor', () => {
    const p = sharingOneVictim();
    const loaded = Preemptions.load(p.snapshot());
    expect(loaded.snapshot()).toEqual(p.snapshot());
    expect(loaded.victimGone('victim')).toEqual(['first', 'second']);
  });
});
