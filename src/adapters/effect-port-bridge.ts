// Bridges the core's EffectPort calls to command handlers, while the core still calls the port.
import type { BinderCommand, CommandHandler, ReportCommand } from '../core/commands.ts';
import type { EffectPort } from '../core/ports.ts';

/**
 * The core's EffectPort over command handlers: each method call becomes its command, with
 * the port's defaults made explicit (observedGeneration 0 is "none", reason Unschedulable).
 * Binds and preemptions go to `binder`, everything else to `reports`. Goes once the core
 * returns commands.
 */
export function effectPortOf(
  binder: CommandHandler<BinderCommand>,
  reports: CommandHandler<ReportCommand>,
): Required<EffectPort> {
  return {
    bind: (attempt, node) => binder.execute({ kind: 'bind', attempt, node }),
    preempt: (preemptor, schedulerName, victim, node, observedGeneration = 0) =>
      binder.execute({
        kind: 'preempt',
        preemptor,
        schedulerName,
        victim,
        node,
        observedGeneration,
      }),
    nominate: (pod, node) => reports.execute({ kind: 'nominate', pod, node }),
    reportUnschedulable: (pod, message, observedGeneration = 0, reason = 'Unschedulable') =>
      reports.execute({ kind: 'reportUnschedulable', pod, message, observedGeneration, reason }),
    reportScheduled: (pod, node) => reports.execute({ kind: 'reportScheduled', pod, node }),
    reportGroup: (report) => reports.execute({ kind: 'reportGroup', report }),
    forgetPod: (pod) => reports.execute({ kind: 'forgetPod', pod }),
  };
}
