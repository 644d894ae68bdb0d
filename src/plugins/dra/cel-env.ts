// The CEL environment of DRA device selectors (kube's `device` variable and libraries) and the conversion of a device into it.
import { Environment } from '@marcbachmann/cel-js';
import type { DeviceAttribute, DeviceCapacity } from '../../model/dra-types.ts';
import { registerDraExtensions } from './cel-extensions.ts';
import {
  type CelQuantity,
  parseCelQuantity,
  quantityTypeName,
  registerQuantityLibrary,
} from './cel-quantity.ts';
import { CelSemver, parseCelSemver, registerSemverLibrary } from './cel-semver.ts';

/** The device a selector sees (what kube's cel.Device holds). */
export interface CelDevice {
  driver: string;
  /** Qualified name (`domain/id`, or `id` in the driver's domain) → value. */
  attributes: Record<string, DeviceAttribute>;
  /** Qualified name → capacity. */
  capacity: Record<string, DeviceCapacity>;
  allowMultipleAllocations?: boolean;
}

/** kube's CEL type name for the `device` variable. */
export const deviceTypeName = 'kubernetes.DRADevice';

/**
 * A map of domains whose lookups never miss: like kube's mapper, a missing domain reads as an
 * empty map (so `device.attributes["x"].y` fails with "no such key: y"), while `in` and
 * iteration see only the real domains (see cel-guard.ts for `in`).
 */
export class DomainMap<V> extends Map<string, Map<string, V>> {
  constructor(
    readonly honest: Map<string, Map<string, V>>,
    private readonly empty: Map<string, V>,
  ) {
    super(honest);
    // cel-js recognises maps by their exact constructor.
    Object.defineProperty(this, 'constructor', { value: Map });
  }

  override get(key: string): Map<string, V> {
    return super.get(key) ?? this.empty;
  }
}

/** The `device` value given to a selector: one instance per evaluation. */
export class DeviceValue {
  constructor(
    readonly driver: string,
    readonly allowMultipleAllocations: boolean,
    readonly attributes: DomainMap<unknown>,
    readonly capacity: DomainMap<CelQuantity>,
  ) {}
}

const EMPTY = new Map<string, never>();

/** Maps a DomainMap to the plain map behind it; anything else is returned unchanged. */
export function honestMap(v: unknown): unknown {
  return v instanceof DomainMap ? v.honest : v;
}

/** kube's parseQualifiedName: `domain/id`, or `id` in the driver's domain. */
function splitQualifiedName(name: string, driver: string): [string, string] {
  const slash = name.indexOf('/');
  return slash === -1 ? [driver, name] : [name.slice(0, slash), name.slice(slash + 1)];
}

/** A DRA attribute as a CEL value (kube's getAttributeValue), or the reason it is not one. */
function attributeValue(attr: DeviceAttribute): unknown | { error: string } {
  if (attr.int !== undefined) {
    return Number.isInteger(attr.int) ? BigInt(attr.int) : { error: 'unsupported attribute value' };
  }
  if (attr.bool !== undefined) return attr.bool;
  if (attr.string !== undefined) return attr.string;
  if (attr.version !== undefined) {
    const v = parseCelSemver(attr.version);
    return v instanceof CelSemver ? v : { error: `parse semantic version: ${v.error}` };
  }
  return { error: 'unsupported attribute value' };
}

function isError(v: unknown): v is { error: string } {
  return typeof v === 'object' && v !== null && 'error' in v && !(v instanceof Map);
}

function group<T, V>(
  entries: Record<string, T>,
  driver: string,
  kind: string,
  convert: (t: T) => V | { error: string },
): DomainMap<V> | { error: string } {
  const honest = new Map<string, Map<string, V>>();
  for (const [name, raw] of Object.entries(entries)) {
    const value = convert(raw);
    if (isError(value)) return { error: `${kind} ${name}: ${value.error}` };
    const [domain, id] = splitQualifiedName(name, driver);
    const inner = honest.get(domain) ?? new Map<string, V>();
    inner.set(id, value);
    honest.set(domain, inner);
  }
  return new DomainMap(honest, EMPTY);
}

/** Builds the `device` value kube's DeviceMatches builds, or the error it reports. */
export function deviceValue(device: CelDevice): DeviceValue | { error: string } {
  const attributes = group(device.attributes ?? {}, device.driver, 'attribute', attributeValue);
  if (isError(attributes)) return attributes;
  const capacity = group(device.capacity ?? {}, device.driver, 'capacity', (c: DeviceCapacity) =>
    parseCelQuantity(c.value),
  );
  if (isError(capacity)) return capacity;
  return new DeviceValue(
    device.driver,
    device.allowMultipleAllocations ?? false,
    attributes,
    capacity as DomainMap<CelQuantity>,
  );
}

/** Parse-time limits: far above anything a 10 KiB expression can reach, except nesting depth. */
const limits = {
  maxAstNodes: 20_000,
  maxDepth: 250,
  maxListElements: 10_240,
  maxMapEntries: 10_240,
  maxCallArguments: 10_240,
};

/** Builds the environment of the scheduler's stored-expression DRA environment (kube 1.37). */
export function newDraEnvironment(): Environment {
  const env = new Environment({ enableOptionalTypes: true, limits });
  registerQuantityLibrary(env);
  registerSemverLibrary(env);
  registerDraExtensions(env);
  env.registerType(deviceTypeName, {
    ctor: DeviceValue,
    fields: {
      driver: 'string',
      allowMultipleAllocations: 'bool',
      attributes: 'map<string, map<string, dyn>>',
      capacity: `map<string, map<string, ${quantityTypeName}>>`,
    },
  });
  env.registerVariable('device', deviceTypeName);
  return env;
}
