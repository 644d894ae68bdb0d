// Parser of ResourceSlices into dra-types' JSON view; what kube's validation would refuse (129 devices, two node selections) is named in `invalid`.

import type {
  Device,
  DeviceAttribute,
  DeviceCapacity,
  DeviceCounterConsumption,
  ResourceSliceInfo,
} from '../model/dra-types.ts';
import { taint } from './dra-objects.ts';
import * as read from './dra-read.ts';
import type { JsonRecord } from './fields.ts';

/** resource.k8s.io/v1 ResourceSlice limits (k8s.io/api/resource/v1 constants). */
export const sliceLimits = {
  devices: 128,
  /** When any device has taints or consumes counters. */
  devicesWithAdvancedFeatures: 64,
  attributesAndCapacities: 32,
  taints: 16,
  counterSets: 8,
  countersPerSet: 32,
  consumptionsPerDevice: 2,
} as const;

function attribute(v: unknown, path: string, p: read.Problems): DeviceAttribute | undefined {
  const r = read.optRecord(v, path, p);
  if (r === undefined) return undefined;
  const a: DeviceAttribute = read.defined({
    int: read.optInt(r.int, `${path}.int`, p),
    bool: read.optBool(r.bool, `${path}.bool`, p),
    string: read.optString(r.string, `${path}.string`, p),
    version: read.optString(r.version, `${path}.version`, p),
  });
  if (Object.keys(a).length !== 1) return p.add(`${path}: exactly one value must be set`);
  return a;
}

function quantityString(v: unknown, path: string, p: read.Problems): string | undefined {
  if (typeof v === 'string' && v !== '') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return p.add(`${path} is not a quantity`);
}

function capacity(v: unknown, path: string, p: read.Problems): DeviceCapacity | undefined {
  const r = read.optRecord(v, path, p);
  if (r === undefined) return undefined;
  const value = quantityString(r.value, `${path}.value`, p);
  if (value === undefined) return undefined;
  const policy = read.optRecord(r.requestPolicy, `${path}.requestPolicy`, p);
  if (policy === undefined) return { value };
  const range = read.optRecord(policy.validRange, `${path}.requestPolicy.validRange`, p);
  const q = (x: unknown, at: string) => (x === undefined ? undefined : quantityString(x, at, p));
  const valid = read.list(policy.validValues, `${path}.requestPolicy.validValues`, p, 10, (x, at) =>
    quantityString(x, at, p),
  );
  return {
    value,
    requestPolicy: read.defined({
      default: q(policy.default, `${path}.requestPolicy.default`),
      validValues: valid.length > 0 ? valid : undefined,
      validRange:
        range &&
        read.defined({
          min: q(range.min, `${path}.requestPolicy.validRange.min`),
          max: q(range.max, `${path}.requestPolicy.validRange.max`),
          step: q(range.step, `${path}.requestPolicy.validRange.step`),
        }),
    }),
  };
}

function counters(v: unknown, path: string, p: read.Problems): Record<string, { value: string }> {
  return (
    read.map(v, path, p, sliceLimits.countersPerSet, (x, at) => {
      const value = quantityString(read.optRecord(x, at, p)?.value, `${at}.value`, p);
      return value === undefined ? undefined : { value };
    }) ?? {}
  );
}

function consumption(
  v: unknown,
  path: string,
  p: read.Problems,
): DeviceCounterConsumption | undefined {
  const r = read.optRecord(v, path, p);
  if (r === undefined) return undefined;
  return {
    counterSet: read.reqString(r.counterSet, `${path}.counterSet`, p),
    counters: counters(r.counters, `${path}.counters`, p),
  };
}

function device(v: unknown, path: string, p: read.Problems): Device | undefined {
  const r = read.optRecord(v, path, p);
  if (r === undefined) return undefined;
  const attributes = read.map(r.attributes, `${path}.attributes`, p, 1e6, (x, at) =>
    attribute(x, at, p),
  );
  const capacities = read.map(r.capacity, `${path}.capacity`, p, 1e6, (x, at) =>
    capacity(x, at, p),
  );
  const named = Object.keys(attributes ?? {}).length + Object.keys(capacities ?? {}).length;
  if (named > sliceLimits.attributesAndCapacities)
    p.add(
      `${path}: ${named} attributes and capacities, more than the ${sliceLimits.attributesAndCapacities} allowed`,
    );
  const consumes = read.list(
    r.consumesCounters,
    `${path}.consumesCounters`,
    p,
    sliceLimits.consumptionsPerDevice,
    (x, at) => consumption(x, at, p),
  );
  const taints = read.list(r.taints, `${path}.taints`, p, sliceLimits.taints, (x, at) =>
    taint(x, at, p),
  );
  const conditions = (field: string) => {
    const l = read.stringList(r[field], `${path}.${field}`, p, 4);
    return l.length > 0 ? l : undefined;
  };
  return read.defined({
    name: read.reqString(r.name, `${path}.name`, p),
    attributes,
    capacity: capacities,
    consumesCounters: consumes.length > 0 ? consumes : undefined,
    nodeName: read.optString(r.nodeName, `${path}.nodeName`, p) || undefined,
    nodeSelector: read.nodeSelector(r.nodeSelector, `${path}.nodeSelector`, p),
    allNodes: read.optBool(r.allNodes, `${path}.allNodes`, p) || undefined,
    taints: taints.length > 0 ? taints : undefined,
    bindsToNode: read.optBool(r.bindsToNode, `${path}.bindsToNode`, p),
    bindingConditions: conditions('bindingConditions'),
    bindingFailureConditions: conditions('bindingFailureConditions'),
    allowMultipleAllocations: read.optBool(
      r.allowMultipleAllocations,
      `${path}.allowMultipleAllocations`,
      p,
    ),
  });
}

/** Parses a ResourceSlice. Never throws; rejects only a nameless object. */
export function parseResourceSlice(
  raw: unknown,
): { value: ResourceSliceInfo } | { rejected: string } {
  const m = read.metadataOf(raw, 'ResourceSlice');
  if (typeof m === 'string') return { rejected: m };
  const p = new read.Problems();
  const spec = read.optRecord((raw as JsonRecord).spec, 'spec', p) ?? {};
  const pool = read.optRecord(spec.pool, 'spec.pool', p) ?? {};
  const devices = read.list(spec.devices, 'spec.devices', p, 1e6, (x, at) => device(x, at, p));
  const advanced = devices.some((d) => d.taints !== undefined || d.consumesCounters !== undefined);
  const maxDevices = advanced ? sliceLimits.devicesWithAdvancedFeatures : sliceLimits.devices;
  if (devices.length > maxDevices)
    p.add(
      `spec.devices has ${devices.length} devices, more than the ${maxDevices} a ResourceSlice may have`,
    );
  const sharedCounters = read.list(
    spec.sharedCounters,
    'spec.sharedCounters',
    p,
    sliceLimits.counterSets,
    (x, at) => {
      const r = read.optRecord(x, at, p);
      return (
        r && {
          name: read.reqString(r.name, `${at}.name`, p),
          counters: counters(r.counters, `${at}.counters`, p),
        }
      );
    },
  );
  const slice: ResourceSliceInfo = read.defined({
    name: m.name,
    driver: read.reqString(spec.driver, 'spec.driver', p),
    pool: {
      name: read.reqString(pool.name, 'spec.pool.name', p),
      generation: read.optInt(pool.generation, 'spec.pool.generation', p) ?? 0,
      resourceSliceCount:
        read.optInt(pool.resourceSliceCount, 'spec.pool.resourceSliceCount', p) ?? 0,
    },
    nodeName: read.optString(spec.nodeName, 'spec.nodeName', p) || undefined,
    nodeSelector: read.nodeSelector(spec.nodeSelector, 'spec.nodeSelector', p),
    allNodes: read.optBool(spec.allNodes, 'spec.allNodes', p) || undefined,
    perDeviceNodeSelection:
      read.optBool(spec.perDeviceNodeSelection, 'spec.perDeviceNodeSelection', p) || undefined,
    devices,
    sharedCounters: sharedCounters.length > 0 ? sharedCounters : undefined,
  });
  const selections = [
    slice.nodeName,
    slice.nodeSelector,
    slice.allNodes,
    slice.perDeviceNodeSelection,
  ];
  const set = selections.filter((s) => s !== undefined).length;
  if (set !== 1 && !(set === 0 && slice.sharedCounters !== undefined && devices.length === 0))
    p.add(
      'spec: exactly one of nodeName, nodeSelector, allNodes and perDeviceNodeSelection must be set',
    );
  if (p.first !== undefined) slice.invalid = p.first;
  return { value: slice };
}
