// A core PodGroup's placement and disruption fields (topology, priority, preemptionPolicy, disruptionMode) as kube-scheduler 1.37.2 reads them.
import { isRecord } from './fields.ts';
import { isLabelKey } from './pod-groups.ts';

/** How a PodGroup's members are disrupted when it is a preemption victim (`spec.disruptionMode`). */
export type CoreDisruptionMode = 'Single' | 'All';

/** What berth reads of a core PodGroup besides its policy. */
export interface CorePodGroupFields {
  /** `spec.schedulingConstraints.topology[].key`: the node label all members share (at most one). */
  topologyKeys: string[];
  /** `spec.priority`; 0 when unset (kube's PodGroupPriority: no class, no default class). */
  priority: number;
  /** `spec.preemptionPolicy` (gate PodGroupPreemptionPolicy); undefined when unset. */
  preemptionPolicy: 'Never' | 'PreemptLowerPriority' | undefined;
  /** `spec.disruptionMode`: `Single` when unset (the API's default). */
  disruptionMode: CoreDisruptionMode;
  /**
   * Why these fields cannot be honoured as written, or undefined: such a group is not placed
   * (its members wait, saying why), rather than placed against a constraint it did not ask for.
   */
  unusable: string | undefined;
}

/** kube's HighestUserDefinablePriority, the API's bound on `spec.priority`. */
const highestPriority = 1_000_000_000;

function readTopology(spec: Record<string, unknown>, problems: string[]): string[] {
  const constraints = spec.schedulingConstraints;
  if (constraints === undefined || constraints === null) return [];
  if (!isRecord(constraints)) {
    problems.push('spec.schedulingConstraints is not an object');
    return [];
  }
  const topology = constraints.topology;
  if (topology === undefined || topology === null) return [];
  if (!Array.isArray(topology)) {
    problems.push('spec.schedulingConstraints.topology is not a list');
    return [];
  }
  if (topology.length > 1) {
    problems.push(
      `spec.schedulingConstraints.topology has ${topology.length} entries; at most 1 is allowed`,
    );
    return [];
  }
  const entry: unknown = topology[0];
  if (entry === undefined) return [];
  const key = isRecord(entry) ? entry.key : undefined;
  if (typeof key === 'string' && isLabelKey(key)) return [key];
  problems.push(
    `spec.schedulingConstraints.topology[0].key ${JSON.stringify(key)} is not a node label key`,
  );
  return [];
}

function readPriority(spec: Record<string, unknown>, problems: string[]): number {
  const p = spec.priority;
  if (p === undefined || p === null) return 0;
  if (typeof p === 'number' && Number.isSafeInteger(p) && p >= -(2 ** 31) && p <= highestPriority)
    return p;
  problems.push(
    `spec.priority ${JSON.stringify(p)} is not an integer of at most ${highestPriority}`,
  );
  return 0;
}

function readPreemptionPolicy(
  spec: Record<string, unknown>,
  problems: string[],
): CorePodGroupFields['preemptionPolicy'] {
  const p = spec.preemptionPolicy;
  if (p === undefined || p === null) return undefined;
  if (p === 'Never' || p === 'PreemptLowerPriority') return p;
  problems.push(
    `spec.preemptionPolicy ${JSON.stringify(p)} is not one of Never, PreemptLowerPriority`,
  );
  return undefined;
}

function readDisruptionMode(spec: Record<string, unknown>, problems: string[]): CoreDisruptionMode {
  const m = spec.disruptionMode;
  if (m === undefined || m === null) return 'Single';
  const single = isRecord(m) && isRecord(m.single);
  const all = isRecord(m) && isRecord(m.all);
  if (single !== all) return all ? 'All' : 'Single';
  problems.push(
    single
      ? 'spec.disruptionMode sets both single and all'
      : 'spec.disruptionMode sets neither single nor all',
  );
  return 'Single';
}

/**
 * Reads the fields of core PodGroup spec `spec` that shape placement and preemption. Never
 * throws; a value the API server would refuse (it validates all of them) is named in
 * `unusable` and read as if absent.
 */
export function readCorePodGroupFields(spec: Record<string, unknown>): CorePodGroupFields {
  const problems: string[] = [];
  const topologyKeys = readTopology(spec, problems);
  const priority = readPriority(spec, problems);
  const preemptionPolicy = readPreemptionPolicy(spec, problems);
  const disruptionMode = readDisruptionMode(spec, problems);
  return {
    topologyKeys,
    priority,
    preemptionPolicy,
    disruptionMode,
    unusable: problems.length === 0 ? undefined : problems.join('; '),
  };
}
