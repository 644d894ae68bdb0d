// What the bench knows of a scheduler: its name, its client limits, the process it runs as.

/** Which scheduler a run measures (`null-binder`: binds in turn, no decisions; the ceiling). */
export type SchedulerName = 'berth' | 'kube-scheduler' | 'null-binder';

/** A scheduler process started by the bench. */
export interface RunningScheduler {
  name: SchedulerName;
  pid: number;
  /** performance.now() just before the process was spawned. */
  startedAt: number;
  /** Throws when the process has exited (a run must not wait for a dead scheduler). */
  checkAlive(): void;
  /** Its Prometheus text exposition (`/metrics`, kube-scheduler's metric names on both). */
  metrics(): Promise<string>;
  stop(): Promise<void>;
}

/** Client rate limit given to either scheduler. */
export interface ClientLimits {
  qps: number;
  burst: number;
}
