// The gang tests' harness: a Scheduler fed events, its timers fired as time passes, its binds and reports recorded.

import { checkClusterInvariants } from '../../src/cluster/invariants.ts';
import type {
  BinderCommand,
  ClaimBinding,
  Command,
  ReportCommand,
} from '../../src/core/commands.ts';
import { type BerthConfig, defaultConfig } from '../../src/core/config.ts';
import type { GroupReport } from '../../src/core/ports.ts';
import { Scheduler, type Step } from '../../src/core/scheduler.ts';
import type {
  AttemptRef,
  DecisionEvent,
  InputEvent,
  PodRef,
  PodTimerId,
} from '../../src/events/types.ts';
import type { PodObject } from '../../src/model/objects.ts';
import { nodeObject, podObject } from './objects.ts';

/** Pod timers armed, by `<timer> <uid>`; the harness fires the due ones as time passes. */
class Timers {
  readonly armed = new Map<string, { pod: PodRef; timer: PodTimerId; deadline: number }>();
  armPod(pod: PodRef, timer: PodTimerId, deadline: number): void {
    this.armed.set(`${timer} ${pod.uid}`, { pod: { uid: pod.uid, key: pod.key }, timer, deadline });
  }
  disarmPod(uid: string, timer: PodTimerId): void {
    this.armed.delete(`${timer} ${uid}`);
  }
  armFlush(): void {}
  /** Carries out the timer commands among `commands`. */
  take(commands: readonly Command[]): void {
    for (const c of commands) {
      if (c.kind === 'armPodTimer') this.armPod(c.pod, c.timer, c.deadline);
      else if (c.kind === 'disarmPodTimer') this.disarmPod(c.uid, c.timer);
    }
  }
  /** Takes the timers due at `now`, earliest first. */
  due(now: number) {
    const out = [...this.armed.entries()].filter(([, t]) => t.deadline <= now);
    out.sort((a, b) => a[1].deadline - b[1].deadline);
    for (const [k] of out) this.armed.delete(k);
    return out.map(([, t]) => t);
  }
}

/** Records binds, unschedulable reports and group reports. */
class Effects {
  readonly binds: { attempt: AttemptRef; node: string; claims?: ClaimBinding[] }[] = [];
  readonly unschedulable = new Map<string, string>();
  readonly groups: GroupReport[] = [];
  execute(c: BinderCommand | ReportCommand): void {
    if (c.kind === 'bind')
      this.binds.push({
        attempt: { ...c.attempt },
        node: c.node,
        ...(c.claims === undefined ? {} : { claims: c.claims }),
      });
    else if (c.kind === 'reportUnschedulable') this.unschedulable.set(c.pod.key, c.message);
    else if (c.kind === 'reportGroup') this.groups.push(c.report);
  }
  /** Carries out the bind and report commands among `commands`. */
  take(commands: readonly Command[]): void {
    for (const c of commands)
      if (c.kind !== 'armPodTimer' && c.kind !== 'disarmPodTimer' && c.kind !== 'armFlushTimer')
        this.execute(c);
  }
}

/** A node named `name` with `cpu`, 8Gi and 110 pods. */
export const node = (name: string, cpu = '1'): InputEvent => ({
  type: 'NodeUpserted',
  node: nodeObject(name, { allocatable: { cpu, memory: '8Gi', pods: '110' } }),
});

/** What a test pod is: its group (if any), cpu, priority, node (bound), labels, policy. */
export interface GangPodOptions {
  group?: string;
  cpu?: string;
  priority?: number;
  node?: string;
  app?: string;
  created?: number;
  never?: boolean;
}

/** Pod `name` (uid `<name>-uid`) scheduled by berth. */
export function gangPod(name: string, o: GangPodOptions = {}): PodObject {
  const labels: Record<string, string> = {};
  if (o.group !== undefined) labels['scheduling.x-k8s.io/pod-group'] = o.group;
  if (o.app !== undefined) labels.app = o.app;
  const p = podObject(name, {
    schedulerName: 'berth',
    requests: { cpu: o.cpu ?? '1' },
    labels,
    ...(o.priority === undefined ? {} : { priority: o.priority }),
    ...(o.node === undefined ? {} : { nodeName: o.node }),
    creationTimestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, o.created ?? 0)).toISOString(),
  });
  if (o.never === true) (p.spec as Record<string, unknown>).preemptionPolicy = 'Never';
  p.metadata.uid = `${name}-uid`;
  return p;
}

/** Pod `name` of scheduler berth, joining scheduler-plugins PodGroup `group` by label. */
export function member(
  name: string,
  group: string,
  o: Pick<GangPodOptions, 'cpu' | 'priority' | 'created'> = {},
): PodObject {
  return gangPod(name, { ...o, group });
}

/** A scheduler-plugins PodGroup `default/name` of `minMember`. */
export const podGroup = (
  name: string,
  minMember: number,
  spec: Record<string, unknown> = {},
): InputEvent => ({
  type: 'ObjectUpserted',
  kind: 'PodGroup',
  object: { metadata: { name, namespace: 'default' }, spec: { minMember, ...spec } },
});

/** A node named `name` with `cpu`, 8Gi, 110 pods and `labels`. */
export const labelledNode = (
  name: string,
  cpu: string,
  labels: Record<string, string>,
): InputEvent => ({
  type: 'NodeUpserted',
  node: nodeObject(name, { allocatable: { cpu, memory: '8Gi', pods: '110' }, labels }),
});

/** Pod `name` (uid `<name>-uid`) of scheduler berth joining core PodGroup `group` by `spec.schedulingGroup`. */
export function coreMember(
  name: string,
  group: string,
  o: Pick<GangPodOptions, 'cpu' | 'priority' | 'created' | 'node' | 'never'> = {},
): PodObject {
  const p = gangPod(name, o);
  p.spec.schedulingGroup = { podGroupName: group };
  return p;
}

/** A core (scheduling.k8s.io/v1beta1) PodGroup `default/name`, generation 3, with `spec`. */
export const corePodGroup = (
  name: string,
  spec: Record<string, unknown>,
  status?: Record<string, unknown>,
): InputEvent => ({
  type: 'ObjectUpserted',
  kind: 'CorePodGroup',
  object: {
    metadata: { name, namespace: 'default', uid: `${name}-pg-uid`, generation: 3 },
    spec,
    ...(status === undefined ? {} : { status }),
  },
});

/** The watch event of pod `p`. */
export const upsert = (p: PodObject): InputEvent => ({ type: 'PodUpserted', pod: p });

/**
 * A Scheduler with `config` and the harness around it: feed events, run cycles, let time
 * pass (firing the pod timers), confirm binds; it records binds, reports and decisions and
 * checks the cluster invariants after every envelope (`broken`).
 */
export function given(config: BerthConfig = defaultConfig) {
  const effects = new Effects();
  const timers = new Timers();
  const broken: string[] = [];
  const core = new Scheduler({
    config,
    seed: 7,
    inspect: (phase, env, state) => {
      if (phase === 'before') return;
      for (const b of checkClusterInvariants(state)) broken.push(`seq ${env.seq}: ${b}`);
    },
  });
  const carryOut = (step: Step) => {
    timers.take(step.commands);
    effects.take(step.commands);
    return step.decisions;
  };
  let now = 1_000;
  const decisions: DecisionEvent[] = [];
  const raws = new Map<string, PodObject>();
  const h = {
    core,
    effects,
    broken,
    decisions,
    events(...inputs: InputEvent[]) {
      for (const e of inputs)
        decisions.push(...carryOut(h.core.ingest(e, now)).map((env) => env.event));
      return h;
    },
    drain() {
      const cycle = () => carryOut(h.core.cycle(now));
      for (let d = cycle(); d.length > 0 || h.core.activeCount > 0; d = cycle())
        decisions.push(...d.map((env) => env.event));
      return h;
    },
    /** Advances the clock, firing the pod timers that fall due on the way. */
    later(ms: number) {
      const end = now + ms;
      for (let t = timers.due(end)[0]; t !== undefined; t = timers.due(end)[0]) {
        now = Math.max(now, t.deadline);
        h.events({ type: 'TimerFired', timer: t.timer, ...t.pod } as InputEvent);
        for (const rest of timers.due(now))
          h.events({ type: 'TimerFired', timer: rest.timer, ...rest.pod } as InputEvent);
      }
      now = end;
      return h;
    },
    /** Adds pods (kept, so that binds can be confirmed with the same object). */
    pods(...objects: PodObject[]) {
      for (const o of objects) raws.set(o.metadata.uid as string, o);
      return h.events(...objects.map(upsert));
    },
    /** Confirms every bind issued so far (result and watch), in order. */
    confirmBinds() {
      for (const b of effects.binds.splice(0)) {
        h.events({ type: 'BindSucceeded', ...b.attempt, node: b.node });
        const raw = raws.get(b.attempt.uid);
        if (raw === undefined) continue;
        h.events(upsert({ ...raw, spec: { ...raw.spec, nodeName: b.node } }));
      }
      return h;
    },
    remove(name: string) {
      return h.events({ type: 'PodDeleted', uid: `${name}-uid`, key: `default/${name}` });
    },
    flush() {
      return h.events({ type: 'TimerFired', timer: 'flush' });
    },
    reserved: () =>
      decisions
        .filter((d) => d.type === 'PodReserved')
        .map((d) => d.key)
        .sort(),
  };
  return h;
}
