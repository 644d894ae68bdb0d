// CPU seconds and peak RSS of a process, read from /proc (Linux), for the end-to-end bench.
import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc/PID/stat's utime and stime (USER_HZ, 100 on Linux). */
const ticksPerSecond = 100;

/** User + system CPU seconds `pid` has used so far; NaN when the process is gone. */
export function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may contain spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of stat, i.e. 11 and 12 after the state field.
    return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
  } catch {
    return Number.NaN;
  }
}

/** Peak resident set (VmHWM) of `pid` in MiB; NaN when the process is gone. */
export function peakRssMiB(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const m = /^VmHWM:\s+(\d+) kB$/m.exec(status);
    return m?.[1] === undefined ? Number.NaN : Math.round(Number(m[1]) / 1024);
  } catch {
    return Number.NaN;
  }
}

/** CPU seconds of several named processes at one moment. */
export type CpuSample = Record<string, number>;

/** `cpuSeconds` of each named pid. */
export function sampleCpu(pids: Record<string, number>): CpuSample {
  return Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuSeconds(pid)]));
}

/** CPU seconds used between two samples, per process, rounded to 0.01 s. */
export function cpuBetween(before: CpuSample, after: CpuSample): CpuSample {
  return Object.fromEntries(
    Object.entries(after).map(([name, s]) => [name, +(s - (before[name] ?? 0)).toFixed(2)]),
  );
}

/** The scheduler's CPU (and the control plane's since `before`), CPU per pod and peak RSS. */
export interface SchedulerCost {
  /** CPU seconds: the scheduler's since its start, each control-plane process's since `before`. */
  cpuS: Record<string, number>;
  /** Scheduler CPU ms per pod (start-up included). */
  cpuMsPerPod: number;
  peakRssMiB: number;
}

/** Samples the cost of the scheduler `pid` for `pods` pods, the control plane `pids` since `before`. */
export function schedulerCost(
  pid: number,
  pids: Record<string, number>,
  before: CpuSample,
  pods: number,
): SchedulerCost {
  const cpu = cpuSeconds(pid);
  return {
    cpuS: { scheduler: +cpu.toFixed(2), ...cpuBetween(before, sampleCpu(pids)) },
    cpuMsPerPod: +((cpu * 1000) / pods).toFixed(3),
    peakRssMiB: peakRssMiB(pid),
  };
}
