// Given/when/then over events for the Scheduler core, with fake ports that record every call.
import { describe, expect, it } from 'vitest';
import { nodeObject, type PodOptions, podObject } from '../../test/support/objects.ts';
import type { Amount } from '../cluster/amount.ts';
import { checkClusterInvariants } from '../cluster/invariants.ts';
import { getPodByKey } from '../cluster/reducer.ts';
import type { AttemptRef, DecisionEvent, InputEvent, PodRef, PodTimerId } from '../events/types.ts';
import type { FilterPlugin, Profile } from '../framework/types.ts';
import type { PodObject } from '../model/objects.ts';
import { defaultProfile } from '../plugins/registry.ts';
import type { BinderCommand, Command, ReportCommand, TimerCommand } from './commands.ts';
import { type BerthConfig, defaultConfig } from './config.ts';
import type { PodScheduledReason } from './ports.ts';
import { Scheduler, type Step, StepError } from './scheduler.ts';

/** A clock that records what is armed (by `<timer> <uid>`) and every timer command. */
class FakeTimers {
  readonly armed = new Map<string, { pod: PodRef; deadline: number }>();
  readonly calls: string[] = [];
  flushAt: number | undefined;

  armPod(pod: PodRef, timer: PodTimerId, deadline: number): void {
    this.calls.push(`arm ${timer} ${pod.uid} @${deadline}`);
    this.armed.set(`${timer} ${pod.uid}`, { pod: { uid: pod.uid, key: pod.key }, deadline });
  }

  disarmPod(uid: string, timer: PodTimerId): void {
    if (this.armed.delete(`${timer} ${uid}`)) this.calls.push(`disarm ${timer} ${uid}`);
  }

  armFlush(deadline: number): void {
    this.flushAt = deadline;
  }

  execute(c: TimerCommand): void {
    if (c.kind === 'armPodTimer') this.armPod(c.pod, c.timer, c.deadline);
    else if (c.kind === 'disarmPodTimer') this.disarmPod(c.uid, c.timer);
    else this.armFlush(c.deadline);
  }
}

const isTimerCommand = (c: Command): c is TimerCommand =>
  c.kind === 'armPodTimer' || c.kind === 'disarmPodTimer' || c.kind === 'armFlushTimer';

/** An adapter that records every bind and report command. */
class FakeEffects {
  readonly binds: { attempt: AttemptRef; node: string }[] = [];
  readonly unschedulable: { pod: PodRef; message: string; reason: PodScheduledReason }[] = [];
  readonly scheduled: { pod: PodRef; node: string }[] = [];
  readonly forgotten: PodRef[] = [];

  execute(c: BinderCommand | ReportCommand): void {
    if (c.kind === 'bind') this.binds.push({ attempt: { ...c.attempt }, node: c.node });
    else if (c.kind === 'reportUnschedulable')
      this.unschedulable.push({ pod: { ...c.pod }, message: c.message, reason: c.reason });
    else if (c.kind === 'reportScheduled') this.scheduled.push({ pod: { ...c.pod }, node: c.node });
    else if (c.kind === 'forgetPod') this.forgotten.push({ ...c.pod });
  }
}

/** Options of a test pod: the manifest's, plus uid, gates, nomination and affinity. */
type PodOpts = PodOptions & {
  uid?: string;
  schedulingGates?: string[];
  nodeSelector?: Record<string, string>;
  affinity?: PodObject['spec']['affinity'];
};

/** A berth pod asking for 1 cpu (unless told otherwise), with uid `<name>-1` by default. */
function pod(name: string, o: PodOpts = {}): PodObject {
  const { uid, schedulingGates, nodeSelector, affinity, ...rest } = o;
  const p = podObject(name, { schedulerName: 'berth', requests: { cpu: '1' }, ...rest });
  p.metadata.uid = uid ?? `${name}-1`;
  if (schedulingGates !== undefined)
    p.spec.schedulingGates = schedulingGates.map((n) => ({ name: n }));
  if (nodeSelector !== undefined) p.spec.nodeSelector = nodeSelector;
  if (affinity !== undefined) p.spec.affinity = affinity;
  return p;
}

const node = (name: string, cpu = '4', labels?: Record<string, string>): InputEvent => ({
  type: 'NodeUpserted',
  node: nodeObject(name, {
    allocatable: { cpu, memory: '8Gi', pods: '110' },
    ...(labels === undefined ? {} : { labels }),
  }),
});
const upsert = (p: PodObject): InputEvent => ({ type: 'PodUpserted', pod: p });
const deleted = (name: string, uid = `${name}-1`): InputEvent => ({
  type: 'PodDeleted',
  uid,
  key: `default/${name}`,
});
const attempt = (name: string, n: number, uid = `${name}-1`): AttemptRef => ({
  uid,
  key: `default/${name}`,
  attempt: n,
});
const bindOk = (a: AttemptRef, target: string): InputEvent => ({
  type: 'BindSucceeded',
  ...a,
  node: target,
});
const bindFailed = (a: AttemptRef, target: string): InputEvent => ({
  type: 'BindFailed',
  ...a,
  node: target,
  reason: 'Conflict',
  message: 'the object has been modified',
});

/** One Scheduler with fake ports; every envelope is checked against the state invariants. */
function given(opts: { profile?: Profile; config?: BerthConfig } = {}) {
  const timers = new FakeTimers();
  const effects = new FakeEffects();
  const broken: string[] = [];
  const core = new Scheduler({
    config: opts.config ?? defaultConfig,
    seed: 1,
    ...(opts.profile === undefined ? {} : { profile: opts.profile }),
    inspect: (phase, env, state) => {
      if (phase === 'before') return;
      for (const b of checkClusterInvariants(state)) broken.push(`seq ${env.seq}: ${b}`);
    },
  });
  const send = (commands: readonly Command[]) => {
    for (const c of commands) {
      if (isTimerCommand(c)) timers.execute(c);
      else effects.execute(c);
    }
  };
  const carryOut = (step: Step) => {
    send(step.commands);
    return step.decisions;
  };
  let now = 0;
  const h = {
    core,
    timers,
    effects,
    broken,
    /** Starts the run at `time` (arms the periodic flush). */
    start(time: number) {
      send(core.start(time));
    },
    /** Sets the logical time of what follows. */
    at(time: number) {
      now = time;
      return h;
    },
    /** Ingests inputs; returns the decisions they led to (their commands are carried out). */
    events(...inputs: InputEvent[]): DecisionEvent[] {
      return inputs.flatMap((e) => carryOut(core.ingest(e, now)).map((env) => env.event));
    },
    /** Runs one cycle; returns its decisions. */
    cycle(): DecisionEvent[] {
      return carryOut(core.cycle(now)).map((env) => env.event);
    },
    /** Runs cycles until the queue is empty; returns every decision. */
    drain(): DecisionEvent[] {
      const out: DecisionEvent[] = [];
      for (let d = h.cycle(); d.length > 0; d = h.cycle()) out.push(...d);
      return out;
    },
    /** Fires pod timer (`timer`, `uid`) at its deadline through the log. */
    fire(timer: PodTimerId, uid: string): DecisionEvent[] {
      const armed = timers.armed.get(`${timer} ${uid}`);
      if (armed === undefined) throw new Error(`no ${timer} timer armed for ${uid}`);
      timers.armed.delete(`${timer} ${uid}`);
      now = armed.deadline;
      return h.events({ type: 'TimerFired', timer, ...armed.pod });
    },
    cpuOn(name: string): Amount | undefined {
      return core.state.nodes.get(name)?.requested.milliCPU;
    },
    chargeOf(key: string) {
      return getPodByKey(core.state, key)?.charge;
    },
  };
  return h;
}

const reserved = (a: AttemptRef, target: string): DecisionEvent[] => [
  { type: 'PodReserved', ...a, node: target },
  { type: 'BindRequested', ...a, node: target },
];

describe('Scheduler: a pod is its uid', () => {
  it("a pod deleted and recreated under its name while its bind is in flight ignores the old attempt's BindSucceeded and is scheduled with its own uid", () => {
    const h = given();
    h.events(node('n1'), upsert(pod('web', { uid: 'old' })));
    expect(h.cycle()).toEqual(reserved(attempt('web', 1, 'old'), 'n1'));
    h.events(deleted('web', 'old'), upsert(pod('web', { uid: 'new' })));
    expect(h.core.machineState('old')).toBeUndefined();
    expect(h.core.machineState('new')).toBe('pending');
    expect(h.cpuOn('n1')).toBe(0);
    // Same name, same node, same attempt number: only the uid tells them apart.
    expect(h.events(bindOk(attempt('web', 1, 'old'), 'n1'))).toEqual([]);
    expect(h.core.machineState('new')).toBe('pending');
    expect(h.effects.scheduled).toEqual([]);
    expect(h.cycle()).toEqual(reserved(attempt('web', 1, 'new'), 'n1'));
    expect(h.effects.binds.map((b) => b.attempt.uid)).toEqual(['old', 'new']);
    expect(h.effects.binds[1]).toEqual({ attempt: attempt('web', 1, 'new'), node: 'n1' });
    expect(h.broken).toEqual([]);
  });

  it("the old attempt's BindSucceeded or BindFailed arriving while the new pod's bind is in flight changes nothing for the new pod", () => {
    for (const late of [bindOk, bindFailed]) {
      const h = given();
      h.events(node('n1'), upsert(pod('web', { uid: 'old' })));
      h.cycle();
      h.events(deleted('web', 'old'), upsert(pod('web', { uid: 'new' })));
      h.cycle();
      expect(h.events(late(attempt('web', 1, 'old'), 'n1'))).toEqual([]);
      expect(h.core.machineState('new')).toBe('binding');
      expect(h.chargeOf('default/web')).toEqual({ kind: 'assumed', node: 'n1', attempt: 1 });
      expect(h.cpuOn('n1')).toBe(1000);
      expect(h.timers.armed.size).toBe(0);
      expect(h.broken).toEqual([]);
    }
  });

  it('a PodUpserted with a new uid and no PodDeleted replaces the old pod: its machine, charge and reports go', () => {
    const h = given();
    h.events(node('n1'), upsert(pod('web', { uid: 'old' })));
    h.cycle();
    expect(h.cpuOn('n1')).toBe(1000);
    h.events(upsert(pod('web', { uid: 'new' })));
    expect(h.core.machineState('old')).toBeUndefined();
    expect(h.core.machineState('new')).toBe('pending');
    expect(h.cpuOn('n1')).toBe(0);
    expect(h.effects.forgotten).toEqual([{ uid: 'old', key: 'default/web' }]);
    expect([...h.core.state.pods.keys()]).toEqual(['new']);
    expect(h.cycle()).toEqual(reserved(attempt('web', 1, 'new'), 'n1'));
    expect(h.broken).toEqual([]);
  });
});

describe('Scheduler: a refused bind is reported as kube reports it', () => {
  const forbidden =
    'pods "web" is forbidden: User "system:serviceaccount:berth:berth" cannot create resource "pods/binding" in API group "" in the namespace "default"';

  it("a bind refused with an Error (403) reports PodScheduled=False/SchedulerError with kube's message, and the pod backs off", () => {
    const h = given();
    h.events(node('n1'), upsert(pod('web')));
    h.cycle();
    h.events({
      type: 'BindFailed',
      ...attempt('web', 1),
      node: 'n1',
      reason: 'Error',
      message: forbidden,
      code: 403,
    });
    expect(h.effects.unschedulable).toEqual([
      {
        pod: { uid: 'web-1', key: 'default/web' },
        message: `running Bind plugin "DefaultBinder": ${forbidden}`,
        reason: 'SchedulerError',
      },
    ]);
    expect(h.core.machineState('web-1')).toBe('backoff');
    expect(h.cpuOn('n1')).toBe(0);
  });

  it.each([
    [
      'Conflict',
      'Operation cannot be fulfilled on pods/binding "web": pod web is already assigned to node "n2"',
    ],
    ['NotFound', 'pods "web" not found'],
  ] as const)(
    'a bind failing with %s (the pod is gone, recreated or bound elsewhere) reports nothing',
    (reason, message) => {
      const h = given();
      h.events(node('n1'), upsert(pod('web')));
      h.cycle();
      h.events({ type: 'BindFailed', ...attempt('web', 1), node: 'n1', reason, message });
      expect(h.effects.unschedulable).toEqual([]);
    },
  );

  const refused = (a: AttemptRef): InputEvent => ({
    type: 'BindFailed',
    ...a,
    node: 'n1',
    reason: 'Error',
    message: forbidden,
    code: 403,
  });

  it("an older attempt's refused bind reports nothing for the attempt in flight", () => {
    const h = given();
    h.events(node('n1'), upsert(pod('web')));
    h.cycle();
    h.events(refused(attempt('web', 1)));
    h.fire('backoff', 'web-1');
    h.cycle();
    h.effects.unschedulable.length = 0;
    h.events(refused(attempt('web', 1)));
    expect(h.effects.unschedulable).toEqual([]);
    expect(h.core.machineState('web-1')).toBe('binding');
  });
});

describe('Scheduler: a bound pod is never scheduled twice', () => {
  it('a pod update without nodeName after BindSucceeded does not requeue or rebind it, and it stays boundUnconfirmed until the watch shows nodeName', () => {
    const h = given();
    h.events(node('n1'), node('n2'), upsert(pod('a')));
    const [first] = h.cycle();
    const target = first?.type === 'PodReserved' ? first.node : '';
    expect(h.events(bindOk(attempt('a', 1), target))).toEqual([]);
    expect(h.core.machineState('a-1')).toBe('boundUnconfirmed');
    // A MODIFIED committed before the bind but delivered after it.
    expect(h.events(upsert(pod('a', { labels: { v: '2' } })))).toEqual([]);
    expect(h.core.machineState('a-1')).toBe('boundUnconfirmed');
    expect(h.core.activeCount).toBe(0);
    expect(h.drain()).toEqual([]);
    expect(h.effects.binds).toHaveLength(1);
    expect(h.chargeOf('default/a')).toEqual({ kind: 'assumed', node: target, attempt: 1 });
    h.events(upsert(pod('a', { nodeName: target })));
    expect(h.core.machineState('a-1')).toBeUndefined();
    expect(h.chargeOf('default/a')).toEqual({ kind: 'bound', node: target });
    expect(h.core.inFlightCount).toBe(0);
    expect(h.effects.scheduled).toEqual([{ pod: { uid: 'a-1', key: 'default/a' }, node: target }]);
    expect(h.broken).toEqual([]);
  });

  it('a watch update showing the pod bound before its BindSucceeded ends the machine, and the late result still reports it once', () => {
    const h = given();
    h.events(node('n1'), upsert(pod('a')));
    h.cycle();
    h.events(upsert(pod('a', { nodeName: 'n1' })));
    expect(h.core.inFlightCount).toBe(0);
    expect(h.events(bindOk(attempt('a', 1), 'n1'))).toEqual([]);
    expect(h.drain()).toEqual([]);
    expect(h.effects.binds).toHaveLength(1);
    expect(h.effects.scheduled).toHaveLength(1);
    expect(h.cpuOn('n1')).toBe(1000);
  });

  it('a pod reserved and binding is not requeued by its own update either', () => {
    const h = given();
    h.events(node('n1'), upsert(pod('a')));
    h.cycle();
    h.events(upsert(pod('a', { labels: { v: '2' } })));
    expect(h.core.machineState('a-1')).toBe('binding');
    expect(h.drain()).toEqual([]);
    expect(h.effects.binds).toHaveLength(1);
  });
});

describe('Scheduling gates', () => {
  it('a gated pod takes no cycle and no capacity, and is scheduled once an update removes its gates', () => {
    const h = given();
    h.events(node('n1', '1'), upsert(pod('gated', { schedulingGates: ['example.com/quota'] })));
    expect(h.core.machineState('gated-1')).toBe('gated');
    expect(h.core.pendingReasons().get('default/gated')).toBe(
      'Scheduling is blocked due to non-empty scheduling gates',
    );
    expect(h.core.activeCount).toBe(0);
    expect(h.drain()).toEqual([]);
    expect(h.effects.binds).toEqual([]);
    expect(h.cpuOn('n1')).toBe(0);
    h.events(upsert(pod('gated', { schedulingGates: ['example.com/quota', 'other'] })));
    expect(h.core.machineState('gated-1')).toBe('gated');
    h.at(5).events(upsert(pod('gated')));
    expect(h.core.machineState('gated-1')).toBe('pending');
    expect(h.drain()).toEqual(reserved(attempt('gated', 1), 'n1'));
    expect(h.broken).toEqual([]);
  });

  it('capacity a gated pod asks for goes to a pod that can be scheduled now', () => {
    const h = given();
    h.events(node('n1', '1'), upsert(pod('gated', { schedulingGates: ['g'] })), upsert(pod('b')));
    expect(h.drain()).toEqual(reserved(attempt('b', 1), 'n1'));
    h.events(upsert(pod('gated')));
    expect(h.drain()).toMatchObject([
      {
        type: 'PodUnschedulable',
        uid: 'gated-1',
        message:
          '0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.',
      },
    ]);
  });

  it('a gated pod that is deleted leaves no machine', () => {
    const h = given();
    h.events(node('n1'), upsert(pod('gated', { schedulingGates: ['g'] })), deleted('gated'));
    expect(h.core.inFlightCount).toBe(0);
  });
});

describe('Scheduler: results name their attempt', () => {
  it('a result for an old attempt (attempt number mismatch) changes nothing', () => {
    const h = given();
    h.events(node('n1'), upsert(pod('a')));
    h.cycle();
    expect(h.events(bindFailed(attempt('a', 1), 'n1'))).toEqual([]);
    expect(h.core.machineState('a-1')).toBe('backoff');
    expect(h.timers.armed.get('backoff a-1')?.deadline).toBe(1000);
    h.fire('backoff', 'a-1');
    expect(h.cycle()).toEqual(reserved(attempt('a', 2), 'n1'));
    // Attempt 1's results, duplicated or late, name the same pod and node but not attempt 2.
    expect(h.events(bindOk(attempt('a', 1), 'n1'), bindFailed(attempt('a', 1), 'n1'))).toEqual([]);
    expect(h.core.machineState('a-1')).toBe('binding');
    expect(h.chargeOf('default/a')).toEqual({ kind: 'assumed', node: 'n1', attempt: 2 });
    expect(h.effects.scheduled).toEqual([]);
    h.events(bindOk(attempt('a', 2), 'n1'));
    expect(h.core.machineState('a-1')).toBe('boundUnconfirmed');
    expect(h.broken).toEqual([]);
  });

  it('a bind failure releases the reservation and requeues parked pods it could help', () => {
    const h = given();
    h.events(node('n1', '1'), upsert(pod('a')), upsert(pod('b')));
    h.drain();
    expect(h.core.machineState('b-1')).toBe('unschedulable');
    h.at(1500).events(bindFailed(attempt('a', 1), 'n1'));
    expect(h.cpuOn('n1')).toBe(0);
    expect(h.core.machineState('b-1')).toBe('pending');
    expect(h.cycle()).toEqual(reserved(attempt('b', 2), 'n1'));
  });
});

describe('Scheduler: a plugin that throws', () => {
  /** The default profile plus a filter that throws on its first `times` calls. */
  function throwingProfile(times: number): Profile {
    let calls = 0;
    const flaky: FilterPlugin = {
      name: 'Flaky',
      filter: () => {
        calls++;
        if (calls <= times) throw new Error('index out of range');
        return { code: 'Success', reasons: [] };
      },
    };
    const p = defaultProfile();
    return { ...p, filter: [...p.filter, flaky] };
  }

  it('yields CycleFailed naming the plugin; the pod backs off and is retried when its backoff timer fires', () => {
    const h = given({ profile: throwingProfile(1) });
    h.events(node('n1'), upsert(pod('a')));
    expect(h.cycle()).toEqual([
      { type: 'CycleFailed', ...attempt('a', 1), plugin: 'Flaky', message: 'index out of range' },
    ]);
    expect(h.core.machineState('a-1')).toBe('backoff');
    expect(h.core.pendingReasons().get('default/a')).toBe(
      'scheduling error: Flaky: index out of range',
    );
    expect(h.cycle()).toEqual([]);
    expect(h.timers.calls).toEqual(['arm backoff a-1 @1000']);
    expect(h.fire('backoff', 'a-1')).toEqual([]);
    expect(h.core.machineState('a-1')).toBe('pending');
    expect(h.cycle()).toEqual(reserved(attempt('a', 2), 'n1'));
  });

  it('tells the failed cycle on the pod: PodScheduled=False with reason SchedulerError, as kube does', () => {
    const h = given({ profile: throwingProfile(1) });
    h.events(node('n1'), upsert(pod('a')));
    h.cycle();
    expect(h.effects.unschedulable).toEqual([
      expect.objectContaining({ reason: 'SchedulerError', message: 'Flaky: index out of range' }),
    ]);
  });

  it('a plugin that always throws makes the pod back off longer each time, never stranding it', () => {
    const h = given({ profile: throwingProfile(Number.POSITIVE_INFINITY) });
    h.events(node('n1'), upsert(pod('a')));
    const deadlines: number[] = [];
    for (let i = 0; i < 4; i++) {
      expect(h.cycle()).toMatchObject([{ type: 'CycleFailed', attempt: i + 1 }]);
      deadlines.push(h.timers.armed.get('backoff a-1')?.deadline ?? -1);
      h.fire('backoff', 'a-1');
    }
    expect(deadlines).toEqual([1000, 3000, 7000, 15000]);
  });
});

describe('Scheduler: queue order', () => {
  it('a pod that failed and re-entered the queue goes behind a newer pod of equal priority', () => {
    const h = given();
    h.events(node('n1', '1'), upsert(pod('filler', { nodeName: 'n1' })));
    h.events(upsert(pod('old', { creationTimestamp: '2020-01-01T00:00:00Z' })));
    h.at(10).events(upsert(pod('new', { creationTimestamp: '2024-01-01T00:00:00Z' })));
    // old was queued first, so it is tried first, and fails at 20: after new was queued.
    expect(h.at(20).cycle()).toMatchObject([{ type: 'PodUnschedulable', uid: 'old-1' }]);
    h.at(2000).events(deleted('filler'));
    expect(h.core.machineState('old-1')).toBe('pending');
    expect(h.core.activeCount).toBe(2);
    expect(h.cycle()).toEqual(reserved(attempt('new', 1), 'n1'));
    expect(h.cycle()).toMatchObject([{ type: 'PodUnschedulable', uid: 'old-1', attempt: 2 }]);
  });

  it('a higher priority still goes first', () => {
    const h = given();
    h.events(node('n1', '1'), upsert(pod('low')), upsert(pod('high', { priority: 10 })));
    expect(h.cycle()).toEqual(reserved(attempt('high', 1), 'n1'));
  });
});

describe('Scheduler: required pod anti-affinity (InterPodAffinity)', () => {
  const antiAffinity: PodObject['spec']['affinity'] = {
    podAntiAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: [
        { labelSelector: { matchLabels: { app: 'db' } }, topologyKey: 'kubernetes.io/hostname' },
      ],
    },
  };
  const host = { 'kubernetes.io/hostname': 'n1' };

  it('a pod whose anti-affinity every node violates is PodUnschedulable with kube’s message, and takes no capacity', () => {
    const h = given();
    h.events(
      node('n1', '4', host),
      upsert(pod('other', { nodeName: 'n1', labels: { app: 'db' } })),
      upsert(pod('db', { affinity: antiAffinity })),
    );
    expect(h.cycle()).toEqual([
      {
        type: 'PodUnschedulable',
        ...attempt('db', 1),
        message:
          "0/1 nodes are available: 1 node(s) didn't match pod anti-affinity rules. no new claims to deallocate, preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.",
      },
    ]);
    expect(h.cpuOn('n1')).toBe(1000);
    expect(h.effects.binds).toEqual([]);
  });

  it('is not requeued by an allocatable change, but is when the pod it repels goes', () => {
    const h = given();
    h.events(
      node('n1', '4', host),
      upsert(pod('other', { nodeName: 'n1', labels: { app: 'db' } })),
      upsert(pod('db', { affinity: antiAffinity })),
    );
    h.cycle();
    h.at(5000).events(node('n1', '8', host));
    expect(h.core.machineState('db-1')).toBe('unschedulable');
    h.events(deleted('other'));
    expect(h.core.machineState('db-1')).toBe('pending');
    expect(h.cycle()[0]).toMatchObject({ type: 'PodReserved', uid: 'db-1', attempt: 2 });
  });
});

describe('Scheduler: queueing hints', () => {
  it('a pod rejected only by NodeAffinity is not requeued by a capacity-freeing pod deletion, but is by a node label change', () => {
    const h = given();
    h.events(
      node('n1', '4', { zone: 'a' }),
      upsert(pod('other', { nodeName: 'n1' })),
      upsert(pod('picky', { nodeSelector: { zone: 'b' } })),
    );
    expect(h.cycle()).toMatchObject([{ type: 'PodUnschedulable', uid: 'picky-1' }]);
    h.at(5000).events(deleted('other'));
    expect(h.core.machineState('picky-1')).toBe('unschedulable');
    h.events(node('n1', '8', { zone: 'a' }));
    expect(h.core.machineState('picky-1')).toBe('unschedulable');
    h.events(node('n1', '8', { zone: 'b' }));
    expect(h.core.machineState('picky-1')).toBe('pending');
    expect(h.cycle()).toEqual(reserved(attempt('picky', 2), 'n1'));
  });

  it('a pod rejected by NodeResourcesFit is requeued when a node is added', () => {
    const h = given();
    h.events(node('n1', '1'), upsert(pod('other', { nodeName: 'n1' })), upsert(pod('big')));
    expect(h.cycle()).toMatchObject([{ type: 'PodUnschedulable', uid: 'big-1' }]);
    h.at(5000).events(node('n2', '1', { zone: 'x' }));
    expect(h.core.machineState('big-1')).toBe('pending');
  });

  it('a parked pod requeued before its backoff ends waits it out on a timer', () => {
    const h = given();
    h.events(node('n1', '1'), upsert(pod('other', { nodeName: 'n1' })), upsert(pod('big')));
    h.cycle();
    h.at(400).events(deleted('other'));
    expect(h.core.machineState('big-1')).toBe('backoff');
    expect(h.timers.armed.get('backoff big-1')?.deadline).toBe(1000);
    h.fire('backoff', 'big-1');
    expect(h.cycle()).toEqual(reserved(attempt('big', 2), 'n1'));
  });

  it('the periodic flush retries pods parked longer than maxParkedMs', () => {
    const h = given();
    h.start(0);
    expect(h.timers.flushAt).toBe(30_000);
    h.events(node('n1', '4', { zone: 'a' }), upsert(pod('picky', { nodeSelector: { zone: 'b' } })));
    h.cycle();
    h.at(60_000).events({ type: 'TimerFired', timer: 'flush' });
    expect(h.core.machineState('picky-1')).toBe('unschedulable');
    h.at(300_000).events({ type: 'TimerFired', timer: 'flush' });
    expect(h.core.machineState('picky-1')).toBe('pending');
    expect(h.timers.flushAt).toBe(330_000);
  });
});

describe('Scheduler: what it tells the effect adapter', () => {
  it('reports an unschedulable pod with its uid, and forgets it when it is deleted', () => {
    const h = given();
    h.events(node('n1', '1'), upsert(pod('big', { requests: { cpu: '2' } })));
    h.cycle();
    expect(h.effects.unschedulable).toEqual([
      {
        pod: { uid: 'big-1', key: 'default/big' },
        message:
          '0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.',
        reason: 'Unschedulable',
      },
    ]);
    h.events(deleted('big'));
    expect(h.effects.forgotten).toEqual([{ uid: 'big-1', key: 'default/big' }]);
    expect(h.core.inFlightCount).toBe(0);
  });

  it("leaves other schedulers' pods alone", () => {
    const h = given();
    h.events(node('n1'), upsert(pod('theirs', { schedulerName: 'default-scheduler' })));
    expect(h.core.inFlightCount).toBe(0);
    expect(h.drain()).toEqual([]);
  });

  it('a step that fails part way throws StepError carrying what it did, so the log stays whole', () => {
    const broken = new Error('a bug in the core');
    const core = new Scheduler({
      config: defaultConfig,
      seed: 1,
      inspect: (phase, env) => {
        if (phase === 'after' && env.event.type === 'BindRequested') throw broken;
      },
    });
    core.ingest(node('n1'), 0);
    core.ingest(upsert(pod('a')), 0);
    let thrown: unknown;
    try {
      core.cycle(1);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(StepError);
    const step = (thrown as StepError).step;
    expect((thrown as StepError).cause).toBe(broken);
    expect(step.decisions.map((e) => [e.seq, e.event.type])).toEqual([
      [3, 'PodReserved'],
      [4, 'BindRequested'],
    ]);
    expect(step.commands.map((c) => c.kind)).toEqual(['bind']);
    // The next step goes on from there: nothing of the failed one is left in the core's buffer.
    expect(core.ingest(node('n2'), 2).decisions).toEqual([]);
    expect(core.lastSeq).toBe(5);
  });

  it('stamps every decision with the next seq after the input that led to it', () => {
    const h = given();
    h.events(node('n1'), upsert(pod('a')));
    expect(h.core.lastSeq).toBe(2);
    expect(h.core.cycle(7).decisions.map((e) => [e.seq, e.time, e.event.type])).toEqual([
      [3, 7, 'PodReserved'],
      [4, 7, 'BindRequested'],
    ]);
  });
});

describe('Scheduler: a failed preemption', () => {
  it('tells the preemptor why (PodScheduled=False) and backs it off, to be tried again', () => {
    const h = given();
    const victim = pod('low', { requests: { cpu: '3' }, priority: 1, nodeName: 'n1' });
    h.events(
      node('n1'),
      upsert(victim),
      upsert(pod('hi', { requests: { cpu: '2' }, priority: 10 })),
    );
    const decided = h.drain();
    const preempted = decided.find((d) => d.type === 'VictimPreempted');
    expect(preempted).toMatchObject({
      key: 'default/hi',
      node: 'n1',
      victim: { key: 'default/low' },
    });
    if (preempted?.type !== 'VictimPreempted') throw new Error('no VictimPreempted');
    const before = h.effects.unschedulable.length;
    h.at(50).events({
      type: 'PreemptionFailed',
      uid: preempted.uid,
      key: preempted.key,
      attempt: preempted.attempt,
      node: 'n1',
      victim: preempted.victim,
      message: 'pods "low" is forbidden',
    });
    expect(h.effects.unschedulable.slice(before)).toEqual([
      {
        pod: { uid: 'hi-1', key: 'default/hi' },
        message: 'preemption failed: evicting default/low from n1: pods "low" is forbidden',
        reason: 'SchedulerError',
      },
    ]);
    expect(h.core.machineState('hi-1')).toBe('backoff');
    expect([...h.timers.armed.keys()].some((k) => k.endsWith(' hi-1'))).toBe(true);
  });
});
