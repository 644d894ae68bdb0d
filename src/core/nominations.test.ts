// Given/when/then: nominations berth did not make (set by another component) and a pod's own nomination, by release.
import { describe, expect, it } from 'vitest';
import { nodeObject, podObject } from '../../test/support/objects.ts';
import type { DecisionEvent, InputEvent } from '../events/types.ts';
import type { KubeRelease } from '../model/kube-release.ts';
import type { PodObject } from '../model/objects.ts';
import type { Command, NominateCommand } from './commands.ts';
import { defaultConfig } from './config.ts';
import { Scheduler } from './scheduler.ts';

interface PodOpts {
  cpu?: string;
  priority?: number;
  nominated?: string;
  nodeName?: string;
  nodeSelector?: Record<string, string>;
  gated?: boolean;
  never?: boolean;
  scheduler?: string;
}

/** A berth pod (uid `<name>-1`) with the given requests, priority and status.nominatedNodeName. */
function pod(name: string, o: PodOpts = {}): PodObject {
  const p = podObject(name, {
    schedulerName: o.scheduler ?? 'berth',
    requests: { cpu: o.cpu ?? '1' },
    ...(o.priority === undefined ? {} : { priority: o.priority }),
    ...(o.nodeName === undefined ? {} : { nodeName: o.nodeName }),
  });
  p.metadata.uid = `${name}-1`;
  if (o.nominated !== undefined) p.status = { ...p.status, nominatedNodeName: o.nominated };
  if (o.nodeSelector !== undefined) p.spec.nodeSelector = o.nodeSelector;
  if (o.gated === true) p.spec.schedulingGates = [{ name: 'example.com/wait' }];
  if (o.never === true) p.spec.preemptionPolicy = 'Never';
  return p;
}

const node = (name: string, cpu = '4'): InputEvent => ({
  type: 'NodeUpserted',
  node: nodeObject(name, { allocatable: { cpu, memory: '8Gi', pods: '110' }, labels: { name } }),
});
const upsert = (p: PodObject): InputEvent => ({ type: 'PodUpserted', pod: p });

/** A core scheduling as `release`, recording the nominate commands it issues. */
function given(release: KubeRelease) {
  const core = new Scheduler({ config: { ...defaultConfig, emulatedVersion: release }, seed: 1 });
  const nominations: { uid: string; node: string | undefined }[] = [];
  const carry = (commands: readonly Command[]) => {
    for (const c of commands)
      if (c.kind === 'nominate') {
        const n = c as NominateCommand;
        nominations.push({ uid: n.pod.uid, node: n.node });
      }
  };
  let now = 0;
  const h = {
    core,
    nominations,
    events(...inputs: InputEvent[]): DecisionEvent[] {
      return inputs.flatMap((e) => {
        const step = core.ingest(e, ++now);
        carry(step.commands);
        return step.decisions.map((d) => d.event);
      });
    },
    cycle(): DecisionEvent[] {
      const step = core.cycle(++now);
      carry(step.commands);
      return step.decisions.map((d) => d.event);
    },
    /** The nominated index as node → uids. */
    nominated(): Record<string, string[]> {
      const out: Record<string, string[]> = {};
      for (const [n, pods] of core.state.nominated) out[n] = [...pods.keys()].sort();
      return out;
    },
  };
  return h;
}

const types = (ds: DecisionEvent[]) => ds.map((d) => d.type);

describe('a nomination another component set (status.nominatedNodeName in the watched pod)', () => {
  it.each(['1.34', '1.35', '1.37'] as const)(
    '%s: the nominated node is tried first: the pod goes there although another node scores better',
    (release) => {
      const h = given(release);
      h.events(node('n1'), node('n2'), upsert(pod('busy', { cpu: '3', nodeName: 'n2' })));
      h.events(upsert(pod('p', { nominated: 'n2' })));
      expect(h.nominated()).toEqual({ n2: ['p-1'] });
      const ds = h.cycle();
      expect(ds.map((d) => ('node' in d ? `${d.type} ${d.node}` : d.type))).toEqual([
        'PodReserved n2',
        'BindRequested n2',
      ]);
      // No PreBind and no Permit wait: berth writes no nomination of its own (kube neither).
      expect(h.nominations).toEqual([]);
    },
  );

  // kube 1.37 records a gated pod's nomination when the pod is added (#139057); 1.35 and
  // 1.36 only once the pod is updated (or leaves the gate). berth's 1.34 logs counted it.
  it.each(['1.34', '1.37'] as const)(
    "%s: a gated pod's nomination holds its room against a lower-priority pod, not against a higher one",
    (release) => {
      const h = given(release);
      h.events(node('n1'), node('n2', '1'));
      h.events(upsert(pod('held', { cpu: '3', priority: 100, nominated: 'n1', gated: true })));
      h.events(upsert(pod('low', { cpu: '2', priority: 10, nodeSelector: { name: 'n1' } })));
      expect(types(h.cycle())).toEqual(['PodUnschedulable']);
      h.events(upsert(pod('high', { cpu: '2', priority: 200, nodeSelector: { name: 'n1' } })));
      expect(types(h.cycle())).toEqual(['PodReserved', 'BindRequested']);
    },
  );

  it.each(['1.35', '1.36'] as const)(
    "%s: a pod added while gated holds no room until its next update, as kube's nominator",
    (release) => {
      const h = given(release);
      h.events(node('n1'), node('n2', '1'));
      const held = pod('held', { cpu: '3', priority: 100, nominated: 'n1', gated: true });
      h.events(upsert(held));
      expect(h.nominated()).toEqual({});
      h.events(upsert(pod('low', { cpu: '2', priority: 10, nodeSelector: { name: 'n1' } })));
      expect(types(h.cycle())).toEqual(['PodReserved', 'BindRequested']);
      // Any update of the gated pod records it: from then on its room is held.
      h.events(upsert({ ...held, metadata: { ...held.metadata, labels: { touched: 'yes' } } }));
      expect(h.nominated()).toEqual({ n1: ['held-1'] });
      h.events(upsert(pod('low2', { cpu: '1', priority: 10, nodeSelector: { name: 'n1' } })));
      expect(types(h.cycle())).toEqual(['PodUnschedulable']);
    },
  );

  it.each([
    ['1.37', ['PodReserved', 'BindRequested'], {}],
    ['1.34', ['PodUnschedulable'], { n1: ['other-1'] }],
  ] as const)(
    "%s: another scheduler's pod's nomination holds no room (kube's nominator holds its own queue's pods); 1.34 counted it",
    (release, decided, index) => {
      const h = given(release);
      h.events(node('n1'));
      const other = pod('other', { cpu: '3', priority: 100, nominated: 'n1', scheduler: 'other' });
      h.events(upsert(other), upsert(pod('low', { cpu: '2', priority: 10 })));
      expect(h.nominated()).toEqual(index);
      expect(types(h.cycle())).toEqual(decided);
    },
  );

  it('1.37: cleared when the pod fails and preemption finds no candidate (kube clearNominatedNode)', () => {
    const h = given('1.37');
    h.events(node('n1'));
    h.events(upsert(pod('lost', { nominated: 'n1', nodeSelector: { name: 'nowhere' } })));
    const ds = h.cycle();
    expect(types(ds)).toEqual(['PodUnschedulable', 'NominationCleared']);
    expect(ds[1]).toMatchObject({ node: 'n1', pod: { uid: 'lost-1', key: 'default/lost' } });
    expect(h.nominations).toEqual([{ uid: 'lost-1', node: undefined }]);
    expect(h.nominated()).toEqual({});
  });

  it('1.34: kept after the same failure (berth 1.34 never cleared a pod’s own nomination; its logs replay so)', () => {
    const h = given('1.34');
    h.events(node('n1'));
    h.events(upsert(pod('lost', { nominated: 'n1', nodeSelector: { name: 'nowhere' } })));
    expect(types(h.cycle())).toEqual(['PodUnschedulable']);
    expect(h.nominations).toEqual([]);
    expect(h.nominated()).toEqual({ n1: ['lost-1'] });
  });

  it('1.37: kept when the pod may not preempt (preemptionPolicy Never: kube keeps the nomination)', () => {
    const h = given('1.37');
    h.events(node('n1', '1'));
    h.events(upsert(pod('never', { cpu: '2', nominated: 'n1', never: true })));
    expect(types(h.cycle())).toEqual(['PodUnschedulable']);
    expect(h.nominations).toEqual([]);
    expect(h.nominated()).toEqual({ n1: ['never-1'] });
  });

  it('1.37: ends when its writer removes it from the pod (kube UpdateNominatedPod); 1.34 keeps it', () => {
    for (const [release, left] of [
      ['1.37', {}],
      ['1.34', { n1: ['w-1'] }],
    ] as const) {
      const h = given(release);
      h.events(node('n1'), upsert(pod('w', { nominated: 'n1', gated: true })));
      expect(h.nominated(), release).toEqual({ n1: ['w-1'] });
      h.events(upsert(pod('w', { gated: true })));
      expect(h.nominated(), release).toEqual(left);
    }
  });

  it.each([
    ['1.37', ['NominationCleared'], [{ uid: 'p-1', node: undefined }]],
    ['1.34', [], []],
  ] as const)(
    '%s: a failed binding cycle clears the pod’s nomination (1.34: kept)',
    (release, extra, commands) => {
      const h = given(release);
      h.events(node('n1'), upsert(pod('p', { nominated: 'n1' })));
      expect(types(h.cycle())).toEqual(['PodReserved', 'BindRequested']);
      const failed: InputEvent = {
        ...{ type: 'BindFailed', uid: 'p-1', key: 'default/p', attempt: 1, node: 'n1' },
        ...{ reason: 'Error', message: 'Internal error occurred', code: 500 },
      };
      expect(types(h.events(failed))).toEqual(extra);
      expect(h.nominations).toEqual(commands);
    },
  );

  it("1.37: berth's own nomination survives an update that races its status patch", () => {
    const h = given('1.37');
    h.events(node('n1', '2'), upsert(pod('low', { cpu: '2', priority: 1, nodeName: 'n1' })));
    h.events(upsert(pod('pre', { cpu: '2', priority: 100 })));
    expect(types(h.cycle())).toEqual(['PodNominated', 'VictimPreempted']);
    expect(h.nominations).toEqual([{ uid: 'pre-1', node: 'n1' }]);
    // An update of the preemptor before the patch lands: no nomination in the object yet.
    h.events(upsert(pod('pre', { cpu: '2', priority: 100 })));
    expect(h.nominated()).toEqual({ n1: ['pre-1'] });
  });
});
