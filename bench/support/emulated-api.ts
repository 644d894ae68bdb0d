// The API server's binds as src/adapters/sim emulates them, for the in-process benches that drive the core directly.
import { trimPod } from '../../src/adapters/trim.ts';
import type { BinderCommand, ReportCommand } from '../../src/core/commands.ts';
import type { GroupReport } from '../../src/core/ports.ts';
import type { AttemptRef, InputEvent, PodRef } from '../../src/events/types.ts';
import type { PodObject } from '../../src/model/objects.ts';
import type { VirtualClock } from '../../src/runtime/virtual-clock.ts';

/**
 * Pods by key and their binds: each bind lands `latency` logical ms after the command (never
 * inside the core's call) and brings BindSucceeded then the bound pod's PodUpserted, or
 * BindFailed as the API would refuse it (pod gone, uid changed, already bound, being
 * deleted). A bench extends it with the other writes its workload makes.
 */
export class EmulatedBinds {
  readonly pods = new Map<string, PodObject>();
  binds = 0;
  bindFailures: string[] = [];
  unschedulableReports = 0;

  constructor(
    protected readonly clock: VirtualClock,
    protected readonly latency: number,
    protected readonly ingest: (event: InputEvent) => void,
  ) {}

  /** Runs `fire` `latency` logical ms from now. */
  protected later(fire: () => void): void {
    this.clock.schedule(this.clock.now() + this.latency, fire);
  }

  /** Called once a bind's result and the bound update have been ingested. */
  protected onBound(_attempt: AttemptRef): void {}

  bind(attempt: AttemptRef, node: string): void {
    this.later(() => {
      const pod = this.pods.get(attempt.key);
      const refuse =
        pod === undefined
          ? 'NotFound'
          : pod.metadata.uid !== attempt.uid
            ? 'uid changed'
            : pod.spec.nodeName !== undefined
              ? `already on ${pod.spec.nodeName}`
              : pod.metadata.deletionTimestamp !== undefined
                ? 'being deleted'
                : undefined;
      if (refuse !== undefined) {
        this.bindFailures.push(`${attempt.key} → ${node}: ${refuse}`);
        this.ingest({
          type: 'BindFailed',
          ...attempt,
          node,
          reason: refuse === 'NotFound' ? 'NotFound' : 'Conflict',
          message: refuse,
        });
        return;
      }
      const bound = {
        ...pod,
        spec: { ...pod?.spec, nodeName: node },
        status: { ...pod?.status, phase: 'Running' },
      } as PodObject;
      this.pods.set(attempt.key, bound);
      this.binds++;
      this.ingest({ type: 'BindSucceeded', ...attempt, node });
      this.ingest({ type: 'PodUpserted', pod: trimPod(bound) });
      this.onBound(attempt);
    });
  }

  reportUnschedulable(): void {
    this.unschedulableReports++;
  }

  /** An eviction; a bench whose workload preempts overrides it. */
  preempt(_preemptor: AttemptRef, _schedulerName: string, _victim: PodRef, _node: string): void {}

  /** A nomination; a bench whose workload nominates overrides it. */
  nominate(_ref: PodRef, _node: string | undefined): void {}

  /** A PodGroup status report; the gang bench overrides it. */
  reportGroup(_report: GroupReport): void {}

  /** Carries out one of the core's bind or report commands. */
  execute(c: BinderCommand | ReportCommand): void {
    if (c.kind === 'bind') this.bind(c.attempt, c.node);
    else if (c.kind === 'preempt') this.preempt(c.preemptor, c.schedulerName, c.victim, c.node);
    else if (c.kind === 'nominate') this.nominate(c.pod, c.node);
    else if (c.kind === 'reportUnschedulable') this.reportUnschedulable();
    else if (c.kind === 'reportGroup') this.reportGroup(c.report);
  }
}
