// The PodGroup statuses and Events berth wrote, as the simulated API server keeps them (reports: never fed back as watch events).
import type { GroupReport } from '../../core/ports.ts';

/** An Event berth wrote about a PodGroup, as the simulated API server keeps it. */
export interface SimGroupEvent {
  /** The PodGroup's `namespace/name`. */
  key: string;
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
  /** Logical time it was written. */
  time: number;
}

/** The last status written per PodGroup and every Event, oldest first; read-only to callers. */
export class SimGroupReports {
  private readonly statuses = new Map<string, Readonly<GroupReport>>();
  private readonly eventList: SimGroupEvent[] = [];

  /** Keeps `report` as its group's status, and its Event, if any, written at `time`. */
  write(report: GroupReport, time: number): void {
    const { event, ...status } = report;
    this.statuses.set(report.key, Object.freeze(status));
    if (event !== undefined)
      this.eventList.push(Object.freeze({ key: report.key, ...event, time }));
  }

  /** The last status written for PodGroup `key` (`namespace/name`), without its Event. */
  status(key: string): Readonly<GroupReport> | undefined {
    return this.statuses.get(key);
  }

  /** The Events written about PodGroups, oldest first (a copy). */
  events(): readonly SimGroupEvent[] {
    return [...this.eventList];
  }
}
