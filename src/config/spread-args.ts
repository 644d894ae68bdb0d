// PodTopologySpreadArgs and InterPodAffinityArgs of a profile, checked as kube 1.34 does.
import { ArgsError } from '../framework/args-error.ts';
import { parseArgs as parseInterPodAffinityArgs } from '../plugins/inter-pod-affinity.ts';
import { qualifiedNameProblem } from './names.ts';
import {
  at,
  ConfigError,
  checkTypeMeta,
  child,
  fields,
  knownKeys,
  list,
  optionalEnum,
  optionalInt,
  optionalString,
} from './read.ts';

/** A cluster-level default spread constraint (a pod's constraint without a selector). */
export interface DefaultSpreadConstraint {
  maxSkew: number;
  topologyKey: string;
  whenUnsatisfiable: 'DoNotSchedule' | 'ScheduleAnyway';
}

/** What PodTopologySpread's factory is given (kube's PodTopologySpreadArgs). */
export interface PodTopologySpreadArgs {
  defaultConstraints: DefaultSpreadConstraint[];
  defaultingType: 'System' | 'List';
}

const int32 = 2 ** 31 - 1;
/** Fields of kube's TopologySpreadConstraint berth's defaults do not apply yet. */
const unsupported = ['minDomains', 'nodeAffinityPolicy', 'nodeTaintsPolicy', 'matchLabelKeys'];

function constraint(raw: unknown, path: string): DefaultSpreadConstraint {
  const c = fields(raw, path);
  knownKeys(c, path, [
    'maxSkew',
    'topologyKey',
    'whenUnsatisfiable',
    'labelSelector',
    ...unsupported,
  ]);
  if (c.labelSelector !== undefined && c.labelSelector !== null)
    throw new ConfigError(
      child(path, 'labelSelector'),
      'forbidden: a default constraint must not define a selector, it is deduced for each pod',
    );
  for (const key of unsupported)
    if (c[key] !== undefined && c[key] !== null)
      throw new ConfigError(
        child(path, key),
        "is not supported in berth's default constraints yet",
      );
  const maxSkew = optionalInt(
    c.maxSkew,
    child(path, 'maxSkew'),
    1,
    int32,
    'not in valid range (0, inf)',
  );
  if (maxSkew === undefined)
    throw new ConfigError(child(path, 'maxSkew'), '0 not in valid range (0, inf)');
  const keyPath = child(path, 'topologyKey');
  const topologyKey = optionalString(c.topologyKey, keyPath) ?? '';
  if (topologyKey === '') throw new ConfigError(keyPath, 'can not be empty');
  const problem = qualifiedNameProblem(topologyKey);
  if (problem !== undefined) throw new ConfigError(keyPath, `"${topologyKey}" ${problem}`);
  const whenPath = child(path, 'whenUnsatisfiable');
  const when = optionalEnum(c.whenUnsatisfiable, whenPath, ['DoNotSchedule', 'ScheduleAnyway']);
  if (when === undefined) throw new ConfigError(whenPath, 'can not be empty');
  return { maxSkew, topologyKey, whenUnsatisfiable: when };
}

/**
 * PodTopologySpreadArgs at `path`: `defaultingType` System (kube's default) or List;
 * `defaultConstraints` only with List, each with maxSkew > 0, a qualified topologyKey, a
 * whenUnsatisfiable, no labelSelector, and no two with the same key and action.
 */
export function spreadArgs(raw: unknown, path: string): PodTopologySpreadArgs {
  const args = fields(raw, path);
  knownKeys(args, path, ['apiVersion', 'kind', 'defaultConstraints', 'defaultingType']);
  checkTypeMeta(args, path, 'PodTopologySpread');
  const cPath = child(path, 'defaultConstraints');
  const defaultConstraints = list(args.defaultConstraints, cPath).map((c, i) =>
    constraint(c, at(cPath, i)),
  );
  defaultConstraints.forEach((c, i) => {
    const earlier = defaultConstraints.slice(0, i);
    if (
      earlier.some(
        (o) => o.topologyKey === c.topologyKey && o.whenUnsatisfiable === c.whenUnsatisfiable,
      )
    )
      throw new ConfigError(
        at(cPath, i),
        `duplicate value {${c.topologyKey}, ${c.whenUnsatisfiable}}`,
      );
  });
  const tPath = child(path, 'defaultingType');
  const defaultingType = optionalEnum(args.defaultingType, tPath, ['System', 'List']) ?? 'System';
  if (defaultingType === 'System' && defaultConstraints.length > 0)
    throw new ConfigError(tPath, 'must be List when .defaultConstraints are not empty');
  return { defaultConstraints, defaultingType };
}

/** What InterPodAffinity's factory is given. */
export interface InterPodAffinityArgs {
  hardPodAffinityWeight: number;
  /** Only when true (the plugin's default is false). */
  ignorePreferredTermsOfExistingPods?: true;
}

/**
 * InterPodAffinityArgs at `path`: apiVersion/kind as kube's, then the plugin's own check
 * (`parseArgs`, kube 1.34's ValidateInterPodAffinityArgs: hardPodAffinityWeight 0–100,
 * default 1; ignorePreferredTermsOfExistingPods any boolean, passed on only when true),
 * its errors put at the field's path.
 */
export function interPodAffinityArgs(raw: unknown, path: string): InterPodAffinityArgs {
  const { apiVersion: _v, kind: _k, ...args } = fields(raw, path);
  checkTypeMeta(fields(raw, path), path, 'InterPodAffinity');
  try {
    const parsed = parseInterPodAffinityArgs(args);
    return parsed.ignorePreferredTermsOfExistingPods
      ? {
          hardPodAffinityWeight: parsed.hardPodAffinityWeight,
          ignorePreferredTermsOfExistingPods: true,
        }
      : { hardPodAffinityWeight: parsed.hardPodAffinityWeight };
  } catch (error) {
    if (!(error instanceof ArgsError)) throw error;
    throw new ConfigError(error.field === '' ? path : child(path, error.field), error.problem);
  }
}
