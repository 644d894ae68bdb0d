// A harness for gang tests on the core alone: objects, a drain loop, and the binds and evictions carried out as an API server would.
import { checkClusterInvariants } from '../../src/cluster/invariants.ts';
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

/** The gang harness's builders, under the names these tests use. */
export {
  type GangPodOptions,
  gangPod,
  node as gangNode,
  podGroup as gangGroup,
} from './gang-harness.ts';

/** A PodDisruptionBudget over pods labelled `app: <app>` allowing `allowed` disruptions. */
export const gangBudget = (app: string, allowed: number): InputEvent => ({
  type: 'ObjectUpserted',
  kind: 'PodDisruptionBudget',
  object: {
    metadata: { name: app, namespace: 'default' },
    spec: { selector: { matchLabels: { app } } },
    status: { disruptionsAllowed: allowed },
  },
});

/** One eviction the core asked for. */
export interface Eviction {
  preemptor: AttemptRef;
  victim: PodRef;
  node: string;
  /** The core PodGroup the preemptor's group preempts for, if it is one. */
  group?: PodRef;
}

/** A pod timer armed by the core. */
interface ArmedTimer {
  pod: PodRef;
  timer: PodTimerId;
  at: number;
}

/**
 * A core with the API server's part played in memory: pods kept so that binds can be
 * confirmed and victims deleted; `broken` collects cluster invariant violations.
 */
export class GangCore {
  readonly core: Scheduler;
  readonly broken: string[] = [];
  readonly decisions: DecisionEvent[] = [];
  readonly binds: { attempt: AttemptRef; node: string }[] = [];
  readonly evictions: Eviction[] = [];
  readonly messages = new Map<string, string>();
  /** The group status reports written, in order. */
  readonly groups: GroupReport[] = [];
  private now = 1_000;
  private readonly timers = new Map<string, ArmedTimer>();
  private readonly raws = new Map<string, PodObject>();

  constructor(config: BerthConfig = defaultConfig, seed = 7) {
    this.core = new Scheduler({
      config,
      seed,
      inspect: (phase, env, state) => {
        if (phase === 'before') return;
        for (const b of checkClusterInvariants(state)) this.broken.push(`seq ${env.seq}: ${b}`);
      },
    });
  }

  /** Carries out a step's commands: binds and evictions kept, messages and timers noted. */
  private take(step: Step): void {
    for (const c of step.commands) {
      if (c.kind === 'bind') this.binds.push({ attempt: { ...c.attempt }, node: c.node });
      else if (c.kind === 'preempt')
        this.evictions.push({
          preemptor: { ...c.preemptor },
          victim: c.victim,
          node: c.node,
          ...(c.preemptorGroup === undefined ? {} : { group: c.preemptorGroup }),
        });
      else if (c.kind === 'reportUnschedulable') this.messages.set(c.pod.key, c.message);
      else if (c.kind === 'reportGroup') this.groups.push(c.report);
      else if (c.kind === 'armPodTimer')
        this.timers.set(`${c.timer} ${c.pod.uid}`, {
          pod: { ...c.pod },
          timer: c.timer,
          at: c.deadline,
        });
      else if (c.kind === 'disarmPodTimer') this.timers.delete(`${c.timer} ${c.uid}`);
    }
    this.decisions.push(...step.decisions.map((d) => d.event));
  }

  events(...inputs: InputEvent[]): this {
    for (const e of inputs) this.take(this.core.ingest(e, this.now));
    return this;
  }

  /** Adds or updates pods (kept, so that binds can be confirmed with the same object). */
  pods(...objects: PodObject[]): this {
    for (const o of objects) this.raws.set(o.metadata.uid as string, o);
    return this.events(...objects.map((pod): InputEvent => ({ type: 'PodUpserted', pod })));
  }

  /** Runs cycles until the queue is empty. */
  drain(): this {
    for (let i = 0; i < 10_000; i++) {
      const step = this.core.cycle(this.now);
      this.take(step);
      if (step.decisions.length === 0 && this.core.activeCount === 0) break;
    }
    return this;
  }

  /** Advances the logical clock, firing the pod timers that fall due on the way, earliest first. */
  later(ms: number): this {
    const end = this.now + ms;
    for (;;) {
      const due = [...this.timers.entries()].filter(([, t]) => t.at <= end);
      due.sort((a, b) => a[1].at - b[1].at || (a[0] < b[0] ? -1 : 1));
      const first = due[0];
      if (first === undefined) break;
      this.timers.delete(first[0]);
      this.now = Math.max(this.now, first[1].at);
      this.events({ type: 'TimerFired', timer: first[1].timer, ...first[1].pod });
    }
    this.now = end;
    return this;
  }

  /** Confirms every bind issued so far (result, then the watch shows the node). */
  confirmBinds(): this {
    for (const b of this.binds.splice(0)) {
      this.events({ type: 'BindSucceeded', ...b.attempt, node: b.node });
      const raw = this.raws.get(b.attempt.uid);
      if (raw !== undefined)
        this.pods({ ...raw, spec: { ...raw.spec, nodeName: b.node } } as PodObject);
    }
    return this;
  }

  /**
   * Carries out the evictions asked so far (those `only` accepts; the rest stay asked): the
   * victim is deleted, or the eviction refused with the message `refuse` gives.
   */
  evict(
    refuse?: (e: Eviction) => string | undefined,
    only: (e: Eviction) => boolean = () => true,
  ): this {
    const due = this.evictions.filter(only);
    const rest = this.evictions.filter((e) => !only(e));
    this.evictions.splice(0, this.evictions.length, ...rest);
    for (const e of due) {
      const refused = refuse?.(e);
      if (refused === undefined) this.events({ type: 'PodDeleted', ...e.victim });
      else
        this.events({
          type: 'PreemptionFailed',
          ...e.preemptor,
          node: e.node,
          victim: e.victim,
          message: refused,
        });
    }
    return this;
  }

  /** The keys of the decisions of `type`, in order. */
  keys(type: DecisionEvent['type']): string[] {
    return this.decisions.filter((d) => d.type === type).map((d) => d.key);
  }

  /** The victims evicted (by key), sorted. */
  victims(): string[] {
    return this.decisions
      .flatMap((d) => (d.type === 'VictimPreempted' ? [d.victim.key] : []))
      .sort();
  }

  /** Where each pod is bound or reserved now, by key. */
  placements(): Map<string, string> {
    const out = new Map<string, string>();
    for (const { info, charge } of this.core.state.pods.values())
      if (charge.kind !== 'none') out.set(info.key, charge.node);
    return out;
  }
}

/** A new `GangCore`. */
export function gangCore(config: BerthConfig = defaultConfig, seed = 7): GangCore {
  return new GangCore(config, seed);
}
