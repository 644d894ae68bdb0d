// Exact resource lists for pod requests: parsing with problem notes, sum, max and kube's container aggregate.
import { isRecord, type JsonRecord } from './fields.ts';
import { parseQuantityAt } from './quantity.ts';

/** Resource name → exact amount in nanos. Sums stay exact; rounding happens once at the end. */
export type Amounts = Map<string, bigint>;

/** Collects the first problem; later ones are dropped so the reason stays short. */
export interface Problems {
  first: string | undefined;
}

/** Records `reason` unless a problem was already noted. */
export function note(problems: Problems, reason: string): void {
  if (problems.first === undefined) problems.first = reason;
}

/** Reads an optional object field: undefined/null → undefined; another type → a problem. */
export function optionalRecord(
  v: unknown,
  path: string,
  problems: Problems,
): JsonRecord | undefined {
  if (v === undefined || v === null) return undefined;
  if (isRecord(v)) return v;
  note(problems, `${path} is not an object`);
  return undefined;
}

/** Parses a resource list into `into` (skipping `pods`); bad quantities count as 0. */
export function readList(list: JsonRecord, path: string, into: Amounts, problems: Problems): void {
  for (const name of Object.keys(list)) {
    if (name === 'pods') continue;
    const parsed = parseQuantityAt(list[name], `${path}.${name}`);
    if (parsed.ok) {
      into.set(name, parsed.q.nanos);
    } else {
      note(problems, parsed.error);
      into.set(name, 0n);
    }
  }
}

/** An optional resource list at `path`, parsed; undefined when absent or not an object. */
export function readOptionalList(
  v: unknown,
  path: string,
  problems: Problems,
): Amounts | undefined {
  const list = optionalRecord(v, path, problems);
  if (list === undefined) return undefined;
  const amounts: Amounts = new Map();
  readList(list, path, amounts, problems);
  return amounts;
}

/** kube's maxResourceList: `into` takes the larger amount of every resource in `from`. */
export function maxInto(into: Amounts, from: Amounts): void {
  for (const [name, v] of from) {
    const cur = into.get(name);
    if (cur === undefined || v > cur) into.set(name, v);
  }
}

/** kube's addResourceList: `into` gains every amount of `from`. */
export function addInto(into: Amounts, from: Amounts): void {
  for (const [name, v] of from) into.set(name, (into.get(name) ?? 0n) + v);
}

/** A container as the aggregate sees it: whether it is a sidecar (restartable init container). */
export interface Aggregated {
  /** A restartable init container (`restartPolicy: Always`): a sidecar. */
  sidecar: boolean;
}

/**
 * kube's AggregateContainerRequests over the lists `pick` gives: app containers and sidecars
 * are summed; init container i needs its own amount plus the sidecars started before it;
 * the pod needs the larger of the two, per resource.
 */
export function aggregate<C extends Aggregated>(
  app: readonly C[],
  init: readonly C[],
  pick: (c: C) => Amounts,
): Amounts {
  const result: Amounts = new Map();
  for (const c of app) addInto(result, pick(c));
  const sidecars: Amounts = new Map();
  const initMax: Amounts = new Map();
  for (const c of init) {
    const own = pick(c);
    if (c.sidecar) {
      addInto(result, own);
      addInto(sidecars, own);
      maxInto(initMax, sidecars);
    } else {
      const step = new Map(sidecars);
      addInto(step, own);
      maxInto(initMax, step);
    }
  }
  maxInto(result, initMax);
  return result;
}

/** kube's applyNonMissing: the defaults for resources a list does not name. */
export function withDefaults(amounts: Amounts, defaults: Amounts): Amounts {
  const out = new Map(amounts);
  for (const [name, v] of defaults) if (!amounts.has(name)) out.set(name, v);
  return out;
}
