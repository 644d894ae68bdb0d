// PriorityClasses and the Priority admission plugin: a pod's priority comes from its class.
import { ManifestError, type PriorityClassObject } from './manifests.ts';

/** A validated PriorityClass. */
export interface PriorityClass {
  name: string;
  value: number;
  globalDefault: boolean;
  preemptionPolicy: 'PreemptLowerPriority' | 'Never';
}

/** The classes a simulated API server holds, by name, and the global default if any. */
export interface PriorityClassTable {
  byName: ReadonlyMap<string, PriorityClass>;
  globalDefault: PriorityClass | undefined;
}

/** The classes every API server creates at start-up. */
export const builtinPriorityClasses: readonly PriorityClass[] = [
  {
    name: 'system-cluster-critical',
    value: 2_000_000_000,
    globalDefault: false,
    preemptionPolicy: 'PreemptLowerPriority',
  },
  {
    name: 'system-node-critical',
    value: 2_000_001_000,
    globalDefault: false,
    preemptionPolicy: 'PreemptLowerPriority',
  },
];

/** The highest value a user-defined class may have. */
export const highestUserDefinablePriority = 1_000_000_000;

const policies = new Set(['PreemptLowerPriority', 'Never']);

/** Validates one class as the API server does on create; throws naming `origin`. */
function validateClass(object: PriorityClassObject, origin: string): PriorityClass {
  const name = object.metadata.name;
  const refuse = (detail: string) =>
    new ManifestError(`${origin}: PriorityClass ${name} is invalid: ${detail}`);
  const value = object.value ?? 0;
  if (typeof value !== 'number' || !Number.isInteger(value) || Math.abs(value) > 2 ** 31 - 1)
    throw refuse(`value: Invalid value: ${JSON.stringify(value)}: must be a 32-bit integer`);
  const policy = object.preemptionPolicy ?? 'PreemptLowerPriority';
  if (typeof policy !== 'string' || !policies.has(policy))
    throw refuse(
      `preemptionPolicy: Unsupported value: ${JSON.stringify(policy)}: supported values: "PreemptLowerPriority", "Never"`,
    );
  const globalDefault = object.globalDefault ?? false;
  if (typeof globalDefault !== 'boolean')
    throw refuse(
      `globalDefault: Invalid value: ${JSON.stringify(globalDefault)}: must be a boolean`,
    );
  const builtin = builtinPriorityClasses.find((c) => c.name === name);
  if (builtin !== undefined) {
    // A dump of a cluster (kubectl get priorityclasses -o yaml) lists the built-in ones.
    if (value === builtin.value && !globalDefault) return builtin;
    throw refuse(`${name} is built in with value ${builtin.value}; it cannot be redefined`);
  }
  if (name.startsWith('system-'))
    throw refuse(
      "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only",
    );
  if (value > highestUserDefinablePriority)
    throw refuse(
      `value: Forbidden: maximum allowed value of a user defined priority is ${highestUserDefinablePriority}`,
    );
  return {
    name,
    value,
    globalDefault,
    preemptionPolicy: policy as PriorityClass['preemptionPolicy'],
  };
}

/**
 * Validates `entries` and builds the class table, with the built-in classes. Throws
 * ManifestError naming both places for a class defined twice or a second global default
 * (the API server allows only one).
 */
export function priorityClassTable(
  entries: readonly { object: PriorityClassObject; origin: string }[],
): PriorityClassTable {
  const byName = new Map<string, PriorityClass>(builtinPriorityClasses.map((c) => [c.name, c]));
  const origins = new Map<string, string>();
  let globalDefault: { pc: PriorityClass; origin: string } | undefined;
  for (const { object, origin } of entries) {
    const pc = validateClass(object, origin);
    const first = origins.get(pc.name);
    if (first !== undefined)
      throw new ManifestError(
        `${origin}: PriorityClass ${pc.name} is defined twice (first at ${first}); names must be unique`,
      );
    origins.set(pc.name, origin);
    byName.set(pc.name, pc);
    if (!pc.globalDefault) continue;
    if (globalDefault !== undefined)
      throw new ManifestError(
        `${origin}: PriorityClass ${pc.name} is forbidden: PriorityClass ${globalDefault.pc.name} ` +
          `(at ${globalDefault.origin}) is already marked as default. Only one default can exist`,
      );
    globalDefault = { pc, origin };
  }
  return { byName, globalDefault: globalDefault?.pc };
}

/**
 * The Priority admission plugin on a pod's spec (changed in place): the class named by
 * `priorityClassName`, else the global default class, else priority 0 and
 * PreemptLowerPriority. `priority` and `preemptionPolicy` given in the spec must equal what
 * the class says. Throws ManifestError with the API server's message, prefixed by `ref`.
 */
export function admitPriority(
  spec: Record<string, unknown>,
  classes: PriorityClassTable,
  ref: string,
): void {
  const className = spec.priorityClassName;
  let pc: PriorityClass | undefined;
  if (typeof className === 'string' && className !== '') {
    pc = classes.byName.get(className);
    if (pc === undefined)
      throw new ManifestError(
        `${ref} is forbidden: no PriorityClass with name ${className} was found`,
      );
  } else {
    pc = classes.globalDefault;
    if (pc !== undefined) spec.priorityClassName = pc.name;
  }
  const priority = pc?.value ?? 0;
  const policy = pc?.preemptionPolicy ?? 'PreemptLowerPriority';
  const given = spec.priority;
  if (given !== undefined && given !== null && given !== priority)
    throw new ManifestError(
      `${ref} is forbidden: the integer value of priority (${JSON.stringify(given)}) must not be ` +
        `provided in pod spec; priority admission controller computed ${priority} from the given ` +
        'PriorityClass name (give the pod a priorityClassName of a PriorityClass instead)',
    );
  const givenPolicy = spec.preemptionPolicy;
  if (givenPolicy !== undefined && givenPolicy !== null && givenPolicy !== policy)
    throw new ManifestError(
      `${ref} is forbidden: the string value of PreemptionPolicy (${String(givenPolicy)}) must ` +
        `not be provided in pod spec; priority admission controller computed ${policy} from the ` +
        'given PriorityClass name',
    );
  spec.priority = priority;
  spec.preemptionPolicy = policy;
}
