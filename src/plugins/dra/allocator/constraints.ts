// Claim constraints (matchAttribute, distinctAttribute) checked as devices are picked, undone on backtracking.

import type { Device, DeviceAttribute, DeviceConstraint } from '../../../model/dra-types.ts';
import { AllocatorError } from './types.ts';

/** A constraint over the devices picked for a claim; `remove` undoes exactly one `add`. */
export interface Constraint {
  add(request: string, subRequest: string, device: Device, driver: string): boolean;
  remove(request: string, subRequest: string, device: Device, driver: string): void;
}

/**
 * A device's attribute by fully qualified name: the exact name, else the bare id when the
 * domain is the device's driver (kube's lookupAttribute).
 */
export function lookupAttribute(
  device: Device,
  driver: string,
  name: string,
): DeviceAttribute | undefined {
  const attrs = device.attributes ?? {};
  if (Object.hasOwn(attrs, name)) return attrs[name];
  const slash = name.indexOf('/');
  if (slash < 0 || name.slice(0, slash) !== driver) return undefined;
  const id = name.slice(slash + 1);
  return Object.hasOwn(attrs, id) ? attrs[id] : undefined;
}

type Kind = 'string' | 'int' | 'bool' | 'version';

/** The attribute's type and value, as kube's switch reads them (string first). */
function typed(a: DeviceAttribute): [Kind, unknown] | undefined {
  if (a.string !== undefined) return ['string', a.string];
  if (a.int !== undefined) return ['int', a.int];
  if (a.bool !== undefined) return ['bool', a.bool];
  if (a.version !== undefined) return ['version', a.version];
  return undefined;
}

function sameValue(a: DeviceAttribute, b: DeviceAttribute): boolean {
  const x = typed(a);
  const y = typed(b);
  return x !== undefined && y !== undefined && x[0] === y[0] && x[1] === y[1];
}

function appliesTo(names: ReadonlySet<string>, request: string, subRequest: string): boolean {
  if (names.size === 0) return true;
  return names.has(request) || (subRequest !== '' && names.has(`${request}/${subRequest}`));
}

/** What both constraint kinds share: which requests they apply to, and the attribute lookup. */
abstract class AttributeConstraint implements Constraint {
  constructor(
    private readonly names: ReadonlySet<string>,
    private readonly attribute: string,
  ) {}
  add(request: string, subRequest: string, device: Device, driver: string): boolean {
    if (!appliesTo(this.names, request, subRequest)) return true;
    const attr = lookupAttribute(device, driver, this.attribute);
    return attr !== undefined && this.admit(attr);
  }
  remove(request: string, subRequest: string): void {
    if (appliesTo(this.names, request, subRequest)) this.drop();
  }
  protected abstract admit(attr: DeviceAttribute): boolean;
  protected abstract drop(): void;
}

/** matchAttribute: the first device sets the value, every later one must equal it. */
class MatchAttribute extends AttributeConstraint {
  private first: DeviceAttribute | undefined;
  private count = 0;
  protected admit(attr: DeviceAttribute): boolean {
    if (this.count === 0) this.first = attr;
    else if (!sameValue(attr, this.first as DeviceAttribute)) return false;
    this.count++;
    return true;
  }
  protected drop(): void {
    this.count--;
  }
}

/** distinctAttribute: no two devices share a value. */
class DistinctAttribute extends AttributeConstraint {
  private readonly seen: DeviceAttribute[] = [];
  protected admit(attr: DeviceAttribute): boolean {
    // An attribute of unknown type conflicts with any earlier one, not with an empty set.
    const unknown = typed(attr) === undefined;
    if (this.seen.some((s) => unknown || sameValue(attr, s))) return false;
    this.seen.push(attr);
    return true;
  }
  protected drop(): void {
    this.seen.pop();
  }
}

/** Fresh constraint trackers for a claim, or kube's error for a constraint of unknown type. */
export function makeConstraints(
  constraints: readonly DeviceConstraint[],
  claimName: string,
): Constraint[] {
  return constraints.map((c, i) => {
    const names = new Set(c.requests ?? []);
    if (c.matchAttribute !== undefined) {
      return new MatchAttribute(names, c.matchAttribute);
    }
    if (c.distinctAttribute !== undefined) {
      return new DistinctAttribute(names, c.distinctAttribute);
    }
    throw new AllocatorError(
      `claim ${claimName}, constraint #${i}: empty constraint (unsupported constraint type?)`,
    );
  });
}
