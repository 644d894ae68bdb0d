// The core's DRA PostFilter deallocation: the deallocateClaim command it issues, a refusal reported on the pod, the requeue on the claim's update and the new allocation.
import { describe, expect, it } from 'vitest';
import { allocationOn, pinnedObjects, pinnedPod } from '../../test/support/dra-pinned.ts';
import { nodeObject } from '../../test/support/objects.ts';
import type { DecisionEvent, InputEvent } from '../events/types.ts';
import type { ObjectKind } from '../model/kinds.ts';
import type { JsonRecord } from '../model/record.ts';
import type { Command } from './commands.ts';
import { defaultConfig } from './config.ts';
import { Scheduler } from './scheduler.ts';

/** A core that has seen n1, n2, the DRA objects and pod ml/p, and has run one cycle. */
function failedOnce() {
  const core = new Scheduler({ config: defaultConfig, seed: 1 });
  core.start(0);
  let now = 0;
  const commands: Command[] = [];
  const decisions: DecisionEvent[] = [];
  const feed = (e: InputEvent) => {
    const step = core.ingest(e, ++now);
    commands.push(...step.commands);
    decisions.push(...step.decisions.map((d) => d.event));
  };
  const cycle = () => {
    const step = core.cycle(++now);
    commands.push(...step.commands);
    decisions.push(...step.decisions.map((d) => d.event));
  };
  for (const n of ['n1', 'n2']) feed({ type: 'NodeUpserted', node: nodeObject(n) });
  for (const o of pinnedObjects())
    feed({ type: 'ObjectUpserted', kind: o.kind as ObjectKind, object: o });
  feed({ type: 'PodUpserted', pod: pinnedPod() });
  cycle();
  const at = (time: number) => {
    now = time - 1;
  };
  return { core, commands, decisions, feed, cycle, at };
}

const reports = (commands: Command[]) =>
  commands.flatMap((c) => (c.kind === 'reportUnschedulable' ? [[c.reason, c.message]] : []));

describe('core: DynamicResources PostFilter deallocation', () => {
  it('issues deallocateClaim for the attempt, after reporting the pod unschedulable', () => {
    const t = failedOnce();
    const kinds = t.commands.map((c) => c.kind);
    expect(kinds.indexOf('deallocateClaim')).toBeGreaterThan(kinds.indexOf('reportUnschedulable'));
    expect(t.commands.find((c) => c.kind === 'deallocateClaim')).toEqual({
      kind: 'deallocateClaim',
      pod: { uid: 'uid-p', key: 'ml/p', attempt: 1 },
      claim: { key: 'ml/c1', uid: 'uid-c1', resourceVersion: '7' },
    });
  });

  it('reports a refused deallocation on the pod, and ignores one of an older attempt', () => {
    const t = failedOnce();
    t.commands.length = 0;
    const claim = { key: 'ml/c1', uid: 'uid-c1' };
    const refused = { uid: 'uid-p', key: 'ml/p', claim, message: 'forbidden' };
    t.feed({ type: 'ClaimDeallocationFailed', ...refused, attempt: 7 });
    expect(reports(t.commands)).toEqual([]);
    t.feed({ type: 'ClaimDeallocationFailed', ...refused, attempt: 1 });
    expect(reports(t.commands)).toEqual([
      ['SchedulerError', 'deallocation of ResourceClaim ml/c1 failed: forbidden'],
    ]);
  });

  it('requeues the pod when the claim shows no allocation, and allocates it on n2', () => {
    const t = failedOnce();
    const claim = pinnedObjects().at(-1) as JsonRecord;
    const { status: _gone, ...deallocated } = claim;
    t.decisions.length = 0;
    t.commands.length = 0;
    t.feed({
      type: 'ObjectUpserted',
      kind: 'ResourceClaim',
      object: {
        ...deallocated,
        metadata: { ...(claim.metadata as JsonRecord), resourceVersion: '8' },
      },
    });
    // Requeued: the parked pod waits out its backoff (armed now), then is tried again.
    const armed = t.commands.filter((c) => c.kind === 'armPodTimer' && c.pod.uid === 'uid-p');
    const backoff = armed.at(-1);
    if (backoff?.kind !== 'armPodTimer') throw new Error('the claim update requeued nothing');
    t.commands.length = 0;
    t.at(backoff.deadline);
    t.feed({ type: 'TimerFired', timer: 'backoff', uid: 'uid-p', key: 'ml/p' });
    t.cycle();
    expect(t.decisions.map((d) => d.type)).toEqual(['PodReserved', 'BindRequested']);
    expect(t.decisions[0]).toMatchObject({
      attempt: 2,
      node: 'n2',
      claims: [{ key: 'ml/c1', allocation: { devices: allocationOn('n2').devices } }],
    });
  });
});
