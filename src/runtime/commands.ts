// Carries out the core's commands in order: binder commands, reports and timers each to their adapter.
import type {
  BinderCommand,
  Command,
  CommandHandler,
  ReportCommand,
  TimerCommand,
} from '../core/commands.ts';

/** Where each kind of command goes. */
export interface CommandTargets {
  /** Binds, evictions and claim deallocations (the API server, or the simulated cluster). */
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
      case 'completeBind':
      case 'preempt':
      case 'deallocateClaim':
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
