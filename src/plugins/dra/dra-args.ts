// kube's DynamicResourcesArgs (filterTimeout, bindingTimeout), read into what berth's DynamicResources uses.
import { goDurationMs } from '../../model/go-duration.ts';
import { isRecord } from '../../model/record.ts';
import { defaultBindingTimeoutMs } from './binding-conditions.ts';

/** kube's DynamicResourcesFilterTimeoutDefault. */
export const defaultFilterTimeoutMs = 10_000;

/** DynamicResourcesArgs as berth reads them. */
export interface DraArgs {
  /** PreBind's wait for binding conditions (kube: ≥ 1 s, default 600 s). */
  bindingTimeoutMs: number;
  /** The allocator's limit per node (kube: ≥ 0, default 10 s; 0 turns it off). */
  filterTimeoutMs: number;
}

function durationField(raw: Record<string, unknown>, field: string, fallback: number): number {
  const v = raw[field];
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'string')
    throw new Error(`${field}: must be a duration string, got ${JSON.stringify(v)}`);
  const ms = goDurationMs(v);
  if (ms === undefined)
    throw new Error(`${field}: must be a duration such as 10s or 1m30s, got ${JSON.stringify(v)}`);
  return ms;
}

/**
 * Reads DynamicResourcesArgs (`filterTimeout`, `bindingTimeout`, as kube's config spells
 * them) with kube's defaults and checks (ValidateDynamicResourcesArgs: filterTimeout zero
 * or positive, bindingTimeout at least 1 second). Throws with the field for a bad value.
 */
export function readDraArgs(raw: unknown): DraArgs {
  const args = isRecord(raw) ? raw : {};
  const filterTimeoutMs = durationField(args, 'filterTimeout', defaultFilterTimeoutMs);
  const bindingTimeoutMs = durationField(args, 'bindingTimeout', defaultBindingTimeoutMs);
  if (bindingTimeoutMs < 1000) throw new Error('bindingTimeout: must be at least 1 second');
  return { bindingTimeoutMs, filterTimeoutMs };
}
