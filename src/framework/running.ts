// Which plugin a cycle is running, so that an exception or an Error status can name it.
import type { FilterPlugin, Status } from './types.ts';

/**
 * The plugin running now. The filter loop records only the filter's index (a cheap store
 * in the hottest loop); the name is looked up on failure.
 */
export interface Running {
  plugin: string;
  filters: readonly FilterPlugin[] | undefined;
  filterIndex: number;
}

/** A fresh tracker, before any plugin ran. */
export function newRunning(): Running {
  return { plugin: '', filters: undefined, filterIndex: -1 };
}

/** The name of the plugin `running` says is running. */
export function runningPlugin(running: Running): string {
  const f = running.filters?.[running.filterIndex];
  return f === undefined ? running.plugin : f.name;
}

/** `s` with `plugin` as its author when it names none. */
export function withPlugin(s: Status, plugin: string): Status {
  return s.plugin === undefined ? { code: s.code, reasons: s.reasons, plugin } : s;
}

/** A cycle ended by a plugin's Error status (kube aborts the cycle). */
export interface CycleError {
  kind: 'Error';
  plugin: string;
  message: string;
}

/** The Error outcome of `s`, named after its plugin or the one running. */
export function cycleError(s: Status, running: Running): CycleError {
  return {
    kind: 'Error',
    plugin: s.plugin ?? runningPlugin(running),
    message: s.reasons.join(', '),
  };
}
