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

/** The extension points whose Error statuses kube words with the point's name. */
export type ErrorPoint = 'PreFilter' | 'Filter' | 'Reserve';

/** A cycle ended by a plugin's Error status (kube aborts the cycle). */
export interface CycleError {
  kind: 'Error';
  plugin: string;
  message: string;
  /** Where it failed, when known (absent: an exception, or a log from before it was kept). */
  point?: ErrorPoint;
}

/** The Error outcome of `s`, named after its plugin or the one running, failed at `point`. */
export function cycleError(s: Status, running: Running, point?: ErrorPoint): CycleError {
  return {
    kind: 'Error',
    plugin: s.plugin ?? runningPlugin(running),
    message: s.reasons.join(', '),
    ...(point === undefined ? {} : { point }),
  };
}

/**
 * What a failed cycle says on the pod (PodScheduled=False, SchedulerError): kube's wording
 * of an Error status at `point` (e.g. `running "DynamicResources" filter plugin: …`), or
 * `plugin: message` where the point is not known.
 */
export function cycleErrorText(e: { plugin: string; message: string; point?: ErrorPoint }): string {
  switch (e.point) {
    case 'PreFilter':
      return `running PreFilter plugin "${e.plugin}": ${e.message}`;
    case 'Filter':
      return `running "${e.plugin}" filter plugin: ${e.message}`;
    case 'Reserve':
      return `running Reserve plugin "${e.plugin}": ${e.message}`;
    default:
      return `${e.plugin}: ${e.message}`;
  }
}
