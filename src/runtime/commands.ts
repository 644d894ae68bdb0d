// Carries out the core's commands in order: binder commands, reports and timers each to their adapter.
import type {
  BinderCommand,
  Command,
  CommandHandler,
  ReportCommand,
  TimerCommand,
} from '../core/commands.ts';
import type { EffectPort, TimerPort } from '../core/ports.ts';

/** Where each kind of command goes. */
export interface CommandTargets {
  /** Binds and evictions (the API server, or the simulated cluster). */
  binder: CommandHandler<BinderCommand>;
  /** Pod conditions, Events, nominations, PodGroup status. */
  reports: CommandHandler<ReportCommand>;
  /** The clock that drives the run. */
  timers: CommandHandler<TimerCommand>;
}

/** Sends each of `commands`, in order, to its target. */
export function executeCommands(commands: readonly Command[], to: CommandTargets): void {
  for (const c of commands) {
    switch (c.kind) {
      case 'bind':
      case 'preempt':
        to.binder.execute(c);
        break;
      case 'armPodTimer':
      case 'disarmPodTimer':
      case 'armFlushTimer':
        to.timers.execute(c);
        break;
      default:
        to.reports.execute(c);
    }
  }
}

/** Targets that drop every command (replay: the log already holds the results). */
export const noCommandTargets: CommandTargets = {
  binder: { execute: () => {} },
  reports: { execute: () => {} },
  timers: { execute: () => {} },
};

/** The timer commands carried out on a TimerPort-shaped clock. */
export function timerHandler(port: TimerPort): CommandHandler<TimerCommand> {
  return {
    execute: (c) => {
      if (c.kind === 'armPodTimer') port.armPod(c.pod, c.timer, c.deadline);
      else if (c.kind === 'disarmPodTimer') port.disarmPod(c.uid, c.timer);
      else port.armFlush(c.deadline);
    },
  };
}

/** Binder and report commands carried out through an EffectPort-shaped adapter. */
export function effectHandlers(effects: EffectPort): Pick<CommandTargets, 'binder' | 'reports'> {
  return {
    binder: {
      execute: (c) => {
        if (c.kind === 'bind') effects.bind(c.attempt, c.node);
        else
          effects.preempt?.(c.preemptor, c.schedulerName, c.victim, c.node, c.observedGeneration);
      },
    },
    reports: {
      execute: (c) => {
        if (c.kind === 'reportUnschedulable')
          effects.reportUnschedulable?.(c.pod, c.message, c.observedGeneration, c.reason);
        else if (c.kind === 'reportScheduled') effects.reportScheduled?.(c.pod, c.node);
        else if (c.kind === 'nominate') effects.nominate?.(c.pod, c.node);
        else if (c.kind === 'reportGroup') effects.reportGroup?.(c.report);
        else effects.forgetPod?.(c.pod);
      },
    },
  };
}
