// Resource amounts as JSON holds them exactly: bigints (amounts past 2^53) as decimal strings.

import { isRecord } from '../model/record.ts';
import { type Amount, type AmountData, amountData, amountFromData } from './amount.ts';
import { readCorePodGroupFields } from './core-pod-group-fields.ts';
import { emptyRecord } from './fields.ts';
import type { PodGroupInfo } from './pod-groups.ts';
import type { NonZeroRequests } from './resources.ts';
import type { Resources } from './types.ts';

/** A resource vector as JSON holds it: numbers, and bigint amounts as decimal strings. */
export interface ResourcesData {
  milliCPU: AmountData;
  memory: AmountData;
  ephemeralStorage: AmountData;
  scalar: Record<string, AmountData>;
}

/** Non-zero requests as JSON holds them (see ResourcesData). */
export interface NonZeroData {
  milliCPU: AmountData;
  memory: AmountData;
}

/** Reports malformed data; never returns (the snapshot reader throws its own error). */
export type Fail = (message: string) => never;

/** `r` as data, a fresh object. */
export function resourcesData(r: Resources): ResourcesData {
  const scalar: Record<string, AmountData> = {};
  for (const key of Object.keys(r.scalar)) scalar[key] = amountData(r.scalar[key] as Amount);
  return {
    milliCPU: amountData(r.milliCPU),
    memory: amountData(r.memory),
    ephemeralStorage: amountData(r.ephemeralStorage),
    scalar,
  };
}

/** `r` as data, a fresh object. */
export function nonZeroData(r: NonZeroRequests): NonZeroData {
  return { milliCPU: amountData(r.milliCPU), memory: amountData(r.memory) };
}

/** True when `r` holds no bigint: then it is its own data form. */
export function isPlainResources(r: Resources): r is Resources & ResourcesData {
  if (typeof r.milliCPU === 'bigint' || typeof r.memory === 'bigint') return false;
  if (typeof r.ephemeralStorage === 'bigint') return false;
  for (const key in r.scalar) if (typeof r.scalar[key] === 'bigint') return false;
  return true;
}

function amount(d: unknown, what: string, fail: Fail): Amount {
  const a = amountFromData(d);
  return a === undefined ? fail(`${what} is not an amount`) : a;
}

/** A resource vector from its data form (scalar map without a prototype); `fail` on junk. */
export function resourcesFromData(r: unknown, what: string, fail: Fail): Resources {
  if (!isRecord(r)) return fail(`${what} is not an object`);
  if (!isRecord(r.scalar)) return fail(`${what}.scalar is not an object`);
  const scalar = emptyRecord<Amount>();
  for (const key of Object.keys(r.scalar))
    scalar[key] = amount(r.scalar[key], `${what}.scalar.${key}`, fail);
  return {
    milliCPU: amount(r.milliCPU, `${what}.milliCPU`, fail),
    memory: amount(r.memory, `${what}.memory`, fail),
    ephemeralStorage: amount(r.ephemeralStorage, `${what}.ephemeralStorage`, fail),
    scalar,
  };
}

/** Non-zero requests from their data form; `fail` on junk. */
export function nonZeroFromData(r: unknown, what: string, fail: Fail): NonZeroRequests {
  if (!isRecord(r)) return fail(`${what} is not an object`);
  return {
    milliCPU: amount(r.milliCPU, `${what}.milliCPU`, fail),
    memory: amount(r.memory, `${what}.memory`, fail),
  };
}

/** A pod group's parsed view as data: itself unless its minResources holds a bigint. */
export function podGroupData(g: PodGroupInfo): unknown {
  const min = g.minResources;
  return min === undefined || isPlainResources(min)
    ? g
    : { ...g, minResources: resourcesData(min) };
}

/** The fields a core PodGroup read from an empty spec has (unset topology, priority, modes). */
const corePodGroupDefaults = readCorePodGroupFields({});

/**
 * A pod group's parsed view from its data form (see podGroupData). A core PodGroup of a
 * snapshot older than its placement fields holds none of them: they are read as unset.
 */
export function podGroupFromData(
  kind: 'PodGroup' | 'CorePodGroup',
  data: unknown,
  what: string,
  fail: Fail,
): unknown {
  if (kind === 'CorePodGroup') return { ...corePodGroupDefaults, ...(data as object) };
  if (!isRecord(data) || data.minResources === undefined || data.minResources === null) return data;
  return {
    ...data,
    minResources: resourcesFromData(data.minResources, `${what}.minResources`, fail),
  };
}
