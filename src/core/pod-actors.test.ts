// PodActors and Gangs tell the core whether a machine handled an event, what it would handle, and in which typed state it is.
import { afterEach, describe, expect, it } from 'vitest';
import { podObject } from '../../test/support/objects.ts';
import { podInfoFromObject } from '../cluster/pod-info.ts';
import type { PodInfo } from '../cluster/types.ts';
import { Gangs } from './gangs.ts';
import { type MachineRunnerKind, selectMachineRunner } from './machine-runner.ts';
import { PodActors } from './pod-actors.ts';

function info(name: string, gates: string[] = []): PodInfo {
  const obj = podObject(name, { schedulerName: 'berth', requests: { cpu: '1' } });
  const spec = obj.spec as Record<string, unknown>;
  if (gates.length > 0) spec.schedulingGates = gates.map((g) => ({ name: g }));
  const parsed = podInfoFromObject(obj);
  if ('rejected' in parsed) throw new Error(parsed.rejected);
  return parsed;
}

function actors(pods: PodInfo[]) {
  const armed: string[] = [];
  const byUid = new Map(pods.map((p) => [p.uid, p]));
  const a = new PodActors({
    backoff: { initialMs: 1000, maxMs: 10_000 },
    timers: {
      armPod: (pod, timer, deadline) => void armed.push(`${timer} ${pod.uid} @${deadline}`),
      disarmPod: () => {},
      armFlush: () => {},
    },
    now: () => 50,
    podInfo: (uid) => byUid.get(uid),
  });
  for (const p of pods) a.spawn(p);
  return { a, armed };
}

const previous = selectMachineRunner('compiled');
afterEach(() => void selectMachineRunner(previous));

describe.each<MachineRunnerKind>(['compiled', 'xstate'])('with the %s runner', (kind) => {
  it('PodActors.send says whether the pod machine handled the event; can() asks first', () => {
    selectMachineRunner(kind);
    const pod = info('p');
    const { a, armed } = actors([pod]);
    expect(a.stateOf(pod.uid)).toBe('pending');
    expect(a.can(pod.uid, { type: 'BIND_SUCCEEDED', attempt: 1 })).toBe(false);
    expect(a.send(pod.uid, { type: 'BIND_SUCCEEDED', attempt: 1 })).toBe(false);
    expect(a.stateOf(pod.uid)).toBe('pending');
    expect(a.can(pod.uid, { type: 'SCHEDULE' })).toBe(true);
    expect(a.stateOf(pod.uid)).toBe('pending');
    expect(a.send(pod.uid, { type: 'SCHEDULE' })).toBe(true);
    expect(a.inspect(pod.uid)).toMatchObject({ state: 'filtering', attempt: 1 });
    expect(a.send(pod.uid, { type: 'CYCLE_FAILED', message: 'boom', now: 50 })).toBe(true);
    expect(armed).toEqual([`backoff ${pod.uid} @1050`]);
    expect(a.stateCounts()).toEqual(new Map([['backoff', 1]]));
    expect(a.send(pod.uid, { type: 'DELETED' })).toBe(true);
    expect(a.has(pod.uid)).toBe(false);
    expect(a.send(pod.uid, { type: 'SCHEDULE' })).toBe(false);
    expect(a.can(pod.uid, { type: 'SCHEDULE' })).toBe(false);
  });

  it('spawns a gated pod into gated, out of the queue', () => {
    selectMachineRunner(kind);
    const pod = info('g', ['example.com/wait']);
    const { a } = actors([pod]);
    expect(a.stateOf(pod.uid)).toBe('gated');
    expect(a.queue.get(pod.uid)).toBeUndefined();
  });

  it('Gangs.send says whether the group machine handled the event; a step to placing from placing is handled', () => {
    selectMachineRunner(kind);
    const gangs = new Gangs();
    expect(gangs.can('ns/g', { type: 'STEP', now: 1 })).toBe(false);
    expect(gangs.send('ns/g', { type: 'ALL_BOUND' })).toBe(false);
    expect(gangs.stateOf('ns/g')).toBe('waitingForQuorum');
    expect(gangs.send('ns/g', { type: 'STEP', now: 1 })).toBe(true);
    expect(gangs.can('ns/g', { type: 'STEP', now: 2 })).toBe(true);
    expect(gangs.send('ns/g', { type: 'STEP', now: 2 })).toBe(true);
    expect(gangs.stateOf('ns/g')).toBe('placing');
    expect(gangs.contextOf('ns/g')).toMatchObject({ steps: 2, startedAt: 1 });
  });
});
